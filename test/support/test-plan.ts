import { buildPlan } from '../../src/config/load-plan.ts';
import {
  DEFAULTS,
  type ExternalSpec,
  type HookSpec,
  type LivenessSpec,
  type Plan,
  type ProcessSpec,
  type RestartSpec,
  type Role,
} from '../../src/plan/plan.ts';

// Plans for the lifecycle's unit tests, with the same defaults normalization gives
// (load-plan.test.ts checks testProcess against a loaded plan).

export const TEST_GRACE_MS = 25_000;

export type TestProcess = Omit<ProcessSpec, 'after'> & { readonly after?: readonly string[] };

export function testProcess(name: string, role: Role, overrides: Partial<TestProcess> & { probe?: boolean } = {}): TestProcess {
  const { probe, ...rest } = overrides;
  return {
    name,
    role,
    command: ['true'],
    env: {},
    cwd: undefined,
    user: undefined,
    readiness:
      probe === true
        ? {
            probe: { kind: 'tcp', host: '127.0.0.1', port: 1 },
            periodMs: 100,
            timeoutMs: 1_000,
            deadlineMs: 1_000,
            periodAfterStartMs: 1_000,
          }
        : undefined,
    liveness: undefined,
    restart: {
      policy: role === 'sidecar' ? 'always' : 'never',
      initialBackoffMs: DEFAULTS.backoff.initialBackoffMs,
      maxBackoffMs: DEFAULTS.backoff.maxBackoffMs,
      resetAfterMs: DEFAULTS.backoff.resetAfterMs,
      maxRestarts: undefined,
    },
    fatal: false,
    postStart: undefined,
    preStop: undefined,
    stopSignal: undefined,
    graceMs: undefined,
    signalTarget: 'group',
    successCodes: [],
    output: 'inherit',
    external: undefined,
    ...rest,
  };
}

/** A liveness probe that fails a process at its first miss; the tests send its failures as events. */
export const TEST_LIVENESS: LivenessSpec = {
  probe: { kind: 'tcp', host: '127.0.0.1', port: 1 },
  periodMs: 100,
  timeoutMs: 1_000,
  failureThreshold: 1,
  initialDelayMs: 0,
};

/** An exec hook (postStart, preStop, a drain's); the tests send its outcome as a hook-done event. */
export const TEST_HOOK: HookSpec = { kind: 'exec', command: ['hook'], timeoutMs: 1_000 };

/** Restarted on failure, with the backoff a plan gets by default. */
export const TEST_ON_FAILURE: RestartSpec = { policy: 'on-failure', ...DEFAULTS.backoff, maxRestarts: undefined };

/** A plan from test processes, with `after` lists resolved by the same buildPlan normalization uses. */
export function testPlan(specs: readonly TestProcess[], overrides: Partial<Omit<Plan, 'processes'>> = {}): Plan {
  const plan = buildPlan({
    processes: specs.map((spec) => ({ ...spec, after: spec.after })),
    globals: { grace: TEST_GRACE_MS, logLevel: 'info', terminationLog: { kind: 'none' } },
  });
  return { ...plan, ...overrides };
}

/** The Istio proxy of another container, as the istio preset describes it. */
export const TEST_ISTIO_EXTERNAL: ExternalSpec = {
  preset: 'istio',
  match: { comm: 'pilot-agent', maxMatches: 1 },
  stop: { kind: 'stop', http: { url: 'http://127.0.0.1:15020/quitquitquit', method: 'POST' }, signal: undefined },
  stopOnFailure: true,
  optional: false,
  allowHost: false,
  notFoundHint: undefined,
};

/** An external with a readiness probe of its own (an external is never restarted). */
export function testExternal(name: string, overrides: Partial<ExternalSpec> = {}): TestProcess {
  return testProcess(name, 'external', {
    probe: true,
    external: { ...TEST_ISTIO_EXTERNAL, ...overrides },
    restart: { ...testProcess(name, 'init').restart },
  });
}
