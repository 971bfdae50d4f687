import type { ProcessSpec } from '../plan/plan.ts';
import type { DecideContext, Draft } from './draft.ts';
import type { ControlCommand } from './events.ts';
import { leftoverGraceMs } from './restart-policy.ts';
import { stopWatches } from './startup.ts';
import type { ExitedProc, ProcState } from './state.ts';

// Requests from the control socket (`sidecar-init ctl`): restart, stop and
// start a sidecar, or signal any process sidecar-init started. Each request is
// answered with one control-reply effect, done or refused with the reason.
// Restart and stop go the way a stop goes anywhere else: the process's
// preStop first, then its stop signal, SIGKILL when its grace runs out. A
// stopped sidecar stays down (held) until start; restart spawns it again
// without a backoff delay, whatever its restart policy, once what its last run
// left in its process group is gone (as for every restart), and it passes
// readiness again before it counts as up. The app is never stopped this way:
// its exit ends the pod.

export function handleControl(context: DecideContext, draft: Draft, id: number, command: ControlCommand): void {
  const refusal = refusalOf(context, draft, command);
  if (refusal !== undefined) {
    draft.effects.push({ type: 'control-reply', id, ok: false, message: refusal });
    return;
  }
  const { name } = command;
  const spec = context.graph.spec(name);
  const proc = draft.get(name);
  switch (command.kind) {
    case 'signal':
      draft.effects.push({ type: 'signal', name, signal: command.signal, purpose: 'control' });
      return reply(draft, id, `sent ${command.signal} to ${name}`);
    case 'start':
      if (proc.status !== 'exited') return; // refusalOf says so
      // As every restart: the new run starts once what the last one left in its process group is gone.
      draft.put(name, {
        status: 'backoff',
        started: proc.started,
        restarts: proc.restarts,
        exit: proc.exit,
        delayOver: true,
        groupGone: false,
      });
      draft.effects.push({ type: 'sweep-group', name, graceMs: leftoverGraceMs(spec) });
      return reply(draft, id, `starting ${name}`);
    case 'restart':
    case 'stop': {
      if (proc.status !== 'running') return; // refusalOf says so
      draft.put(name, {
        status: 'stopping',
        started: proc.started,
        restarts: proc.restarts,
        spawnedAt: proc.spawnedAt,
        killedAsUnhealthy: false,
        byControl: command.kind,
      });
      draft.effects.push(...stopWatches(spec));
      if (!proc.postStartDone && spec.postStart !== undefined) draft.effects.push({ type: 'cancel-hook', name, hook: 'postStart' });
      if (spec.preStop !== undefined) {
        draft.preStopsRunning.add(name);
        draft.effects.push({ type: 'run-hook', name, hook: 'preStop' });
      } else {
        sendControlStop(context, draft, name);
      }
      return reply(draft, id, command.kind === 'restart' ? `restarting ${name}` : `stopping ${name}; it stays down until started`);
    }
  }
}

/** A preStop has ended: a process stopped on request gets its stop signal now (teardown's get theirs in turn). */
export function handleControlPreStopDone(context: DecideContext, draft: Draft, name: string): void {
  const proc = draft.get(name);
  if (proc.status === 'stopping' && proc.byControl !== undefined && !draft.graceExpired) sendControlStop(context, draft, name);
}

/**
 * A process stopped on request has exited: restarted without a backoff delay
 * (as soon as what the run left in its process group is gone, as every restart
 * waits for: sweepGraceMs is that sweep's grace), or held down. Returns false
 * when its exit is not a control stop's, for the usual rules.
 */
export function handleControlExit(draft: Draft, spec: ProcessSpec, before: ProcState, after: ExitedProc): boolean {
  const { name } = spec;
  if (before.status !== 'stopping' || before.byControl === undefined) return false;
  if (before.byControl === 'stop') {
    draft.put(name, { ...after, held: true });
    return true;
  }
  draft.put(name, {
    status: 'backoff',
    started: before.started,
    restarts: before.restarts,
    exit: after.exit,
    delayOver: true,
    groupGone: false,
  });
  draft.effects.push({ type: 'sweep-group', name, graceMs: leftoverGraceMs(spec) });
  return true;
}

function sendControlStop(context: DecideContext, draft: Draft, name: string): void {
  const spec = context.graph.spec(name);
  draft.effects.push(
    { type: 'signal', name, signal: spec.stopSignal ?? 'SIGTERM', purpose: 'control-stop' },
    { type: 'start-timer', timer: { kind: 'process-grace', name }, ms: spec.graceMs ?? context.graceMs },
  );
}

function refusalOf(context: DecideContext, draft: Draft, command: ControlCommand): string | undefined {
  const spec = context.graph.order.find((candidate) => candidate.name === command.name);
  if (spec === undefined) {
    const names = context.graph.order.filter((candidate) => candidate.role !== 'external').map((candidate) => candidate.name);
    return `no process is named ${JSON.stringify(command.name)}; the processes are ${names.join(', ')}`;
  }
  const { name } = spec;
  if (spec.role === 'external')
    return `${name} is an external, a process of another container: sidecar-init never starts or signals it on request`;
  // Once everything is down, decide.ts answers requests itself ("sidecar-init is exiting").
  if (draft.phase === 'stopping') return `sidecar-init is stopping everything; ${command.kind} ${name} is no longer possible`;
  const proc = draft.get(name);
  if (command.kind === 'signal') return isSignalable(proc) ? undefined : `${name} is not running (${describe(proc)})`;
  if (spec.role === 'app') {
    return `the app cannot be ${command.kind === 'start' ? 'started' : `${command.kind === 'stop' ? 'stopped' : 'restarted'}`} on request: its exit ends the pod; send sidecar-init SIGTERM to stop everything`;
  }
  if (spec.role === 'init') return `${name} is an init step: it runs once, to completion, and cannot be ${command.kind}ed on request`;
  switch (command.kind) {
    case 'start':
      return proc.status === 'exited' ? undefined : `${name} is not stopped (${describe(proc)}); only a stopped sidecar can be started`;
    case 'restart':
    case 'stop':
      if (proc.status === 'stopping' && proc.byControl !== undefined) return `${name} is already being stopped on request`;
      return proc.status === 'running' ? undefined : `${name} is not running (${describe(proc)})`;
  }
}

function isSignalable(proc: ProcState): boolean {
  return proc.status === 'running' || proc.status === 'stopping';
}

function describe(proc: ProcState): string {
  if (proc.status === 'exited' && proc.held === true) return 'stopped on request';
  return proc.status === 'backoff' ? 'waiting to restart' : proc.status;
}

function reply(draft: Draft, id: number, message: string): void {
  draft.effects.push({ type: 'control-reply', id, ok: true, message });
}
