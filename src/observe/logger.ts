import pino from 'pino';
import type { Logger } from 'pino';
import type { LogFormat, LogLevel } from '../config/plan.ts';
import { renderTextLogLine } from './text-log-line.ts';
import { writeAllSync } from './write-sync.ts';

const STDERR_FD = 2;

/**
 * The supervisor's own events: pino JSON lines on stderr, written synchronously
 * (few lines, and none may be lost at exit). Children's output never passes
 * through here; it is inherited and reaches the container log unchanged.
 */
export function createLogger(level: LogLevel, format: LogFormat = 'json'): Logger {
  return pino(
    {
      level,
      // No pid/hostname in the base: `pid` is a child's pid in every line that has one.
      base: { name: 'sidecar-init' },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      // --log-format text: each JSON line rendered for a person just before it is written.
      hooks: format === 'text' ? { streamWrite: renderTextLogLine } : {},
    },
    { write: (line: string) => writeAllSync(STDERR_FD, line) },
  );
}
