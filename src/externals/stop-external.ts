import { countNoun } from '../support/count-noun.ts';
import { pause as delay } from '../support/pause.ts';
import { type ProcessHandle, openProcessHandle } from '../os/pidfd.ts';
import { assertNever } from '../plan/assert-never.ts';
import { describeMatch, type ProcessMatch } from '../plan/process-match.ts';
import type { FoundProcess, ProcessSearch } from '../plan/process-match.ts';
import { describeFound, isStillTheProcess, searchProcesses } from './find-processes.ts';
import { describeTooMany } from './presence-probe.ts';
import { redactUrl } from '../support/redact-url.ts';
import { needsContinue } from '../plan/signal-sets.ts';
import { type StopRequestResult, requestStop } from './request-stop.ts';
import type { ExternalPreset } from '../plan/presets.ts';
import { describeSigtermExit } from '../plan/stop-exit-warning.ts';

// Stops a process of another container at teardown, in this order: its own
// quit endpoint (the one way that works across UIDs), else or also a signal
// through a pidfd, then waiting until no matching process is left (nor comes
// back under a new PID, which is signalled in turn), within the budget the
// lifecycle gives; what is left at the end is SIGKILLed if the kernel lets us,
// and what is still there after that is reported by PID (the run fails). A
// matcher that matches more processes than its maxMatches signals nothing.
// Another user's process without CAP_KILL (the normal case: the proxy runs as
// 1337 or 2102, the app as its own UID with no capabilities) gives EPERM: that
// is reported once, clearly, and never thrown, so teardown goes on and
// sidecar-init still exits with the app's code (1 if that is 0: the proxy is
// still there).

export interface ExternalStop {
  /** The external's name in the plan, for the log. */
  readonly name: string;
  readonly match: ProcessMatch;
  /** The proxy's own stop endpoint; any 2xx counts. */
  readonly http?: { readonly url: string; readonly method: string } | undefined;
  /** Sent to every match: this signal if given; else SIGTERM when there is no HTTP stop or it did not work. */
  readonly signal?: NodeJS.Signals | undefined;
  /** Logged when the HTTP stop answers 404: how to switch the endpoint on (Linkerd's flag). */
  readonly notFoundHint?: string | undefined;
  /** The proxy it is, when known: what it exits with after SIGTERM is warned of before SIGTERM goes out. */
  readonly preset?: ExternalPreset | undefined;
}

export type StopOutcome =
  /** No matching process was there to stop. */
  | { readonly kind: 'absent' }
  /** No matching process is left, nor came back within STOPPED_SETTLE_MS; `killed` of them needed SIGKILL at the end of the budget. */
  | { readonly kind: 'stopped'; readonly killed: number }
  /** Some still there when the budget ran out: not permitted to signal them, they survived SIGKILL's wait, or they keep coming back. */
  | { readonly kind: 'left-running'; readonly processes: readonly FoundProcess[] }
  /** The matcher matched more processes than its maxMatches: none was signalled. */
  | { readonly kind: 'refused'; readonly processes: readonly FoundProcess[] };

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
/**
 * Gone once is not stopped: a restart loop in the external's container forks
 * a new one, which shows the loop's command line until it execs. Only a search
 * that still finds nothing this long after the last match says "stopped".
 */
export const STOPPED_SETTLE_MS = 150;
/** One quit request never takes more than this (nor more than the budget). */
export const STOP_REQUEST_TIMEOUT_MS = 2_000;
/** After SIGKILL, how long to look for the processes to disappear. */
export const KILL_WAIT_MS = 2_000;

export async function stopExternal(stop: ExternalStop, options: StopOptions): Promise<StopOutcome> {
  const startedAt = Date.now();
  const deadline = startedAt + options.budgetMs;
  const search = () => searchProcesses(stop.match, { selfPid: options.selfPid });
  const initial = await search();
  if (initial.kind === 'too-many') return refuse(stop, initial, options.logger);
  if (initial.kind === 'none' && stop.http === undefined) return { kind: 'absent' };

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

  // Every match is signalled once, a new process (the external came back, under a new PID or a reused one) as well.
  const signalled = new Set<string>();
  const denied = new Map<number, FoundProcess>();
  let warned = false;
  const orderly = await waitUntilGone(search, deadline, options.abort, (targets) => {
    const fresh = targets.filter((found) => !signalled.has(identityOf(found)));
    if (signal === undefined || fresh.length === 0) return true;
    if (!warned) warnOfSigtermExit(stop, signal, fresh, options.logger);
    warned = true;
    options.logger.info(
      { event: 'external-stopping', signal, pids: fresh.map((found) => found.pid) },
      `sending ${signal} to ${countNoun(fresh.length, 'process', 'processes')}`,
    );
    const newlyDenied: FoundProcess[] = [];
    for (const found of fresh) {
      const result = signalMatched(found, stop.match, signal);
      // Not this process any more (gone, or changed since the search): the next search decides again.
      if (result !== 'gone') signalled.add(identityOf(found));
      if (result !== 'not-permitted') continue;
      denied.set(found.pid, found);
      newlyDenied.push(found);
    }
    reportDenied(stop, newlyDenied, signal, options.logger);
    return true;
  });
  if (orderly.kind === 'too-many') return refuse(stop, orderly, options.logger);
  if (orderly.kind === 'none') {
    if (initial.kind === 'none' && signalled.size === 0) return { kind: 'absent' };
    options.logger.info({ event: 'external-stopped', elapsedMs: Date.now() - startedAt }, 'stopped');
    return { kind: 'stopped', killed: 0 };
  }

  // The budget is used up: SIGKILL what we may, report what we may not, and wait for it to be gone.
  const killed = new Set<string>();
  const killDenied: FoundProcess[] = [];
  const final = await waitUntilGone(search, Date.now() + KILL_WAIT_MS, undefined, (targets) => {
    for (const found of targets) {
      if (killed.has(identityOf(found)) || killDenied.some((other) => other.pid === found.pid)) continue;
      const result = signalMatched(found, stop.match, 'SIGKILL');
      if (result === 'sent') killed.add(identityOf(found));
      if (result === 'not-permitted') killDenied.push(found);
    }
    return killed.size > 0;
  });
  reportDenied(
    stop,
    killDenied.filter((found) => !denied.has(found.pid)),
    'SIGKILL',
    options.logger,
  );
  if (final.kind === 'too-many') return refuse(stop, final, options.logger);
  if (final.kind === 'none') {
    options.logger.warn({ event: 'external-killed', killed: killed.size }, 'did not stop within the grace budget; killed');
    return { kind: 'stopped', killed: killed.size };
  }
  options.logger.error(
    { event: 'external-left-running', pids: final.processes.map((found) => found.pid) },
    `external ${stop.name} is still running after the grace budget: ${describeFound(final.processes)}; sidecar-init exits non-zero`,
  );
  return { kind: 'left-running', processes: final.processes };
}

