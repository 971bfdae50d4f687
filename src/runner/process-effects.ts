import type { Logger } from 'pino';
import type { ProcessSpec } from '../plan/plan.ts';
import type { ReadinessChannel } from '../probes/readiness-channel.ts';
import type { SignalPurpose } from '../lifecycle/events.ts';
import type { Runner } from './runner.ts';
import type { SpawnRequest } from '../process/child.ts';
import { needsContinue } from '../plan/signal-sets.ts';

// The spawn, signal and sweep-group effects: the only ones that touch processes.

const SIGNAL_LOG: Readonly<Record<SignalPurpose, { level: 'info' | 'warn'; message: string }>> = {
  stop: { level: 'info', message: 'stopping' },
  forward: { level: 'info', message: 'forwarded signal' },
  unhealthy: { level: 'warn', message: 'stopping to restart' },
  expire: { level: 'warn', message: 'grace budget exhausted' },
  kill: { level: 'warn', message: 'killed' },
  'control-stop': { level: 'info', message: 'stopping on request' },
  control: { level: 'info', message: 'signalled on request' },
};

/**
 * The purposes whose signal is sent to end the process, which a SIGCONT then
 * follows (needsContinue says why). A forwarded signal or one asked for on
 * the control socket is passed on as it is: a stopped app stays stopped.
 */
const ENDS_THE_PROCESS: Readonly<Record<SignalPurpose, boolean>> = {
  stop: true,
  unhealthy: true,
  expire: true,
  'control-stop': true,
  kill: true,
  forward: false,
  control: false,
};

export function spawnProcess(runner: Runner, spec: ProcessSpec): void {
  const { deps, log, children, logMatchers, dispatch } = runner;
  const logger = log.of(spec.name);
  // A log readiness probe reads the output on its way to the container log.
  const matcher = spec.readiness?.probe.kind === 'log' ? deps.probes.createLogMatcher(spec.readiness.probe.pattern) : undefined;
  if (matcher !== undefined) logMatchers.set(spec.name, matcher);
  const { stdio } = spawnStdio(spec);
  const lines = spec.output === 'inherit' ? undefined : { mode: spec.output, width: runner.prefixWidth };
  const channel = openChannel(runner, spec, logger);
  const result = deps.spawner.spawn({
    name: spec.name,
    command: spec.command,
    env: channel === undefined ? spec.env : { ...spec.env, ...channel.env },
    cwd: spec.cwd,
    user: spec.user,
    stdio,
    onOutput: matcher?.feed,
    lines,
    readinessFd: channel?.fd,
  });
  if (!result.ok) {
    channel?.close();
    logger.error({ event: 'spawn-failed', exitCode: result.status.code }, result.status.reason);
    dispatch({ type: 'exited', name: spec.name, status: result.status });
    return;
  }
  const { child } = result;
  children.set(spec.name, child);
  if (channel !== undefined) {
    channel.attach(child.pid, child.readinessPipe);
    runner.channels.set(spec.name, channel);
  }
  const ids = spec.user === undefined ? {} : { uid: spec.user.uid, gid: spec.user.gid };
  logger.info({ event: 'spawned', pid: child.pid, ...ids }, 'spawned');
  void child.exited.then((status) => {
    // The run's socket or pipe goes with it; the next run gets its own.
    channel?.close();
    if (runner.channels.get(spec.name) === channel) runner.channels.delete(spec.name);
    dispatch({ type: 'exited', name: spec.name, status });
  });
  dispatch({ type: 'spawned', name: spec.name });
}

/**
 * What a spawn of spec asks of its stdio: how its output goes (through
 * sidecar-init only when something reads it on the way: a log probe, or
 * prefix/json lines), and the descriptor of an fd:N readiness pipe. main.ts
 * asks it of every process before the start, to know whether the spawner
 * must be able to make pipes.
 */
export function spawnStdio(spec: ProcessSpec): Pick<SpawnRequest, 'stdio' | 'readinessFd'> {
  const probe = spec.readiness?.probe;
  const passThrough = probe?.kind === 'log' || spec.output !== 'inherit';
  const stdio = spec.role === 'app' ? (passThrough ? 'inherit-tee' : 'inherit') : passThrough ? 'tee' : 'output';
  return { stdio, readinessFd: probe?.kind === 'fd' ? probe.fd : undefined };
}

