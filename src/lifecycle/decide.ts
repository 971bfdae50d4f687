import type { ExitStatus } from '../process/exit-status.ts';
import { isSuccess } from '../process/exit-status.ts';
import { assertNever } from '../util/assert-never.ts';
import type { Effect, LifecycleEvent } from './events.ts';
import { decideExitCode } from './exit-code.ts';
import type { ProcessGraph } from './graph.ts';
import type { LifecycleState, Phase, ProcState, StopReason } from './state.ts';
import { isAlive } from './state.ts';

/** After the grace budget, what is still alive gets SIGTERM, then SIGKILL this much later. */
export const KILL_AFTER_GRACE_MS = 2_000;

export interface DecideContext {
  readonly graph: ProcessGraph;
  readonly graceMs: number;
}

export interface Decision {
  readonly state: LifecycleState;
  readonly effects: readonly Effect[];
}

/**
 * The whole lifecycle as one pure function: given the state and one event,
 * the next state and what to do. No I/O, no clocks: the runner (supervise.ts)
 * performs the effects and feeds their outcomes back as events.
 */
export function decide(context: DecideContext, state: LifecycleState, event: LifecycleEvent): Decision {
  const draft = createDraft(state);
  switch (event.type) {
    case 'boot':
      break;
    case 'spawned':
      handleSpawned(context, draft, event.name);
      break;
    case 'exited':
      handleExited(context, draft, event.name, event.status);
      break;
    case 'ready':
      if (draft.phase !== 'stopping' && draft.get(event.name).status === 'running') {
        draft.set(event.name, { status: 'started', started: true });
      }
      break;
    case 'not-ready':
      if (draft.phase !== 'stopping' && draft.get(event.name).status === 'running') {
        beginStop(context, draft, { kind: 'sidecar-failed', name: event.name, status: undefined, reason: event.reason });
      }
      break;
    case 'signal':
      handleSignal(context, draft, event.signal);
      break;
    case 'grace-expired':
      draft.graceExpired = true;
      signalAllAlive(draft, 'SIGTERM', 'expire');
      draft.effects.push({ type: 'start-kill-timer', ms: KILL_AFTER_GRACE_MS });
      break;
    case 'kill-timer':
      signalAllAlive(draft, 'SIGKILL', 'kill');
      break;
    default:
      assertNever(event);
  }
  advance(context, draft);
  return draft.finish();
}

function handleSpawned(context: DecideContext, draft: Draft, name: string): void {
  if (draft.get(name).status !== 'spawning') return;
  const spec = context.graph.spec(name);
  if (spec.role === 'sidecar' && draft.phase !== 'stopping') {
    if (spec.readiness === undefined) {
      draft.set(name, { status: 'started', started: true });
      return;
    }
    draft.effects.push({ type: 'watch-readiness', name });
  }
  draft.set(name, { status: 'running' });
}

function handleExited(context: DecideContext, draft: Draft, name: string, status: ExitStatus): void {
  const before = draft.get(name);
  const spec = context.graph.spec(name);
  draft.set(name, { status: 'exited', exit: status });
  if (before.status === 'running' && spec.readiness !== undefined) draft.effects.push({ type: 'cancel-readiness', name });
  if (draft.phase === 'stopping' || draft.phase === 'done') return;

  switch (spec.role) {
    case 'app':
      beginStop(context, draft, { kind: 'app-exited', status });
      return;
    case 'init':
      if (!isSuccess(status)) beginStop(context, draft, { kind: 'init-failed', name, status });
      return;
    case 'sidecar':
      // Once started, a sidecar's exit does not disturb the app (restarts come with their own policy).
      if (!before.started) {
        beginStop(context, draft, { kind: 'sidecar-failed', name, status, reason: 'exited before it was ready' });
      }
      return;
    default:
      assertNever(spec.role);
  }
}

function handleSignal(context: DecideContext, draft: Draft, signal: NodeJS.Signals): void {
  if (signal === 'SIGTERM' || signal === 'SIGINT') {
    draft.stopSignalsReceived += 1;
    if (draft.phase === 'starting' || draft.phase === 'running') {
      beginStop(context, draft, { kind: 'signal', signal });
    } else if (draft.phase === 'stopping' && draft.stopSignalsReceived >= 2) {
      // A second stop signal means "now": skip what is left of the grace.
      draft.graceExpired = true;
      signalAllAlive(draft, 'SIGKILL', 'kill');
    }
    return;
  }
  const app = context.graph.app.name;
  const appStatus = draft.get(app).status;
  if (appStatus === 'running' || appStatus === 'stopping') {
    draft.effects.push({ type: 'signal', name: app, signal, purpose: 'forward' });
  }
}