/**
 * Searches every GONE_POLL_MS until nothing matches and still nothing does
 * STOPPED_SETTLE_MS later (confirmed even when that ends past `deadline`), or
 * until `deadline` with a match still there (or `abort`). `act` sees each
 * search's matches (to signal them); false from it means waiting is pointless
 * (nothing could be signalled) and ends the wait at once.
 */
async function waitUntilGone(
  search: () => Promise<ProcessSearch>,
  deadline: number,
  abort: AbortSignal | undefined,
  act: (targets: readonly FoundProcess[]) => boolean,
): Promise<ProcessSearch> {
  let goneSince: number | undefined;
  for (;;) {
    const found = await search();
    const now = Date.now();
    if (found.kind === 'too-many') return found;
    if (found.kind === 'none') {
      goneSince ??= now;
      const settledAt = goneSince + STOPPED_SETTLE_MS;
      if (now >= settledAt || abort?.aborted === true) return found;
      // Gone just before the deadline is confirmed all the same: at most STOPPED_SETTLE_MS more.
      await delay(Math.max(1, Math.min(GONE_POLL_MS, Math.max(deadline, settledAt) - now)));
      continue;
    }
    goneSince = undefined;
    const worthWaiting = act(found.processes);
    if (!worthWaiting || now >= deadline || abort?.aborted === true) return found;
    await delay(Math.max(1, Math.min(GONE_POLL_MS, deadline - now)));
  }
}

/**
 * Before SIGTERM reaches a proxy that exits non-zero on it (cloud-sql-proxy:
 * 143), which fails its container and so the pod: one warning that says so
 * and how to avoid it, unless its command line already does (asked once per stop).
 */
function warnOfSigtermExit(stop: ExternalStop, signal: NodeJS.Signals, targets: readonly FoundProcess[], logger: StopLogger): void {
  if (signal !== 'SIGTERM' || stop.preset === undefined) return;
  const warning = describeSigtermExit(stop.preset, targets[0]?.cmdline.split(' '));
  if (warning !== undefined) logger.warn({ event: 'external-exit-fails-pod', signal, exitCode: stop.preset.exits.sigterm }, warning);
}

/** A matcher looser than meant: nothing is signalled, and the log says what it matched. */
function refuse(stop: ExternalStop, search: ProcessSearch & { kind: 'too-many' }, logger: StopLogger): StopOutcome {
  logger.error(
    { event: 'external-refused', pids: search.processes.map((found) => found.pid), maxMatches: stop.match.maxMatches },
    `refusing to stop external ${stop.name}: ${describeTooMany(stop.match, search.independent, search.processes)}`,
  );
  return { kind: 'refused', processes: search.processes };
}

/** One process, not one PID: a PID may be another process's by the next search. */
function identityOf(found: FoundProcess): string {
  return `${found.pid}:${found.startTime}`;
}

/**
 * Opens a pidfd, then checks that the PID still is the process we matched
 * (isStillTheProcess: its start time above all): between reading /proc and
 * pidfd_open it may have exited and the PID gone to another process. From
 * then on the pidfd pins it.
 */
function signalMatched(found: FoundProcess, match: ProcessMatch, signal: NodeJS.Signals): 'sent' | 'gone' | 'not-permitted' {
  let handle: ProcessHandle | undefined;
  try {
    handle = openProcessHandle(found.pid);
    if (handle === undefined || !isStillTheProcess(found, match)) return 'gone';
    const result = handle.signal(signal);
    // Through the same pidfd: a stopped proxy would hold the stop signal until the SIGKILL (needsContinue).
    if (result.kind === 'sent' && needsContinue(signal)) handle.signal('SIGCONT');
    return result.kind;
  } finally {
    handle?.close();
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
    `cannot send ${signal} to external ${stop.name} (${describeMatch(stop.match)}): ${described} belongs to another user and sidecar-init runs as UID ${ownUid} without CAP_KILL (EPERM); fix: ${fix}`,
  );
}