/**
 * A notify socket or notification pipe for this run, when its readiness probe
 * is one. One that cannot be opened is logged and the process still starts:
 * its readiness then cannot pass, and its deadline decides, as for a probe
 * that never succeeds.
 */
function openChannel(runner: Runner, spec: ProcessSpec, logger: Logger): ReadinessChannel | undefined {
  const probe = spec.readiness?.probe;
  if (probe === undefined) return undefined;
  try {
    return runner.deps.probes.openChannel(probe, spec, {
      onStatus: (status) => logger.info({ event: 'status', status }, `status: ${status}`),
      onWatchdogMissed: (reason) => {
        logger.warn({ event: 'watchdog-missed' }, reason);
        runner.dispatch({ type: 'liveness-failed', name: spec.name, reason });
      },
      onForeignSender: (pid, uid) =>
        logger.warn(
          { event: 'notify-ignored', senderPid: pid, senderUid: uid },
          `ignored notify messages from pid ${pid}, which is not ${spec.name} or one of its descendants (or had already exited)`,
        ),
    });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    logger.error({ event: 'notify-failed' }, `could not open its readiness channel, so it cannot become ready: ${message}`);
    return undefined;
  }
}

/** `budgetUsedMs`: how much of the grace budget teardown had used when the signal went out. */
export function signalProcess(
  runner: Runner,
  effect: { readonly name: string; readonly signal: NodeJS.Signals; readonly purpose: SignalPurpose },
  budgetUsed: { readonly budgetUsedMs?: number },
): void {
  const { name, signal, purpose } = effect;
  const child = runner.children.get(name);
  if (child === undefined) return;
  const target = runner.graph.spec(name).signalTarget;
  const delivered = child.signal(signal, target);
  if (delivered && ENDS_THE_PROCESS[purpose] && needsContinue(signal)) child.signal('SIGCONT', target);
  logSignalled(runner, effect, child.pid, delivered, budgetUsed);
}

/**
 * The line for a signal sent (here, or by the addon's handler: signal-forwarder.ts); `delivered` false: the target was gone.
 * A forwarded signal's line says how many times it was passed on (`count`): the handler's are told in counts, a window later.
 */
export function logSignalled(
  runner: Runner,
  effect: { readonly name: string; readonly signal: NodeJS.Signals; readonly purpose: SignalPurpose },
  pid: number,
  delivered: boolean,
  budgetUsed: { readonly budgetUsedMs?: number },
  count = 1,
): void {
  const { name, signal, purpose } = effect;
  const event = purpose === 'forward' ? 'forwarded' : purpose === 'control' ? 'signalled' : 'stopping';
  const fields = { event, pid, signal, ...(purpose === 'forward' ? { count } : {}), ...budgetUsed };
  const logger = runner.log.of(name);
  // A child that is already gone is the normal end of a race with its own exit, not an error.
  if (!delivered) logger.debug(fields, 'already gone');
  else logger[SIGNAL_LOG[purpose].level](fields, SIGNAL_LOG[purpose].message);
}

/**
 * Before a restart: ends what the last run left in its process group, then
 * reports 'group-swept' (at once when nothing was left). A finish aborts it;
 * the final sweep takes over.
 */
export function sweepGroup(runner: Runner, name: string, graceMs: number): void {
  const child = runner.children.get(name);
  if (child === undefined) {
    runner.dispatch({ type: 'group-swept', name });
    return;
  }
  const key = `sweep-group:${name}`;
  const abort = runner.aborts.open(key);
  void child.sweepGroup(graceMs, abort).then((outcome) => {
    // Aborted by the finish: nothing will run again, and the final sweep ends what is left.
    if (abort.aborted) return;
    runner.aborts.close(key, abort);
    const logger = runner.log.of(name);
    const fields = { event: 'swept-group', pid: child.pid, outcome };
    if (outcome === 'left') logger.warn(fields, 'left processes of the last run still there; restarting anyway');
    else if (outcome !== 'empty') logger.info(fields, 'stopped what the last run left behind');
    runner.dispatch({ type: 'group-swept', name });
  });
}
