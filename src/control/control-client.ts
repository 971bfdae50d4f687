import { connect } from 'node:net';
import type { StatusDocument } from '../status/status-json.ts';
import { type ControlAnswer, type ControlRequest, encodeRequest, MAX_ANSWER_BYTES } from './protocol.ts';

// `sidecar-init ctl`: one request to the control socket, its answer printed.
// Exit 0 when it was done, 1 when it was refused or the socket could not be
// reached (the reason on stderr), so scripts can tell.

/** A request answers at once (a restart replies when it begins, not when it ends); this only bounds a stuck server. */
const ANSWER_TIMEOUT_MS = 10_000;

export interface CtlOptions {
  readonly path: string;
  readonly request: ControlRequest;
  readonly json: boolean;
}

export interface CtlOutput {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export async function runCtl(options: CtlOptions): Promise<CtlOutput> {
  const answer = await ask(options.path, options.request);
  if (!answer.ok) return { code: 1, stdout: '', stderr: `sidecar-init ctl: ${answer.error}\n` };
  if (options.json)
    return { code: 0, stdout: `${JSON.stringify(answer.status ?? { ok: true, message: answer.message }, null, 2)}\n`, stderr: '' };
  return { code: 0, stdout: answer.status === undefined ? `${answer.message}\n` : statusTable(answer.status), stderr: '' };
}

function ask(path: string, request: ControlRequest): Promise<ControlAnswer> {
  return new Promise((resolve) => {
    const socket = connect(path);
    let text = '';
    const settle = (answer: ControlAnswer) => {
      socket.destroy();
      resolve(answer);
    };
    socket.setEncoding('utf8');
    socket.setTimeout(ANSWER_TIMEOUT_MS, () => settle({ ok: false, error: `no answer from ${path} within ${ANSWER_TIMEOUT_MS / 1000}s` }));
    socket.on('error', (error: NodeJS.ErrnoException) =>
      settle({
        ok: false,
        error: `cannot reach the control socket ${path}: ${error.code ?? error.message}${hintFor(error.code)}`,
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
