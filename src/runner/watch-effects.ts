import { countNoun } from '../support/count-noun.ts';
import type { Logger } from 'pino';
import type { ProcessSpec } from '../plan/plan.ts';
import type { ProbeDeps } from '../probes/create-probe.ts';
import type { Probe } from '../probes/probe.ts';
import type { WatchKind } from '../lifecycle/events.ts';
import { reportAnnouncedFound, reportExternalFound } from './external-effects.ts';
import type { Runner } from './runner.ts';

// The start-watch and stop-watch effects: a process's readiness and liveness
// probe loops, each under its own abort key. Lines at info and above name the
// probe by its description (an exec probe: its program only); its whole
// command line, which may carry tokens, is logged at debug only.

const watchKey = (watch: WatchKind, name: string): string => `${watch}:${name}`;

export function startWatch(runner: Runner, spec: ProcessSpec, watch: WatchKind): void {
  switch (watch) {
    case 'readiness':
      return startReadiness(runner, spec);
    case 'liveness':
      return startLiveness(runner, spec);
  }
}

export function stopWatch(runner: Runner, name: string, watch: WatchKind): void {
  runner.aborts.abort(watchKey(watch, name));
}

function startReadiness(runner: Runner, spec: ProcessSpec): void {
  if (spec.readiness === undefined) return;
  const { deps, dispatch } = runner;
  const logger = runner.log.of(spec.name);
  const signal = runner.aborts.open(watchKey('readiness', spec.name));
  const { probe: probeSpec } = spec.readiness;
  const probe = recordingFailures(
    probeSpec.kind === 'process'
      ? deps.externals.presenceProbe(probeSpec.match, (processes) => reportExternalFound(runner, spec.name, processes))
      : probeSpec.kind === 'announced'
        ? deps.externals.announcedProbe(probeSpec.file, (announcement) =>
            reportAnnouncedFound(runner, spec.name, probeSpec.file, announcement),
          )
        : deps.probes.create(probeSpec, {
            ...probeOwner(spec),
            logMatcher: runner.logMatchers.get(spec.name),
            channel: runner.channels.get(spec.name),
          }),
    (reason) => runner.lastProbeFailures.set(spec.name, reason),
  );
  logProbeStarted(logger, 'readiness', probe);
  deps.probes.watchReadiness(
    probe,
    spec.readiness,
    (ready, detail) => {
      const fields = { event: ready ? 'probe-passed' : 'probe-failed', attempts: detail.attempts };
      if (ready) logger.debug(fields, probe.description);
      else logger.warn(fields, `not ready: ${detail.lastFailure ?? probe.description}`);
      dispatch({ type: 'readiness', name: spec.name, ready });
    },
    signal,
  );
}

function startLiveness(runner: Runner, spec: ProcessSpec): void {
  if (spec.liveness === undefined) return;
  const { deps, aborts, dispatch } = runner;
  const logger = runner.log.of(spec.name);
  const key = watchKey('liveness', spec.name);
  const signal = aborts.open(key);
  const probe = deps.probes.create(spec.liveness.probe, probeOwner(spec));
  logProbeStarted(logger, 'liveness', probe);
  deps.probes.watchLiveness(
    probe,
    spec.liveness,
    (detail) => {
      aborts.close(key, signal);
      const reason = `${probe.description} failed ${countNoun(detail.failures, 'time')} in a row; last: ${detail.lastFailure}`;
      logger.warn({ event: 'liveness-failed', failures: detail.failures }, reason);
      dispatch({ type: 'liveness-failed', name: spec.name, reason });
    },
    signal,
  );
}

/** The probe, its failures kept as they come (an aborted attempt says nothing about the process). */
function recordingFailures(probe: Probe, record: (reason: string) => void): Probe {
  return {
    ...probe,
    check: async (timeoutMs, signal) => {
      const outcome = await probe.check(timeoutMs, signal);
      if (!outcome.ok && !signal.aborted) record(outcome.reason);
      return outcome;
    },
  };
}

function logProbeStarted(logger: Logger, watch: WatchKind, probe: Probe): void {
  logger.debug({ event: 'probe-started', watch, probe: probe.commandLine ?? probe.description }, `${watch} probe started`);
}

/** What a probe of spec's own needs of it: exec probes run with its env, cwd and user, a relative file path is read from its cwd. */
function probeOwner(spec: ProcessSpec): ProbeDeps {
  return { env: spec.env, cwd: spec.cwd, user: spec.user };
}
