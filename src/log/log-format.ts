import { isatty } from 'node:tty';
import type { LogFormat } from '../plan/plan.ts';

const STDERR_FD = 2;

/** As configured, or else text on a terminal, where a person reads it, and JSON anywhere else (a container log). */
export function resolveLogFormat(configured: LogFormat | undefined): LogFormat {
  return configured ?? (isatty(STDERR_FD) ? 'text' : 'json');
}
