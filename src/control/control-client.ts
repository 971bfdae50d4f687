import { closeSync } from 'node:fs';
import { Socket } from 'node:net';
import { basename } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadUnixSocketApi } from '../os/unix-socket.ts';
import type { StatusDocument } from '../status/status-json.ts';
import { errorCode } from '../support/error-code.ts';
import { openControlDir } from './control-dir.ts';
import {
  type ControlAnswer,
  type ControlRequest,
  EXIT_WAIT_TIMEOUT,
  encodeRequest,
  MAX_ANSWER_BYTES,
  type ServerIdentity,
} from './protocol.ts';

// `sidecar-init ctl`: one request to the control socket, its answer printed.
// Exit 0 when it was done, 1 when it was refused or the socket could not be
// reached (the reason on stderr), so scripts can tell.
//
// Whoever answers is checked before anything is sent: the server's kernel
// credentials (SO_PEERCRED) must be this uid's or root's, as the server
// checks the client's. A socket file can be planted or its folder swapped
// (RENAME_EXCHANGE) by anyone who may write a folder above it; the process
// listening cannot be faked.
//
// Every answer names the sidecar-init that gave it (its pid as this caller
// sees it, its start, its config file): two of one uid may run side by side,
// and without --control both would look for the same default socket, which
// only one of them holds.

/** A request answers at once (a restart replies when it begins, not when it ends); this only bounds a stuck server. */
const ANSWER_TIMEOUT_MS = 10_000;
/** restart --wait asks for the status this often: one short connection each, answered from memory. */
const WAIT_POLL_MS = 100;

export interface CtlOptions {
  readonly path: string;
  /** A folder that must be this uid's own and closed to others before the socket in it is trusted (the default socket's). */
  readonly trustedDir: string | undefined;
  readonly request: ControlRequest;
  readonly json: boolean;
  /** restart --wait: until the process is ready again, at most this long. */
  readonly waitMs: number | undefined;
}

