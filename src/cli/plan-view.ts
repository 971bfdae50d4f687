import { formatAddress } from '../support/format-address.ts';
import { describeCommand } from '../config/command.ts';
import { formatDuration } from '../config/duration.ts';
import { hookJson, type PlanOptionsView, planOptionsView } from '../config/global-options.ts';
import type { HookSpec, Plan, ProbeSpec, ProcessSpec } from '../plan/plan.ts';
import { describeMatch } from '../plan/process-match.ts';
import { describeSigtermExit, presetOfExternal, stopMaySendSigterm } from '../plan/stop-exit-warning.ts';
import { assertNever } from '../plan/assert-never.ts';
import { createProcessGraph } from '../plan/process-graph.ts';
import { startWaves, stopWaves } from '../plan/waves.ts';

// `sidecar-init plan --json`: what a run would do, as data, without starting
// anything. A pure function of the Plan; times in milliseconds, probes and
// hooks also as the one-line form a person would write. The options are
// their rows' (global-options.ts), so none can be left out.

/** The options (global-options.ts, one field per row), then the processes and the waves. */
export interface PlanView extends PlanOptionsView {
  /** In start order (wave by wave, plan order within a wave). */
  readonly processes: readonly ProcessView[];
  readonly start: readonly (readonly string[])[];
  readonly stop: readonly (readonly string[])[];
}

export interface ProcessView {
  readonly name: string;
  readonly role: string;
  readonly command: readonly string[];
  /** null: sidecar-init's own user; uid null: only a group was given. */
  readonly user: { readonly uid: number | null; readonly gid: number } | null;
  readonly after: readonly string[];
  readonly readiness: {
    readonly probe: string;
    readonly periodMs: number;
    readonly timeoutMs: number;
    readonly deadlineMs: number;
    readonly periodAfterStartMs: number;
  } | null;
  readonly liveness: {
    readonly probe: string;
    readonly periodMs: number;
    readonly timeoutMs: number;
    readonly failureThreshold: number;
    readonly initialDelayMs: number;
  } | null;
  readonly restart: {
    readonly policy: string;
    readonly initialBackoffMs: number;
    readonly maxBackoffMs: number;
    readonly resetAfterMs: number;
    readonly maxRestarts: number | null;
  };
  readonly fatal: boolean;
  /** null: SIGTERM, or for the app on termination the signal sidecar-init received. */
  readonly stopSignal: string | null;
  readonly graceMs: number | null;
  readonly signalTarget: string;
  readonly postStart: HookView | null;
  readonly preStop: HookView | null;
  readonly successCodes: readonly number[];
  readonly output: string;
  /** An external's match and stop (null for the processes sidecar-init starts). */
  readonly external: {
    readonly preset: string | null;
    readonly match: string;
    readonly stop: string;
    /** Why the signal in its stop would fail the pod (cloud-sql-proxy exits 143 on SIGTERM), and the fix; else null. */
    readonly stopWarning: string | null;
    readonly optional: boolean;
    readonly stopOnFailure: boolean;
    /** Looked for even where /proc shows the host's processes. */
    readonly allowHost: boolean;
    /** announced:FILE: another container's sidecar-init, known by its --announce file (then match is that, too); else null. */
    readonly announced: string | null;
  } | null;
}

export type HookView = ReturnType<typeof hookJson>;

export function planView(plan: Plan): PlanView {
  const graph = createProcessGraph(plan);
  const start = startWaves(graph);
  const byName = new Map(plan.processes.map((spec) => [spec.name, spec]));
  return {
    processes: start.flat().map((name) => processView(byName.get(name)!)),
    start,
    stop: stopWaves(graph),
    ...planOptionsView(plan),
  };
}

function processView(spec: ProcessSpec): ProcessView {
  const { readiness, liveness, restart } = spec;
  return {
    name: spec.name,
    role: spec.role,
    command: spec.command,
    user: spec.user === undefined ? null : { uid: spec.user.uid ?? null, gid: spec.user.gid },
    after: spec.after,
    readiness:
      readiness === undefined
        ? null
        : {
            probe: describeProbe(readiness.probe),
            periodMs: readiness.periodMs,
            timeoutMs: readiness.timeoutMs,
            deadlineMs: readiness.deadlineMs,
            periodAfterStartMs: readiness.periodAfterStartMs,
          },
    liveness:
      liveness === undefined
        ? null
        : {
            probe: describeProbe(liveness.probe),
            periodMs: liveness.periodMs,
            timeoutMs: liveness.timeoutMs,
            failureThreshold: liveness.failureThreshold,
            initialDelayMs: liveness.initialDelayMs,
          },
    restart: {
      policy: restart.policy,
      initialBackoffMs: restart.initialBackoffMs,
      maxBackoffMs: restart.maxBackoffMs,
      resetAfterMs: restart.resetAfterMs,
      maxRestarts: restart.maxRestarts ?? null,
    },
    fatal: spec.fatal,
    stopSignal: spec.stopSignal ?? null,
    graceMs: spec.graceMs ?? null,
    signalTarget: spec.signalTarget,
    postStart: hookView(spec.postStart),
    preStop: hookView(spec.preStop),
    successCodes: spec.successCodes,
    output: spec.output,
    external: externalView(spec.external),
  };
}

/** A probe as it would be written after --ready. */
export function describeProbe(probe: ProbeSpec): string {
  switch (probe.kind) {
    case 'tcp':
      return `tcp://${formatAddress(probe.host, probe.port)}`;
    case 'http':
      return probe.expectStatus === undefined ? probe.url : `${probe.url} (expecting ${probe.expectStatus.join(', ')})`;
    case 'exec':
      return `exec:${describeCommand(probe.command)}`;
    case 'log':
      return `log:${probe.pattern}`;
    case 'file':
      return `file:${probe.path}`;
    case 'notify':
      return probe.watchdogMs === undefined ? 'notify' : `notify, watchdog ${formatDuration(probe.watchdogMs)}`;
    case 'fd':
      return `fd:${probe.fd}`;
    case 'grpc':
      return `grpc://${formatAddress(probe.host, probe.port)}${probe.service === '' ? '' : `/${probe.service}`}`;
    case 'process':
      return `a process with ${describeMatch(probe.match)}`;
    case 'announced':
      return `announced:${probe.file} says ready`;
    default:
      return assertNever(probe);
  }
}

function hookView(hook: HookSpec | undefined): HookView | null {
  return hook === undefined ? null : hookJson(hook);
}

function externalView(external: ProcessSpec['external']): ProcessView['external'] {
  if (external === undefined) return null;
  const { stop } = external;
  const stopText =
    stop.kind === 'none'
      ? 'none'
      : external.announced !== undefined
        ? `wait for ${external.announced} to say exited`
        : [
            stop.http === undefined ? undefined : `${stop.http.method} ${stop.http.url}`,
            // Without a signal of its own, SIGTERM follows a stop endpoint that does not accept.
            stop.signal ?? (stop.http === undefined ? 'SIGTERM' : 'SIGTERM if it does not accept'),
          ]
            .filter((part) => part !== undefined)
            .join(', then ');
  const preset = presetOfExternal(external);
  const stopWarning = preset !== undefined && stopMaySendSigterm(external) ? describeSigtermExit(preset) : undefined;
  return {
    preset: external.preset ?? null,
    match: external.announced === undefined ? describeMatch(external.match) : `announced:${external.announced}`,
    stop: stopText,
    stopWarning: stopWarning ?? null,
    optional: external.optional,
    stopOnFailure: external.stopOnFailure,
    allowHost: external.allowHost,
    announced: external.announced ?? null,
  };
}
