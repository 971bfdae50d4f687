import module from 'node:module';
import { resolve } from 'node:path';
import type { Logger } from 'pino';
import { EXIT_INTERNAL, EXIT_SOFTWARE, EXIT_USAGE } from './cli/exit-codes.ts';
import { parseArgs } from './cli/parse-args.ts';
import type { CliCommand } from './cli/parse-args.ts';
import { type ConfigCheck, ConfigError, formatConfigError } from './config/config-error.ts';
import type { LoadPlanInput } from './config/load-plan.ts';
import type { ProgramCheck } from './config/programs.ts';
import type { Plan } from './plan/plan.ts';
import type { AnnounceKit, ControlSource, ExternalKit, StatusSource, SuperviseDeps } from './runner/ports.ts';
import type { Supervision } from './runner/supervise.ts';
import type { StatusServerStart } from './status/serve-status.ts';
import type { ControlServer } from './control/control-server.ts';
import type { ServerIdentity } from './control/protocol.ts';
import type { Reaper, ReaperMode } from './process/reaper.ts';
import type { SignalForwarder } from './process/signal-forwarder.ts';
import type { AnnouncementSource } from './announce/announcement-source.ts';
import { writeAllSync } from './output/write-sync.ts';
import { loadedNativeProcessApi, loadNativeProcessApi, NativeAddonError } from './os/native.ts';
import type { Addon } from './os/addon.ts';
// Imported here, not on first use: it reads sidecar-init's parent when it is evaluated, with the bundle.
import { armParentDeathSignal, type ParentDeathWatch } from './os/parent-death.ts';
import { assertNever } from './plan/assert-never.ts';
import { countNoun } from './support/count-noun.ts';
import { roleAndName } from './support/role-and-name.ts';

// Only what every command needs is imported above. The rest is imported where
// it is first used, so `--version`, `--help` and a usage error never evaluate
// the config schemas, and `validate` and `plan` never the logger or the
// spawner: the bundle keeps each import() as a module evaluated on first use,
// and evaluating modules is most of a start (measured with npm run bench).

const STDOUT_FD = 1;
const STDERR_FD = 2;
/** How long the last lines of output that passes through sidecar-init may take to be written at exit. */
const OUTPUT_FLUSH_MS = 1_000;
/** How long the last log lines may wait for a slow log reader before the exit. */
const LOG_FLUSH_DEADLINE_MS = 500;
/** An internal error is reported in one line of at most this many characters. */
const MAX_ERROR_LINE = 300;
/** What ps, top and pgrep show for the supervisor (/proc/PID/comm), whichever file started it. */
const PROCESS_NAME = 'sidecar-init';
/** At most one `reaped` line per interval, however many orphans die. */
const REAPED_LOG_INTERVAL_MS = 1_000;