export interface CtlOutput {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** The socket: the name to tell the user, and what to connect to (through the checked folder's descriptor for the default one). */
interface Target {
  readonly name: string;
  readonly connectTo: string;
}

export async function runCtl(options: CtlOptions): Promise<CtlOutput> {
  if (options.trustedDir === undefined) return await runAt({ name: options.path, connectTo: options.path }, options);
  const dir = openControlDir(options.trustedDir, process.geteuid?.() ?? 0);
  if (!dir.ok) return failed(`no default control socket: ${dir.reason}${dir.foreign ? '' : DEFAULT_SOCKET_HINT}`);
  try {
    return await runAt({ name: options.path, connectTo: `/proc/self/fd/${dir.fd}/${basename(options.path)}` }, options);
  } finally {
    closeSync(dir.fd);
  }
}

async function runAt(path: Target, options: CtlOptions): Promise<CtlOutput> {
  const { request, waitMs } = options;
  if (waitMs !== undefined && request.cmd === 'action' && request.command.kind === 'restart')
    return await restartAndWait(path, request, request.command.name, waitMs);
  const answer = await ask(path, request);
  if (!answer.ok) return failed(answer.error, 1, answer.by);
  if (options.json) {
    const document = { ...(answer.status ?? { ok: true, message: answer.message }), answeredBy: answer.by ?? null };
    return { code: 0, stdout: `${JSON.stringify(document, null, 2)}\n`, stderr: '' };
  }
  const text = answer.status === undefined ? `${answer.message}\n` : statusTable(answer.status);
  return { code: 0, stdout: `${answeredByLine(answer.by)}${text}`, stderr: '' };
}

/**
 * Which sidecar-init answered: its pid as this caller sees it (SO_PEERCRED of
 * the connection) and as its own PID namespace does (1 as PID 1), when it
 * started, and its config file. Undefined from a sidecar-init too old to say.
 */
export interface AnsweredBy {
  readonly pid: number | null;
  readonly pidInItsNamespace: number;
  readonly startedAt: string;
  readonly config: string | null;
}

function answeredBy(peerPid: number, server: ServerIdentity | undefined): AnsweredBy | undefined {
  if (typeof server?.pid !== 'number' || typeof server.startedAt !== 'string') return undefined;
  // 0: it runs in a PID namespace this caller cannot see.
  const config = typeof server.config === 'string' ? server.config : null;
  return { pid: peerPid > 0 ? peerPid : null, pidInItsNamespace: server.pid, startedAt: server.startedAt, config };
}

/** `answered by sidecar-init pid 4242 (started …, config /etc/sidecar-init.yaml)`, as the first line of every answer. */
export function answeredByLine(by: AnsweredBy | undefined): string {
  if (by === undefined) return '';
  const { pidInItsNamespace, startedAt, config } = by;
  const pid =
    by.pid === null
      ? `pid ${pidInItsNamespace} in its own PID namespace`
      : `pid ${by.pid}${by.pid === pidInItsNamespace ? '' : ` (${pidInItsNamespace} in its own PID namespace)`}`;
  return `answered by sidecar-init ${pid}, started ${startedAt}, ${config === null ? 'no config file' : `config ${config}`}\n`;
}

const DEFAULT_SOCKET_HINT =
  " (is sidecar-init running as this uid, without --control PATH or --control none, with a writable /tmp? kubectl exec runs as the container's user; else give --control PATH)";

function failed(error: string, code = 1, by?: AnsweredBy): CtlOutput {
  return { code, stdout: '', stderr: `sidecar-init ctl: ${error}\n${by === undefined ? '' : `sidecar-init ctl: ${answeredByLine(by)}`}` };
}

type ProcessStatus = StatusDocument['processes'][number];

/**
 * restart, then the status until the process is ready again: a run of it
 * other than the one before the restart (another pid) that is ready. It failed when it is gone for good or the run is stopping;
 * a crash in between is a backoff, and the wait goes on until the timeout.
 */
async function restartAndWait(path: Target, request: ControlRequest, name: string, waitMs: number): Promise<CtlOutput> {
  const deadline = Date.now() + waitMs;
  const before = await ask(path, { cmd: 'status' });
  if (!before.ok) return failed(before.error, 1, before.by);
  // Each request is a connection of its own: the first one's answerer is the one named.
  const { by } = before;
  const old = before.status?.processes.find((process) => process.name === name);
  const answer = await ask(path, request);
  if (!answer.ok) return failed(answer.error, 1, by);
  for (;;) {
    const now = await ask(path, { cmd: 'status' });
    if (!now.ok) return failed(`${name} was restarting, then: ${now.error}`, 1, by);
    const current = now.status?.processes.find((process) => process.name === name);
    const verdict = judgeRestart(old, current, now.status?.phase);
    if (verdict.kind === 'ready')
      return { code: 0, stdout: `${answeredByLine(by)}${name} is ready again (pid ${current?.pid ?? '-'})\n`, stderr: '' };
    if (verdict.kind === 'failed') return failed(`${name} did not come back: ${verdict.reason}`, 1, by);
    if (Date.now() >= deadline)
      return failed(`${name} is not ready again after ${waitMs}ms (state ${current?.state ?? 'unknown'})`, EXIT_WAIT_TIMEOUT, by);
    await sleep(Math.min(WAIT_POLL_MS, Math.max(0, deadline - Date.now())));
  }
}

type RestartVerdict = { readonly kind: 'ready' } | { readonly kind: 'failed'; readonly reason: string } | { readonly kind: 'waiting' };

function judgeRestart(old: ProcessStatus | undefined, current: ProcessStatus | undefined, phase: string | undefined): RestartVerdict {
  if (current === undefined) return { kind: 'failed', reason: 'it is not in the status any more' };
  if (phase === 'stopping' || phase === 'done') return { kind: 'failed', reason: `the run is ${phase}` };
  if (current.state === 'exited' || current.state === 'skipped') return { kind: 'failed', reason: `it is ${current.state}` };
  // Another pid: the run before may still be up and ready while its preStop hook runs.
  const anotherRun = old === undefined || old.pid === null || current.pid !== old.pid;
  return anotherRun && current.state === 'running' && current.ready && current.pid !== null ? { kind: 'ready' } : { kind: 'waiting' };
}

/** A connection to the socket whose listener is this uid's or root's (and its pid, as this process sees it), nothing sent yet; or why not. */
function connectChecked(
  path: Target,
): { readonly ok: true; readonly socket: Socket; readonly serverPid: number } | { readonly ok: false; readonly error: string } {
  const api = loadUnixSocketApi();
  let fd: number;
  try {
    fd = api.unixConnect(path.connectTo);
  } catch (error) {
    const code = errorCode(error);
    return { ok: false, error: `cannot reach the control socket ${path.name}: ${code ?? String(error)}${hintFor(code)}` };
  }
  let server: { readonly uid: number; readonly pid: number };
  try {
    const ownUid = process.geteuid?.() ?? 0;
    server = api.peerCredentials(fd);
    if (server.uid !== ownUid && server.uid !== 0) {
      closeSync(fd);
      return {
        ok: false,
        error:
          `refused: the control socket ${path.name} is served by uid ${server.uid} (pid ${server.pid}), neither yours (${ownUid}) nor root, ` +
          'so it is not your sidecar-init; nothing was sent to it',
      };
    }
  } catch (error) {
    closeSync(fd);
    return { ok: false, error: `cannot tell who serves the control socket ${path.name}: ${errorCode(error) ?? String(error)}` };
  }
  return { ok: true, socket: new Socket({ fd, readable: true, writable: true }), serverPid: server.pid };
}

/** An answer, and which sidecar-init gave it when it said so. */
type Answered = ControlAnswer & { readonly by?: AnsweredBy | undefined };

function ask(path: Target, request: ControlRequest): Promise<Answered> {
  const connected = connectChecked(path);
  if (!connected.ok) return Promise.resolve(connected);
  const { socket, serverPid } = connected;
  return new Promise((resolve) => {
    let text = '';
    const settle = (answer: ControlAnswer) => {
      socket.destroy();
      resolve({ ...answer, by: answeredBy(serverPid, answer.server) });
    };
    socket.setEncoding('utf8');
    socket.setTimeout(ANSWER_TIMEOUT_MS, () =>
      settle({ ok: false, error: `no answer from ${path.name} within ${ANSWER_TIMEOUT_MS / 1000}s` }),
    );
    socket.on('error', (error: NodeJS.ErrnoException) =>
      settle({
        ok: false,
        error: `cannot reach the control socket ${path.name}: ${error.code ?? error.message}${hintFor(error.code)}`,
      }),
    );
    socket.on('data', (chunk: string) => {
      text += chunk;
      if (text.length > MAX_ANSWER_BYTES) settle({ ok: false, error: 'the answer is too long; is that a sidecar-init control socket?' });
    });
    socket.on('end', () => settle(parseAnswer(text)));
    socket.write(encodeRequest(request));
  });
}

function hintFor(code: string | undefined): string {
  if (code === 'ENOENT' || code === 'ECONNREFUSED') return ' (is sidecar-init running with --control at this path?)';
  if (code === 'EACCES') return " (the socket is only for sidecar-init's own user and root)";
  return '';
}

function parseAnswer(text: string): ControlAnswer {
  try {
    const answer = JSON.parse(text) as ControlAnswer;
    if (typeof answer === 'object' && answer !== null && typeof answer.ok === 'boolean') return answer;
  } catch {
    // Reported below.
  }
  return { ok: false, error: text === '' ? 'the connection closed without an answer' : 'the answer is not a control answer' };
}

/** One line per process, aligned: NAME ROLE STATE PID READY RESTARTS STATUS. */
export function statusTable(status: StatusDocument): string {
  const rows = [
    ['NAME', 'ROLE', 'STATE', 'PID', 'READY', 'RESTARTS', 'STATUS'],
    ...status.processes.map((process) => [
      process.name,
      process.role,
      process.state,
      process.pid === null ? '-' : String(process.pid),
      process.ready ? 'yes' : 'no',
      String(process.restarts),
      process.statusText ?? '',
    ]),
  ];
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  const lines = rows.map((row) =>
    row
      .map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]!)))
      .join('  ')
      .trimEnd(),
  );
  return `${[`phase: ${status.phase}, ${status.ready ? 'ready' : 'not ready'}`, ...lines].join('\n')}\n`;
}
