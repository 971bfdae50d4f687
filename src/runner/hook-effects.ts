import type { Logger } from 'pino';
import type { DrainSpec, HookSpec, ProcessSpec } from '../plan/plan.ts';
import type { HookContext } from '../hooks/hook.ts';
import type { HookName } from '../lifecycle/events.ts';
import type { Runner } from './runner.ts';
import { redactUrlsIn } from '../support/redact-url.ts';

// The run-hook, cancel-hook, run-drain and cancel-drain effects. A hook's
// outcome is reported and fed back as an event; what it means is decide()'s.
// Lines at info and above name a hook's program, never its arguments (they may
// carry tokens): the whole command line is logged at debug only. What the hook
// prints is its own output and is logged as it is.

const DRAIN_KEY = 'drain';
const hookKey = (hook: HookName, name: string): string => `${hook}:${name}`;

export function startHook(runner: Runner, spec: ProcessSpec, hook: HookName): void {
  const hookSpec = spec[hook];
  if (hookSpec === undefined) return;
  const { aborts, dispatch } = runner;
  const logger = runner.log.of(spec.name);
  const key = hookKey(hook, spec.name);
  const signal = aborts.open(key);
  logHookStarted(logger, hook, hookSpec);
  void runner.deps.hooks.run(hookSpec, hookContext(runner, spec, hook), signal).then((outcome) => {
    aborts.close(key, signal);
    const fields = { event: 'hook-done', hook, elapsedMs: outcome.elapsedMs, ok: outcome.ok };
    // A failing preStop is reported and changes nothing else; a failing postStart restarts its process.
    if (outcome.ok) logger.info(fields, `${hook} finished`);
    else logger.warn(fields, `${hook} failed: ${outcome.reason}`);
    dispatch({ type: 'hook-done', name: spec.name, hook, ok: outcome.ok });
  });
}

export function cancelHook(runner: Runner, name: string, hook: HookName): void {
  runner.aborts.abort(hookKey(hook, name));
}

export function startDrain(runner: Runner, drain: DrainSpec | undefined): void {
  if (drain === undefined) return;
  const { aborts, dispatch } = runner;
  const logger = runner.log.pod;
  const signal = aborts.open(DRAIN_KEY);
  logger.info(
    { event: 'drain-started', ...(drain.kind === 'delay' ? { delayMs: drain.ms } : programOf(drain.hook)) },
    'draining before any stop signal',
  );
  if (drain.kind === 'hook') logCommandLine(logger, 'drain', drain.hook);
  // A drain hook runs "inside" the app, with its env and cwd.
  void runner.deps.hooks.drain(drain, hookContext(runner, runner.graph.app, 'drain'), signal).then((outcome) => {
    aborts.close(DRAIN_KEY, signal);
    const fields = { event: 'drain-done', elapsedMs: outcome.elapsedMs, ok: outcome.ok };
    if (outcome.ok) logger.info(fields, 'drain finished');
    else logger.warn(fields, `drain failed: ${outcome.reason}`);
    dispatch({ type: 'drain-done' });
  });
}

export function cancelDrain(runner: Runner): void {
  runner.aborts.abort(DRAIN_KEY);
}

/** A hook runs with its process's env, cwd and user; each line of its output is logged under that process. */
function hookContext(runner: Runner, spec: ProcessSpec, label: HookName | 'drain'): HookContext {
  const logger = runner.log.of(spec.name);
  return {
    env: spec.env,
    cwd: spec.cwd,
    user: spec.user,
    // "preStop: LINE": which hook said it, as the line reads in the text log ("proxy preStop: draining").
    onOutputLine: (line, stream) => logger.info({ event: 'hook-output', hook: label, stream }, `${label}: ${line}`),
  };
}

function logHookStarted(logger: Logger, hook: HookName, spec: HookSpec): void {
  logger.info({ event: 'hook-started', hook, ...programOf(spec) }, `${hook} started`);
  logCommandLine(logger, hook, spec);
}

/** An exec hook's program as written, never its arguments. */
function programOf(spec: HookSpec): { program?: string } {
  return spec.kind === 'exec' ? { program: spec.command[0] } : {};
}

function logCommandLine(logger: Logger, hook: HookName | 'drain', spec: HookSpec): void {
  if (spec.kind === 'exec')
    logger.debug({ event: 'hook-command', hook, command: redactUrlsIn(spec.command.join(' ')) }, `${hook} command line`);
}
