import { constants } from 'node:os';
import type { ControlCommand } from '../lifecycle/events.ts';
import type { StatusDocument } from '../status/status-json.ts';

// The control socket's protocol: one JSON request line from the client, one
// JSON answer line from sidecar-init, then the connection closes. Bounded on
// both ends: a request longer than MAX_LINE_BYTES is refused unread.

/** A request line is a few dozen bytes; anything near this is not a request. */
export const MAX_LINE_BYTES = 4096;
/** An answer holds the status of every process; bounded so a client never buffers without end. */
export const MAX_ANSWER_BYTES = 1024 * 1024;

/** `ctl restart --wait`: the process was not ready again within the timeout (as timeout(1) exits). */
export const EXIT_WAIT_TIMEOUT = 124;

export type ControlRequest = { readonly cmd: 'status' } | ({ readonly cmd: 'action' } & { readonly command: ControlCommand });

/**
 * Which sidecar-init answered, in every answer to its own uid or root: two of
 * one uid may run side by side (one holds the default socket, the other runs
 * without it), and `ctl` says which one it reached. The pid is its own, as its
 * PID namespace sees it (1 as PID 1); `ctl` shows its own view of it too, from
 * the socket's credentials.
 */
export interface ServerIdentity {
  readonly pid: number;
  /** When the process started, ISO 8601. */
  readonly startedAt: string;
  /** The config file, absolute, or null when the command line alone gave the plan. */
  readonly config: string | null;
}

export type ControlAnswer =
  | { readonly ok: true; readonly message: string; readonly status?: StatusDocument; readonly server?: ServerIdentity }
  | { readonly ok: false; readonly error: string; readonly server?: ServerIdentity };

export type Parsed<Value> = { readonly ok: true; readonly value: Value } | { readonly ok: false; readonly error: string };

const ACTIONS = ['restart', 'stop', 'start'] as const;
/** What a name may look like (the plan's DNS labels, with some slack): anything else cannot name a process. */
const NAME = /^[\w.-]{1,253}$/;

/** A request line as a client wrote it, checked field by field: nothing but these shapes reaches the lifecycle. */
export function parseRequest(line: string): Parsed<ControlRequest> {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { ok: false, error: 'the request is not JSON' };
  }
  if (typeof value !== 'object' || value === null) return { ok: false, error: 'the request is not a JSON object' };
  const { cmd, name, signal } = value as Record<string, unknown>;
  if (cmd === 'status') return { ok: true, value: { cmd: 'status' } };
  if (cmd !== 'signal' && !(ACTIONS as readonly unknown[]).includes(cmd)) {
    return { ok: false, error: 'unknown command; use status, restart, stop, start or signal' };
  }
  if (typeof name !== 'string' || !NAME.test(name)) return { ok: false, error: 'the request has no valid process name' };
  if (typeof cmd === 'string' && (ACTIONS as readonly string[]).includes(cmd)) {
    return { ok: true, value: { cmd: 'action', command: { kind: cmd as (typeof ACTIONS)[number], name } } };
  }
  if (cmd === 'signal') {
    const parsed = typeof signal === 'string' ? parseSignalName(signal) : undefined;
    if (parsed === undefined) return { ok: false, error: `${JSON.stringify(signal)} is not a signal name, e.g. SIGHUP or HUP` };
    return { ok: true, value: { cmd: 'action', command: { kind: 'signal', name, signal: parsed } } };
  }
  return { ok: false, error: 'unknown command; use status, restart, stop, start or signal' };
}

/** SIGHUP, HUP or hup; not a number (whose meaning differs between architectures). */
export function parseSignalName(text: string): NodeJS.Signals | undefined {
  const upper = text.toUpperCase();
  const name = upper.startsWith('SIG') ? upper : `SIG${upper}`;
  return Object.hasOwn(constants.signals, name) ? (name as NodeJS.Signals) : undefined;
}

/** The request line a client sends for a command. */
export function encodeRequest(request: ControlRequest): string {
  if (request.cmd === 'status') return `${JSON.stringify({ cmd: 'status' })}\n`;
  const { command } = request;
  const fields = command.kind === 'signal' ? { signal: command.signal } : {};
  return `${JSON.stringify({ cmd: command.kind, name: command.name, ...fields })}\n`;
}
