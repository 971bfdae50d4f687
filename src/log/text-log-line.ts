// The text log format: one pino JSON line rendered as one line for a person,
//   2026-11-29T20:08:45.221Z INFO  proxy        ready  role=sidecar pid=17697
// time, level, process (sidecar-init for its own events), event, the message
// when it says more than the event, then the other fields as key=value.
// Rendering the JSON line, rather than a second logger, keeps one set of log
// calls and fields for both formats; the parse costs microseconds per line,
// and sidecar-init writes a few lines per process lifetime.
// Every field may carry what another process chose (a comm, a hook's output
// line, an error message), so none reaches the terminal with a control
// character in it (escape-control.ts): the message and bare values escaped,
// quoted values as JSON string literals with DEL and C1 escaped too.

import { CONTROL_CHARACTERS, escapeControl, stringifyWithoutControl } from '../output/escape-control.ts';

/** Wide enough for most process names, so events line up. */
const PROC_WIDTH = 12;
const OWN_NAME = 'sidecar-init';
/** Shown in their own columns (or dropped: name is always sidecar-init). */
const COLUMNS = new Set(['time', 'level', 'name', 'proc', 'event', 'msg']);

export function renderTextLogLine(jsonLine: string): string {
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(jsonLine) as Record<string, unknown>;
  } catch {
    return `${escapeControl(jsonLine.endsWith('\n') ? jsonLine.slice(0, -1) : jsonLine)}\n`;
  }
  const level = String(record.level ?? '').toUpperCase();
  const proc = typeof record.proc === 'string' ? record.proc : OWN_NAME;
  const event = typeof record.event === 'string' ? record.event : '';
  const message = typeof record.msg === 'string' && record.msg !== event ? record.msg : '';
  const head = [String(record.time ?? ''), level.padEnd(5), proc.padEnd(PROC_WIDTH), event, message]
    .filter((part) => part !== '')
    .map(escapeControl);
  const details = Object.entries(record)
    .filter(([key, value]) => !COLUMNS.has(key) && value !== undefined && value !== null)
    .map(([key, value]) => `${escapeControl(key)}=${formatValue(value)}`);
  return `${[...head, ...details].join(' ')}\n`;
}

/** A value shown bare: no space, quote, "=" or backslash (which would make it ambiguous), no control character. */
const BARE_VALUE = new RegExp(`^[^\\s"=\\\\${CONTROL_CHARACTERS}]+$`);

function formatValue(value: unknown): string {
  if (typeof value === 'string') return BARE_VALUE.test(value) ? value : stringifyWithoutControl(value);
  // pino serializes an Error as {type, message, stack}: the message is what a person needs on one line.
  if (typeof value === 'object' && value !== null && 'message' in value) return stringifyWithoutControl(String(value.message));
  return stringifyWithoutControl(value);
}
