import { setTimeout as delay } from 'node:timers/promises';
import { type ProcessHandle, openProcessHandle } from '../process/pidfd.ts';
import { assertNever } from '../util/assert-never.ts';
import { redactUrl } from '../util/redact-url.ts';
import { type FoundProcess, type ProcessMatcher, describeMatcher, findProcesses, readCmdline } from './find-processes.ts';
import { type StopRequestResult, requestStop } from './request-stop.ts';

// Stops a process of another container at teardown, in this order: its own
// quit endpoint (the one way that works across UIDs), else or also a signal
// through a pidfd, then waiting until no matching process is left, within the
// budget the lifecycle gives; what is left at the end is SIGKILLed if the
// kernel lets us. Another user's process without CAP_KILL (the normal case: the
// proxy runs as 1337 or 2102, the app as its own UID with no capabilities)
// gives EPERM: that is reported once, clearly, and never thrown, so teardown
// goes on and sidecar-init still exits with the app's code.

export interface ExternalStop {
  /** The external's name in the plan, for the log. */
  readonly name: string;
  readonly match: ProcessMatcher;
  /** The proxy's own stop endpoint; any 2xx counts. */
  readonly http?: { readonly url: string; readonly method: string } | undefined;
  /** Sent to every match: this signal if given; else SIGTERM when there is no HTTP stop or it did not work. */
  readonly signal?: NodeJS.Signals | undefined;
  /** Logged when the HTTP stop answers 404: how to switch the endpoint on (Linkerd's flag). */
  readonly notFoundHint?: string | undefined;
}

export type StopOutcome =
  /** No matching process was there to stop. */
  | { readonly kind: 'absent' }
  /** Every matching process is gone; `killed` of them needed SIGKILL at the end of the budget. */
  | { readonly kind: 'stopped'; readonly killed: number }
  /** Still running when the budget ran out: not permitted to signal them, or they survived SIGKILL's wait. */
  | { readonly kind: 'left-running'; readonly processes: readonly FoundProcess[] };

