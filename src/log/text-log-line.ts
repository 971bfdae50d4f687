// The text log format: one pino JSON line rendered as one line for a person,
//   2026-11-29T20:08:45.221Z INFO  proxy        ready role=sidecar pid=17697
// time, level, the process the line is about (sidecar-init for its own
// events), the message, then the other fields as key=value. The process and the
// message read as one sentence ("proxy ready", "sidecar-init received
// SIGTERM"), so the event name, which the message already says in words, is
// left to the JSON format: beside the message it read "exit exiting".
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
/** Shown in their own columns, or dropped: name is always sidecar-init, and the message says what the event names. */
const COLUMNS = new Set(['time', 'level', 'name', 'event', 'msg']);

export function renderTextLogLine(jsonLine: string): string {
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(jsonLine) as Record<string, unknown>;
  } catch {
    return `${escapeControl(jsonLine.endsWith('\n') ? jsonLine.slice(0, -1) : jsonLine)}\n`;
  }
  const level = String(record.level ?? '').toUpperCase();
  const subject = subjectOf(record);
  const message = typeof record.msg === 'string' && record.msg !== '' ? record.msg : String(record.event ?? '');
  const head = [String(record.time ?? ''), level.padEnd(5), subject.padEnd(PROC_WIDTH), message]
    .filter((part) => part !== '')
    .map(escapeControl);
  const details = Object.entries(record)
    .filter(([key, value]) => !COLUMNS.has(key) && !(key === 'proc' && value === subject) && value !== undefined && value !== null)
    .map(([key, value]) => `${escapeControl(key)}=${formatValue(value)}`);
  return `${[...head, ...details].join(' ')}\n`;
}

/**
 * Whom the line is about: a process's own lines come from its logger, which
 * binds both its proc and its role; a line of sidecar-init's that names a
 * process (teardown's culprit, the last line's) has a proc but no role, and is
 * sidecar-init's, with proc= among the details.
 */
function subjectOf(record: Record<string, unknown>): string {
  return typeof record.proc === 'string' && typeof record.role === 'string' ? record.proc : OWN_NAME;
}

/** A value shown bare: no space, quote, "=" or backslash (which would make it ambiguous), no control character. */
const BARE_VALUE = new RegExp(`^[^\\s"=\\\\${CONTROL_CHARACTERS}]+$`);

function formatValue(value: unknown): string {
  if (typeof value === 'string') return BARE_VALUE.test(value) ? value : stringifyWithoutControl(value);
  // pino serializes an Error as {type, message, stack}: the message is what a person needs on one line.
  if (typeof value === 'object' && value !== null && 'message' in value) return stringifyWithoutControl(String(value.message));
  return stringifyWithoutControl(value);
}