function beginStop(context: DecideContext, draft: Draft, reason: StopReason): void {
  draft.phase = 'stopping';
  draft.stopReason = reason;
  draft.effects.push({ type: 'start-grace-timer', ms: context.graceMs });
  for (const spec of context.graph.order) {
    const proc = draft.get(spec.name);
    if (proc.status === 'pending') draft.set(spec.name, { status: 'skipped' });
    if (proc.status === 'running' && spec.readiness !== undefined && !proc.started) {
      draft.effects.push({ type: 'cancel-readiness', name: spec.name });
    }
  }
}

/** Starts what may start, stops what may stop, and finishes when nothing is left. */
function advance(context: DecideContext, draft: Draft): void {
  if (draft.phase === 'starting' || draft.phase === 'running') {
    for (const spec of context.graph.order) {
      if (draft.get(spec.name).status !== 'pending') continue;
      if (!spec.after.every((dependency) => isDependencySatisfied(context, draft, dependency))) continue;
      draft.set(spec.name, { status: 'spawning' });
      draft.effects.push({ type: 'spawn', name: spec.name });
      if (spec.role === 'app') draft.phase = 'running';
    }
    return;
  }
  if (draft.phase !== 'stopping') return;

  for (const spec of context.graph.order) {
    const status = draft.get(spec.name).status;
    if (status !== 'running' && status !== 'started') continue;
    const dependentsDown = context.graph.dependentsOf(spec.name).every((name) => !isAlive(draft.get(name).status));
    if (!dependentsDown) continue;
    draft.set(spec.name, { status: 'stopping' });
    draft.effects.push({ type: 'signal', name: spec.name, signal: stopSignalFor(context, draft, spec.name), purpose: 'stop' });
  }

  const anyAlive = context.graph.order.some((spec) => isAlive(draft.get(spec.name).status));
  if (!anyAlive && draft.stopReason !== undefined) {
    draft.phase = 'done';
    draft.effects.push({ type: 'finish', exitCode: decideExitCode(draft.stopReason, draft.get(context.graph.app.name)) });
  }
}

function isDependencySatisfied(context: DecideContext, draft: Draft, name: string): boolean {
  const spec = context.graph.spec(name);
  const proc = draft.get(name);
  switch (spec.role) {
    case 'init':
      return proc.status === 'exited' && proc.exit !== undefined && isSuccess(proc.exit);
    case 'sidecar':
      return proc.started;
    case 'app':
      return false;
    default:
      return assertNever(spec.role);
  }
}

/** The app hears the signal the supervisor received; everything else gets SIGTERM. */
function stopSignalFor(context: DecideContext, draft: Draft, name: string): NodeJS.Signals {
  const reason = draft.stopReason;
  if (name === context.graph.app.name && reason?.kind === 'signal') return reason.signal;
  return 'SIGTERM';
}

function signalAllAlive(draft: Draft, signal: NodeJS.Signals, purpose: 'expire' | 'kill'): void {
  for (const [name, proc] of draft.procs) {
    if (proc.status === 'running' || proc.status === 'started' || proc.status === 'stopping') {
      draft.set(name, { status: 'stopping' });
      draft.effects.push({ type: 'signal', name, signal, purpose });
    }
  }
}

interface Draft {
  phase: Phase;
  stopReason: StopReason | undefined;
  stopSignalsReceived: number;
  graceExpired: boolean;
  readonly procs: Map<string, ProcState>;
  readonly effects: Effect[];
  get(name: string): ProcState;
  set(name: string, change: Partial<ProcState>): void;
  finish(): Decision;
}

function createDraft(state: LifecycleState): Draft {
  const procs = new Map(state.procs);
  const draft: Draft = {
    phase: state.phase,
    stopReason: state.stopReason,
    stopSignalsReceived: state.stopSignalsReceived,
    graceExpired: state.graceExpired,
    procs,
    effects: [],
    get(name) {
      const proc = procs.get(name);
      if (proc === undefined) throw new Error(`no process named ${name} in the lifecycle state`);
      return proc;
    },
    set(name, change) {
      procs.set(name, { ...draft.get(name), ...change });
    },
    finish: () => ({
      state: {
        phase: draft.phase,
        procs,
        stopReason: draft.stopReason,
        stopSignalsReceived: draft.stopSignalsReceived,
        graceExpired: draft.graceExpired,
      },
      effects: draft.effects,
    }),
  };
  return draft;
}