/** The composition root: argv → command → (for a run: plan → runPlan) → exit code. Nothing else wires modules together. */
export async function main(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<number> {
  try {
    return await dispatch(argv, env);
  } catch (error) {
    // The one top-level handler: whatever escaped is a bug. One line naming it, never
    // Node's default report, which quotes the bundle's minified source around the throw.
    writeAllSync(STDERR_FD, `sidecar-init: internal error (a bug in sidecar-init; please report it): ${describeError(error)}\n`);
    return EXIT_SOFTWARE;
  }
}

async function dispatch(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<number> {
  const command = parseArgs(argv, env);
  switch (command.kind) {
    case 'exit':
      writeAllSync(command.code === 0 ? STDOUT_FD : STDERR_FD, command.output);
      return command.code;
    case 'validate':
      return await validate(command);
    case 'plan':
      return await printPlan(command);
    case 'run':
      return await run(command);
    case 'schema': {
      // From the same zod schema that validates: what the executable checks is what the editor is told.
      const { renderJsonSchema } = await import('./config/json-schema.ts');
      writeAllSync(STDOUT_FD, renderJsonSchema());
      return 0;
    }
    case 'install':
      return (await import('./install/run-install.ts')).runInstall(command.dir) === 'installed' ? 0 : EXIT_USAGE;
    case 'ctl': {
      const { runCtl } = await import('./control/control-client.ts');
      const output = await runCtl(command);
      writeAllSync(STDOUT_FD, output.stdout);
      writeAllSync(STDERR_FD, output.stderr);
      return output.code;
    }
    case 'version': {
      const { reportVersion } = await import('./cli/version-report.ts');
      const output = reportVersion(command.json, env);
      writeAllSync(STDOUT_FD, output.stdout);
      return output.code;
    }
    case 'webhook': {
      // A long-running server too: named for ps and pgrep like a run; it needs nothing else of the addon, so it serves without one.
      nameProcessIfAddon();
      const { serveWebhook } = await import('./webhook/serve-webhook.ts');
      // The check of the flags the webhook writes brings the config loader: imported when the webhook starts.
      const loadCheckArgs = async () => (await import('./cli/check-injected-args.ts')).checkInjectedArgs;
      return await serveWebhook({ ...command, loadCheckArgs });
    }
    default:
      return assertNever(command);
  }
}

/**
 * Ends the process with `code`. main() returns only once sidecar-init's own
 * lines are written or their flush deadline has passed; _exit (when the native
 * addon was loaded) keeps a write stuck on a stalled log pipe from holding the
 * exit, which process.exit would wait for.
 */
export function exitProcess(code: number): never {
  // _exit skips Node's own exit work, which includes writing the compile cache.
  module.flushCompileCache?.();
  // Only an addon already loaded: a usage error or --version never writes one, and a run never writes it twice.
  loadedNativeProcessApi()?.exitNow(code);
  process.exit(code);
}

async function validate(command: CliCommand & { kind: 'validate' }): Promise<number> {
  // Each program as the run will look for it; what is missing here may be in the image the config is for.
  const { findStartProblem } = await import('./process/prepare-spawn.ts');
  const check: ProgramCheck = (argv, where) => findStartProblem({ command: argv, ...where });
  const warn = (found: ConfigError) => {
    for (const problem of found.problems) writeAllSync(STDERR_FD, `sidecar-init: warning: ${problem.text}; ${NOT_FOUND_HERE}\n`);
    const more = found.total - found.problems.length;
    if (more > 0) writeAllSync(STDERR_FD, `sidecar-init: warning: ... and ${more} more programs not found or not executable here\n`);
  };
  const plan = await planOrReport({ ...command, programs: { check, warn: command.programsAreErrors ? undefined : warn } });
  if (plan === undefined) return EXIT_USAGE;
  // Without a file, the flags alone were checked: the command line is what is valid.
  const checked = command.configFile ?? 'the command line';
  writeAllSync(STDOUT_FD, `${checked}: valid (${describePlan(plan)})\n`);
  // Valid, but a stop that can only be a signal fails the pod when the proxy exits non-zero on it.
  const { findSignalOnlyStopsThatFail } = await import('./plan/stop-exit-warning.ts');
  for (const { name, warning } of findSignalOnlyStopsThatFail(plan))
    writeAllSync(STDERR_FD, `${checked}: warning: external ${name} has no stop endpoint, and ${warning}\n`);
  return 0;
}

/** After a program validate did not find: why it is no error, and how to make it one. */
const NOT_FOUND_HERE =
  'a run checks it again when it starts the process, so this is fine if the config is meant for another image (validate --programs there makes it an error)';

/** `sidecar-init plan`: what a run would do, as text or JSON, from the same inputs; nothing starts. */
async function printPlan(command: CliCommand & { kind: 'plan' }): Promise<number> {
  const plan = await planOrReport(command);
  if (plan === undefined) return EXIT_USAGE;
  const { planView } = await import('./cli/plan-view.ts');
  const { planText } = await import('./cli/plan-text.ts');
  writeAllSync(STDOUT_FD, command.json ? `${JSON.stringify(planView(plan), null, 2)}\n` : planText(plan));
  return 0;
}

/**
 * `sidecar-init [run]`: the plan, what must hold before anything starts, the
 * run to its end, and the reason it ended written where Kubernetes shows it.
 */
async function run(command: CliCommand & { kind: 'run' }): Promise<number> {
  // A run checks that it may start each process as its user; validate may run anywhere, as anyone.
  const plan = await planOrReport({ ...command, identity: { uid: process.geteuid?.() ?? 0, gid: process.getegid?.() ?? 0 } });
  if (plan === undefined) return EXIT_USAGE;
  if (await externalsRefused(plan)) return EXIT_USAGE;
  const native = nativeOrReport();
  if (native === undefined) return EXIT_INTERNAL;
  // Node names its main thread MainThread: ps, top and pgrep would show that as PID 1 (docs/observability.md).
  native.setProcessName(PROCESS_NAME);
  const log = await openRunLog(plan);
  const crash = await crashHandlerFor(log);
  exitOnUncaughtErrors(crash, log);
  let exitCode: number;
  try {
    const ended = await runPlan(plan, log.logger, native, identify(command.configFile));
    // Last, once everything is down: Kubernetes shows it as the container's termination message.
    await log.writeTerminationMessage(ended.message);
    exitCode = ended.exitCode;
  } catch (error) {
    exitCode = await crash(error);
  }
  await log.flush();
  return exitCode;
}

/** How a run ended: its exit code, and the text of the `finished` line that explains it. */
interface RunEnd {
  readonly exitCode: number;
  readonly message: string;
}

/**
 * Runs the plan to its end, in the order a pod needs: orphans reaped from the
 * first moment, the start line, the ports the runner uses, the status server
 * and the control socket (before anything starts), the lifecycle, the memory the
 * start no longer needs; then, once the last planned process is down, the
 * shutdown of all of it.
 */
async function runPlan(plan: Plan, logger: Logger, native: Addon, identity: ServerIdentity): Promise<RunEnd> {
  const reaper = await startReaper(native, logger);
  await logStarting(plan, reaper.reaper.mode, logger);
  const kits = await assembleKits(plan, logger, native, reaper);
  const statusSource = sourceOnceStarted();
  const status = await openStatusServer(plan, statusSource, logger);
  if (status.kind === 'failed') return refuseToStart(reaper, status.reason, logger);
  // Listening before anything is spawned, so an app or sidecar that runs `sidecar-init ctl` at once finds it;
  // `ctl` reaches the lifecycle only through its events.
  const controlSource = controlOnceStarted(statusSource);
  const controlSocket = await openControlSocket(plan, controlSource, identity, logger);
  const supervision = await startLifecycle(plan, kits, native, (started) => {
    statusSource.answerFrom(started);
    controlSource.answerFrom(started);
  });
  const cancelTrim = await trimMemoryOnceStarted(native, logger);
  const exitCode = await supervision.done;
  await shutDown({ supervision, reaper, status, controlSocket, announce: kits.announce, cancelTrim }, logger);
  logger.info({ event: 'exit', exitCode }, `exiting with code ${exitCode}`);
  return { exitCode, message: supervision.finishedMessage() ?? `exit code ${exitCode}` };
}

/** The run's log, and what outlives the supervision: the termination message and the flush at exit. */
interface RunLog {
  readonly logger: Logger;
  writeTerminationMessage(message: string): Promise<void>;
  /** Waits for the last lines, at most LOG_FLUSH_DEADLINE_MS: a stalled log reader cannot hold the exit. */
  flush(): Promise<void>;
}

async function openRunLog(plan: Plan): Promise<RunLog> {
  const { resolveLogFormat } = await import('./log/log-format.ts');
  const { createLogger, flushLog } = await import('./log/logger.ts');
  const { writeTerminationMessage } = await import('./log/termination-message.ts');
  const logger = createLogger(plan.logLevel, resolveLogFormat(plan.logFormat));
  return {
    logger,
    writeTerminationMessage: (message) => writeTerminationMessage(plan.terminationLog, message, logger),
    flush: () => flushLog(LOG_FLUSH_DEADLINE_MS),
  };
}

/**
 * A failure of the supervisor itself must not leave its children running
 * (each in its own session, a Job would hang): kill them all, say why, exit
 * non-zero. Loaded before anything starts, so it is there when it is needed.
 */
async function crashHandlerFor(log: RunLog): Promise<(error: unknown) => Promise<number>> {
  const { killDescendantsNow } = await import('./process/kill-descendants.ts');
  return async (error) => {
    const killed = killDescendantsNow();
    log.logger.fatal({ event: 'internal-error', err: error, killed }, 'sidecar-init failed; killed every process it started');
    const reason = error instanceof Error ? error.message : String(error);
    await log.writeTerminationMessage(`sidecar-init failed (exit code ${EXIT_INTERNAL}): ${reason}`);
    return EXIT_INTERNAL;
  };
}

/** An error nothing caught, thrown or rejected anywhere in the run, ends it as a crash does, at once. */
function exitOnUncaughtErrors(crash: (error: unknown) => Promise<number>, log: RunLog): void {
  const crashAndExit = (error: unknown): void => {
    void crash(error).then(async (code) => {
      await log.flush();
      exitProcess(code);
    });
  };
  process.on('uncaughtException', crashAndExit);
  process.on('unhandledRejection', crashAndExit);
}

/** The reaper as the run uses it: started, counting the orphans it reaped for the status. */
interface RunningReaper {
  readonly reaper: Reaper;
  /** Orphans reaped so far (processes sidecar-init adopted, not its own children). */
  reapedOrphans(): number;
  /** Stops reaping and writes the `reaped` line still waiting for its interval. */
  stop(): void;
}

/** From now on every orphan the kernel hands sidecar-init is reaped, and counted in at most one `reaped` line per interval. */
async function startReaper(native: Addon, logger: Logger): Promise<RunningReaper> {
  const { createBatchedCount } = await import('./log/batched-count.ts');
  const { createReaper } = await import('./process/reaper.ts');
  const { libuvChildren, nativeChildren } = await import('./process/spawn.ts');
  let reapedOrphans = 0;
  const reaped = createBatchedCount(REAPED_LOG_INTERVAL_MS, (count) =>
    logger.info({ event: 'reaped', count }, `reaped ${countNoun(count, 'orphan')}`),
  );
  const reaper = createReaper({
    native,
    libuvChildren,
    nativeChildren,
    onReaped: (orphans) => {
      reapedOrphans += orphans.length;
      reaped.add(orphans.length);
    },
    onError: (error) => logger.error({ event: 'reap-failed', err: error }, 'reaping orphans failed; retrying on the next SIGCHLD'),
  });
  reaper.start();
  return {
    reaper,
    reapedOrphans: () => reapedOrphans,
    stop: () => {
      reaper.stop();
      reaped.flush();
    },
  };
}

/** The start line: what will start, how sidecar-init reaps, and which processes it can see. */
async function logStarting(plan: Plan, mode: ReaperMode, logger: Logger): Promise<void> {
  const { describeNamespaceMode, detectNamespaceMode } = await import('./os/namespace-mode.ts');
  // Which processes sidecar-init can see and reap: all of the container's (PID 1), its own (a
  // subreaper), or also other containers' (a shared process namespace, where externals live).
  const namespace = await detectNamespaceMode();
  logger.info(
    { event: 'starting', mode, namespace: namespace.kind, graceMs: plan.graceMs },
    `starting ${describePlan(plan)}; ${describeNamespaceMode(namespace)}`,
  );
}

/** Every port the runner uses, with the addon's signal forwarder, which the lifecycle's start turns on. */
type Kits = SuperviseDeps & { readonly forwarder: SignalForwarder & { start(onForwarded: () => void): void } };

/**
 * The one place where the runner's ports (runner/ports.ts) meet the edges that
 * implement them. What only some plans use is loaded only for them: the
 * externals' kit for a plan with externals, the announce kit with --announce or --until.
 */
async function assembleKits(plan: Plan, logger: Logger, native: Addon, reaper: RunningReaper): Promise<Kits> {
  const { createSpawner, needsPipes } = await import('./process/spawn.ts');
  const { spawnStdio } = await import('./runner/process-effects.ts');
  const { detectForegroundTerminal } = await import('./process/terminal.ts');
  const { createSignalForwarder } = await import('./process/signal-forwarder.ts');
  const { HANDLED_SIGNALS } = await import('./plan/signal-sets.ts');
  const { runDrain } = await import('./hooks/run-drain.ts');
  const { runHook } = await import('./hooks/run-hook.ts');
  const { createProbe } = await import('./probes/create-probe.ts');
  const { createLogMatcher } = await import('./probes/log-matcher.ts');
  const { openReadinessChannel } = await import('./probes/open-channel.ts');
  const { watchLiveness } = await import('./probes/watch-liveness.ts');
  const { watchReadiness } = await import('./probes/watch-readiness.ts');
  const announcements = lazyAnnouncementSource(plan, logger);
  return {
    // On a terminal (`docker run -it`), the app gets its foreground: job control and Ctrl-C as with tini.
    // The pipes' reader (net, the streams) only for a plan whose output passes through sidecar-init or that has an fd:N probe.
    spawner: await createSpawner({
      native,
      terminal: detectForegroundTerminal(),
      pipes: plan.processes.some((spec) => needsPipes(spawnStdio(spec))),
    }),
    probes: {
      create: createProbe,
      createLogMatcher,
      openChannel: openReadinessChannel,
      watchReadiness,
      watchLiveness,
    },
    hooks: { run: runHook, drain: runDrain },
    externals: await externalKitFor(plan, announcements),
    announce: await announceKitFor(plan, logger, announcements),
    logger,
    // Every signal PID 1 handles, SIGCHLD too, on the addon's handler: one for the app goes
    // from the handler, whatever the event loop is doing; the rest reach their listeners
    // (the lifecycle's, the reaper's) once per wake, so a flood never starves the loop.
    forwarder: createSignalForwarder(native, [...HANDLED_SIGNALS, 'SIGCHLD']),
    reapedOrphans: reaper.reapedOrphans,
  };
}

/** The status server's source before the lifecycle exists: each request is told sidecar-init is starting until `answerFrom`. */
function sourceOnceStarted(): StatusSource & { answerFrom(source: StatusSource): void } {
  let started: StatusSource | undefined;
  return {
    snapshot: () => {
      if (started === undefined) throw new Error('sidecar-init is starting');
      return started.snapshot();
    },
    answerFrom: (source) => {
      started = source;
    },
  };
}

/**
 * The control socket's source before the lifecycle exists: the status from
 * statusSource, a command refused as too early. The lifecycle is given in
 * the same tick it is made, before boot and before any connection can be
 * handled (they are handled on later turns of the loop).
 */
function controlOnceStarted(statusSource: StatusSource): ControlSource & { answerFrom(source: ControlSource): void } {
  let started: ControlSource | undefined;
  return {
    snapshot: () => statusSource.snapshot(),
    control: (command, uid) =>
      started === undefined
        ? Promise.resolve({ ok: false, message: 'sidecar-init is starting; ask again' })
        : started.control(command, uid),
    answerFrom: (source) => {
      started = source;
    },
  };
}

/**
 * Before anything starts, loaded only when an address is configured: the
 * container's probes ask this server, so one that cannot listen fails the
 * start (exit 2, nothing started) instead of leaving the pod unready for its life.
 */
async function openStatusServer(plan: Plan, source: StatusSource, logger: Logger): Promise<StatusServerStart> {
  const { serveStatus } = await import('./status/serve-status.ts');
  return await serveStatus(plan.statusAddr, source, logger);
}

/** Nothing was started: the reaper stops, and the reason ends the run with exit code 2. */
function refuseToStart(reaper: RunningReaper, reason: string, logger: Logger): RunEnd {
  reaper.stop();
  logger.info({ event: 'exit', exitCode: EXIT_USAGE }, `exiting with code ${EXIT_USAGE}`);
  return { exitCode: EXIT_USAGE, message: reason };
}

/** The lifecycle, booted; `onStarted` hears of it before the boot, so the status answers from its first event. */
async function startLifecycle(plan: Plan, kits: Kits, native: Addon, onStarted: (supervision: Supervision) => void): Promise<Supervision> {
  const { startSupervision } = await import('./runner/supervise.ts');
  const { subscribeSignals } = await import('./process/signals.ts');
  const supervision = startSupervision(plan, kits);
  // Listeners stay installed until the process exits: as PID 1 an unhandled
  // signal would vanish, and elsewhere SIGTERM's default action would kill the
  // supervisor mid-teardown and lose the app's exit code.
  subscribeSignals(supervision.receiveSignal);
  // On top of the listeners' handlers; what it passes on is told to the lifecycle a window later.
  kits.forwarder.start(supervision.handleForwarded);
  // Once the signal has its listeners: it may come at once. Before the boot: a parent already gone ends the run before it starts.
  if (plan.parentDeathSignal !== undefined)
    logParentDeathWatch(armParentDeathSignal(native, plan.parentDeathSignal), plan.parentDeathSignal, kits.logger);
  onStarted(supervision);
  supervision.dispatch({ type: 'boot' });
  return supervision;
}

/** What --parent-death-signal did: a debug line, or a warning when the parent was already gone and the signal sent now. */
function logParentDeathWatch(watch: ParentDeathWatch, signal: NodeJS.Signals, logger: Logger): void {
  switch (watch.kind) {
    case 'pid1':
      logger.debug({ event: 'parent-death-signal', signal }, `PID 1 has no parent in its PID namespace: no ${signal} when a parent exits`);
      return;
    case 'armed':
      logger.debug({ event: 'parent-death-signal', signal, parent: watch.parent }, `${signal} when ${theParent(watch.parent)} exits`);
      return;
    case 'parent-gone':
      logger.warn(
        { event: 'parent-gone', signal, parent: watch.parent },
        `${theParent(watch.parent)} exited before sidecar-init could watch it; handling ${signal} as if it had come`,
      );
      return;
    default:
      assertNever(watch);
  }
}

/** getppid() is 0 for a parent outside sidecar-init's PID namespace, as for `docker exec` or `kubectl exec`. */
function theParent(pid: number): string {
  return pid === 0 ? 'the parent (outside this PID namespace)' : `the parent (pid ${pid})`;
}

/** `sidecar-init ctl`'s socket, reading the lifecycle as its ControlSource, as the status server reads it as its StatusSource. */
async function openControlSocket(
  plan: Plan,
  source: ControlSource,
  identity: ServerIdentity,
  logger: Logger,
): Promise<ControlServer | undefined> {
  const { serveControlSocket } = await import('./control/serve-control-socket.ts');
  return await serveControlSocket(plan.control, source, identity, logger);
}

/** Which sidecar-init this is, as `ctl` tells it apart from another of the same uid: its pid, when it started, its config file. */
function identify(configFile: string | undefined): ServerIdentity {
  return {
    pid: process.pid,
    startedAt: new Date(performance.timeOrigin).toISOString(),
    config: configFile === undefined ? null : resolve(configFile),
  };
}

/** What the start freed through malloc goes back to the kernel once the start is over (trim-memory.ts says when); the function returned cancels it. */
async function trimMemoryOnceStarted(native: Addon, logger: Logger): Promise<() => void> {
  const { scheduleMemoryTrim } = await import('./os/trim-memory.ts');
  return scheduleMemoryTrim(native, (trim) => logger.debug({ event: 'memory-trimmed', ...trim }, 'returned free memory to the kernel'));
}

/** What is still open once the last planned process is down. */
interface Running {
  readonly supervision: Supervision;
  readonly reaper: RunningReaper;
  readonly status: StatusServerStart;
  readonly controlSocket: ControlServer | undefined;
  readonly announce: AnnounceKit | undefined;
  /** The memory trim still to come, if the run ends within MEMORY_TRIM_DELAY_MS of its start. */
  readonly cancelTrim: () => void;
}

/**
 * Once the last planned process is down: the memory trim no longer awaited,
 * leftovers swept within what is left of the grace budget, the reaper
 * stopped, the last output written, the servers closed, and the final state
 * announced.
 */
async function shutDown({ supervision, reaper, status, controlSocket, announce, cancelTrim }: Running, logger: Logger): Promise<void> {
  // malloc_trim runs on the event loop: not during the sweep, the flushes or the exit, which gain nothing from it.
  cancelTrim();
  const { sweepDescendants } = await import('./process/sweep.ts');
  const { flushOutput } = await import('./output/pipe-output.ts');
  // A second SIGTERM/SIGINT (during teardown or now) skips what is left of the budget here too.
  const swept = await sweepDescendants({ reaper: reaper.reaper, graceMs: supervision.remainingGraceMs(), hurry: supervision.hurry });
  if (swept.terminated + swept.killed > 0) logger.warn({ event: 'swept', ...swept }, 'stopped leftover processes');
  reaper.stop();
  // The last lines of prefixed or json output are still on their way through; a reader that never reads cannot hold the exit.
  await flushOutput(OUTPUT_FLUSH_MS);
  if (status.kind === 'listening') await status.server.close();
  await controlSocket?.close();
  // Other containers wait for the final state: written before the exit, never after.
  await announce?.announcer?.flush();
}

/**
 * Externals where /proc shows the host's processes, without allowHost: one
 * line saying why and how to allow it (nothing has started yet). A plan
 * without externals never loads the check.
 */
async function externalsRefused(plan: Plan): Promise<boolean> {
  if (!hasExternals(plan)) return false;
  const { refuseHostExternals } = await import('./externals/host-namespace.ts');
  const refusal = refuseHostExternals(plan);
  if (refusal !== undefined) writeAllSync(STDERR_FD, `sidecar-init: ${refusal}\n`);
  return refusal !== undefined;
}

/**
 * The /proc finder, the presence probe and the stop executor, loaded only for a
 * plan with externals: their modules bring crypto and fs/promises (about 30 of
 * Node's built-in modules, compiled at every start under --jitless), which a
 * plan without externals never uses.
 */
async function externalKitFor(plan: Plan, announcements: () => Promise<AnnouncementSource>): Promise<ExternalKit> {
  if (!hasExternals(plan)) return NO_EXTERNALS;
  const { createExternalKit } = await import('./externals/external-kit.ts');
  return createExternalKit(await announcements());
}

/**
 * Other containers' announce files as --until and announced:FILE read them:
 * only the --announcer-uid's (by default sidecar-init's own uid). Created on
 * first use and then shared, so a file read by both warns at most once per interval.
 */
function lazyAnnouncementSource(plan: Plan, logger: Logger): () => Promise<AnnouncementSource> {
  let source: Promise<AnnouncementSource> | undefined;
  return () => {
    source ??= import('./announce/announce.ts').then(({ createAnnouncementSource }) =>
      createAnnouncementSource({ uid: plan.announcerUid ?? process.geteuid?.() ?? 0 }, logger),
    );
    return source;
  };
}

/** Whether the plan has an external entry: what decides if the externals' code is loaded at all. */
function hasExternals(plan: Plan): boolean {
  return plan.processes.some((spec) => spec.external !== undefined);
}

/** The lifecycle asks for externals only when the plan has one. */
const NO_EXTERNALS: ExternalKit = { search: noExternal, presenceProbe: noExternal, announcedProbe: noExternal, stop: noExternal };

function noExternal(): never {
  throw new Error('an external was asked for, but the plan has no external entry');
}

/** --announce and --until's kit, loaded only with one of them: most runs coordinate with no other container. */
async function announceKitFor(
  plan: Plan,
  logger: Logger,
  announcements: () => Promise<AnnouncementSource>,
): Promise<AnnounceKit | undefined> {
  if (plan.announce === undefined && plan.until === undefined) return undefined;
  const { createAnnouncer } = await import('./announce/announce.ts');
  const file = plan.announce;
  const announcer =
    file === undefined
      ? undefined
      : createAnnouncer(file, (error, { state }) =>
          logger.warn({ event: 'announce-failed', err: error, state }, `could not write ${file}; the next change tries again`),
        );
  return { announcer, watch: (await announcements()).watch };
}

/** The reaper addon, or one line saying why it cannot load (nothing has started yet). */
/** The process named sidecar-init where the addon loads; where it does not, the name stays Node's. */
function nameProcessIfAddon(): void {
  try {
    loadNativeProcessApi().setProcessName(PROCESS_NAME);
  } catch (error) {
    if (!(error instanceof NativeAddonError)) throw error;
  }
}

function nativeOrReport(): Addon | undefined {
  try {
    return loadNativeProcessApi();
  } catch (error) {
    if (!(error instanceof NativeAddonError)) throw error;
    writeAllSync(STDERR_FD, `sidecar-init: ${error.message}\n`);
    return undefined;
  }
}

async function planOrReport(input: LoadPlanInput & { readonly kind: ConfigCheck }): Promise<Plan | undefined> {
  const { loadPlan } = await import('./config/load-plan.ts');
  try {
    return loadPlan(input);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    writeAllSync(STDERR_FD, formatConfigError(error, input.kind));
    return undefined;
  }
}

/** "1 init step, 2 sidecars, app export-job": what a run starts, for the start line and validate's. */
function describePlan(plan: Plan): string {
  const count = (role: string) => plan.processes.filter((spec) => spec.role === role).length;
  const externals = count('external') === 0 ? '' : `${countNoun(count('external'), 'external')}, `;
  const app = roleAndName('app', plan.processes.at(-1)?.name ?? '?');
  return `${countNoun(count('init'), 'init step')}, ${countNoun(count('sidecar'), 'sidecar')}, ${externals}${app}`;
}

/** `RangeError: Maximum call stack size exceeded` and where it was thrown, in one short line of plain text. */
function describeError(error: unknown): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  const where = error instanceof Error ? /\n\s+at (\S+)/.exec(error.stack ?? '')?.[1] : undefined;
  const line = `${text}${where === undefined ? '' : ` (in ${where})`}`.replace(/\p{Cc}+/gu, ' ');
  return line.length > MAX_ERROR_LINE ? `${line.slice(0, MAX_ERROR_LINE)}...` : line;
}
