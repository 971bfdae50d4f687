/** How sidecar-init writes its own events: JSON lines for log pipelines, or text for people. */
export type LogFormat = 'json' | 'text';

export const LOG_FORMATS: readonly LogFormat[] = ['json', 'text'];

/** Unless told: text on a terminal, where a person reads it; JSON anywhere else (a container log). */
export function defaultLogFormat(stderrIsTerminal: boolean): LogFormat {
  return stderrIsTerminal ? 'text' : 'json';
}