/** The slice of pino's Logger the stop uses. */
export interface StopLogger {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

export interface StopOptions {
  /** How long the whole stop may take, SIGKILL's own wait excepted. */
  readonly budgetMs: number;
  readonly logger: StopLogger;
  /** A second SIGTERM: skip what is left of the budget and go straight to SIGKILL. */
  readonly abort?: AbortSignal;
  /** sidecar-init itself, never matched (default process.pid). */
  readonly selfPid?: number;
}

/** There is no event for "a process that is not my child exited": look this often. */
export const GONE_POLL_MS = 50;
/** One quit request never takes more than this (nor more than the budget). */
export const STOP_REQUEST_TIMEOUT_MS = 2_000;
/** After SIGKILL, how long to look for the processes to disappear. */
export const KILL_WAIT_MS = 2_000;

export async function stopExternal(stop: ExternalStop, options: StopOptions): Promise<StopOutcome> {
  const startedAt = Date.now();
  const deadline = startedAt + options.budgetMs;
  const find = () => findProcesses(stop.match, { selfPid: options.selfPid });
  const fields = { event: 'external-stopping' };
  const initial = find();
  if (initial.length === 0 && stop.http === undefined) return { kind: 'absent' };

  let signal = stop.signal;
  if (stop.http !== undefined) {
    const result = await requestStop(
      stop.http.url,
      stop.http.method,
      Math.max(1, Math.min(STOP_REQUEST_TIMEOUT_MS, deadline - Date.now())),
    );
    logStopRequest(stop, result, options.logger);
    if (result.kind !== 'accepted') signal ??= 'SIGTERM';
  } else {
    signal ??= 'SIGTERM';
  }

  const denied = new Map<number, FoundProcess>();
  if (signal !== undefined) {
    const targets = find();
    if (targets.length > 0) options.logger.info({ ...fields, signal, pids: targets.map((found) => found.pid) }, 'signalling external');
    for (const found of targets) {
      if (signalMatched(found, stop.match, signal) === 'not-permitted') denied.set(found.pid, found);
    }
    reportDenied(stop, [...denied.values()], signal, options.logger);
  }

  let left = find();
  while (left.length > 0 && Date.now() < deadline && options.abort?.aborted !== true) {
    await delay(Math.min(GONE_POLL_MS, Math.max(1, deadline - Date.now())));
    left = find();
  }
  if (left.length === 0) {
    if (initial.length === 0 && stop.http !== undefined) return { kind: 'absent' };
    options.logger.info({ event: 'external-stopped', elapsedMs: Date.now() - startedAt }, 'external stopped');
    return { kind: 'stopped', killed: 0 };
  }

  // The budget is used up: SIGKILL what we may, report what we may not.
  let killed = 0;
  const newlyDenied: FoundProcess[] = [];
  for (const found of left) {
    const result = signalMatched(found, stop.match, 'SIGKILL');
    if (result === 'sent') killed += 1;
    if (result === 'not-permitted' && !denied.has(found.pid)) newlyDenied.push(found);
  }
  reportDenied(stop, newlyDenied, 'SIGKILL', options.logger);
  const killDeadline = Date.now() + KILL_WAIT_MS;
  left = find();
  while (left.length > 0 && killed > 0 && Date.now() < killDeadline) {
    await delay(GONE_POLL_MS);
    left = find();
  }
  if (left.length === 0) {
    options.logger.warn({ event: 'external-killed', killed }, 'external did not stop within the grace budget; killed');
    return { kind: 'stopped', killed };
  }
  options.logger.error(
    { event: 'external-left-running', pids: left.map((found) => found.pid) },
    `external ${stop.name} is still running after the grace budget; sidecar-init exits without it`,
  );
  return { kind: 'left-running', processes: left };
}

/**
 * Opens a pidfd, then checks that the PID still is the process we matched:
 * between reading /proc and pidfd_open it may have exited and the PID gone to
 * another process. From then on the pidfd pins it.
 */
function signalMatched(found: FoundProcess, match: ProcessMatcher, signal: NodeJS.Signals): 'sent' | 'gone' | 'not-permitted' {
  let handle: ProcessHandle | undefined;
  try {
    handle = openProcessHandle(found.pid);
    if (handle === undefined || !stillMatches(found, match)) return 'gone';
    const result = handle.signal(signal);
    return result.kind;
  } finally {
    handle?.close();
  }
}

function stillMatches(found: FoundProcess, match: ProcessMatcher): boolean {
  try {
    return readCmdline(found.pid) === found.cmdline && (match.cmdline === undefined || match.cmdline.test(found.cmdline));
  } catch {
    return false;
  }
}

function logStopRequest(stop: ExternalStop, result: StopRequestResult, logger: StopLogger): void {
  const http = stop.http;
  if (http === undefined) return;
  const fields = { event: 'external-stop-request', url: redactUrl(http.url), method: http.method };
  switch (result.kind) {
    case 'accepted':
      logger.info({ ...fields, status: result.status }, 'stop endpoint accepted');
      return;
    case 'refused':
      logger.info(fields, 'stop endpoint refused the connection; the external is gone or going');
      return;
    case 'rejected': {
      const hint = result.status === 404 && stop.notFoundHint !== undefined ? `; ${stop.notFoundHint}` : '';
      logger.warn({ ...fields, status: result.status }, `stop endpoint answered HTTP ${result.status}; falling back to a signal${hint}`);
      return;
    }
    case 'failed':
      logger.warn({ ...fields, reason: result.reason }, 'stop endpoint failed; falling back to a signal');
      return;
    default:
      assertNever(result);
  }
}

/** One error for all processes we may not signal: what, whose, and how to fix it. */
function reportDenied(stop: ExternalStop, denied: readonly FoundProcess[], signal: NodeJS.Signals, logger: StopLogger): void {
  if (denied.length === 0) return;
  const ownUid = process.getuid?.() ?? -1;
  const described = denied.map((found) => `${found.comm} (PID ${found.pid}, UID ${found.uid})`).join(', ');
  const uids = [...new Set(denied.map((found) => found.uid))].join('/');
  const fix =
    stop.http === undefined
      ? `give it an HTTP stop endpoint (a preset's, or --quit ${stop.name}=URL / stop.http), run sidecar-init as UID ${uids}, or grant it CAP_KILL`
      : `make its stop endpoint ${redactUrl(stop.http.url)} work, run sidecar-init as UID ${uids}, or grant it CAP_KILL`;
  logger.error(
    {
      event: 'external-stop-denied',
      signal,
      pids: denied.map((found) => found.pid),
      uids: [...new Set(denied.map((found) => found.uid))],
      ownUid,
    },
    `cannot send ${signal} to external ${stop.name} (${describeMatcher(stop.match)}): ${described} belongs to another user and sidecar-init runs as UID ${ownUid} without CAP_KILL (EPERM); fix: ${fix}`,
  );
}
