import * as z from 'zod';
import { CommandSchema } from './command-schema.ts';
import { DNS_LABEL_PATTERN } from './dns-label.ts';
import { bareNumberMessage } from './duration.ts';
import { HookSchema } from './hook-schema.ts';
import { LOG_LEVELS, RESTART_POLICIES, ROLES } from './literals.ts';
import {
  DEFAULT_BACKOFF_INITIAL_MS,
  DEFAULT_BACKOFF_MAX_MS,
  DEFAULT_BACKOFF_RESET_AFTER_MS,
  DEFAULT_GRACE_MS,
  DEFAULT_LIVENESS_FAILURE_THRESHOLD,
  DEFAULT_LIVENESS_INITIAL_DELAY_MS,
  DEFAULT_LIVENESS_PERIOD_MS,
  DEFAULT_LIVENESS_TIMEOUT_MS,
  DEFAULT_LOG_LEVEL,
  DEFAULT_PROBE_DEADLINE_MS,
  DEFAULT_PROBE_PERIOD_AFTER_START_MS,
  DEFAULT_PROBE_PERIOD_MS,
  DEFAULT_PROBE_TIMEOUT_MS,
} from './plan.ts';
import { ProbeSchema } from './probe-schema.ts';
import { duration, signalName, wholeNumber } from './schema-fields.ts';
import { EXIT_CODE_RANGE, FAILURE_THRESHOLD_RANGE, MAX_RESTARTS_RANGE } from './whole-number.ts';

// The config is validated once per start, so zod's compiled fast path buys
// nothing; its eval probe also touches globalThis.navigator, which makes Node
// load its fetch stack (measured: ~40 ms of a 140 ms start).
z.config({ jitless: true });

// The shape of the YAML file: what the user wrote (RawConfig), checked for
// structure and unknown keys. Values with a grammar of their own (names,
// durations, probes, signals, command strings) are checked by the normalize
// steps, with the same code as the flags; their `pattern`s here help editors
// only. The JSON Schema is generated from these definitions (json-schema.ts).

export const ReadinessSchema = z.strictObject({
  probe: ProbeSchema,
  period: duration('Time between the start of one attempt and the next.', DEFAULT_PROBE_PERIOD_MS).optional(),
  timeout: duration('Bound on one attempt.', DEFAULT_PROBE_TIMEOUT_MS).optional(),
  deadline: duration('Startup fails when no attempt has passed after this long.', DEFAULT_PROBE_DEADLINE_MS).optional(),
  periodAfterStart: duration(
    'Once started, readiness is still tracked at this period; a failure never restarts anything.',
    DEFAULT_PROBE_PERIOD_AFTER_START_MS,
  ).optional(),
});

export const LivenessSchema = z.strictObject({
  probe: ProbeSchema.meta({ description: 'Any probe but log.' }),
  period: duration('Time between the start of one attempt and the next.', DEFAULT_LIVENESS_PERIOD_MS).optional(),
  timeout: duration('Bound on one attempt.', DEFAULT_LIVENESS_TIMEOUT_MS).optional(),
  failureThreshold: wholeNumber('Consecutive failures that make the process be stopped and restarted.', FAILURE_THRESHOLD_RANGE)
    .optional()
    .meta({ default: DEFAULT_LIVENESS_FAILURE_THRESHOLD }),
  initialDelay: duration('Wait after the process has started before the first attempt.', DEFAULT_LIVENESS_INITIAL_DELAY_MS).optional(),
});

export const BackoffSchema = z.strictObject({
  initial: duration(
    'The delay before the second restart (the first is immediate); it doubles from here.',
    DEFAULT_BACKOFF_INITIAL_MS,
  ).optional(),
  max: duration('The longest delay between restarts.', DEFAULT_BACKOFF_MAX_MS).optional(),
  resetAfter: duration('A run at least this long resets the delay and the restart count.', DEFAULT_BACKOFF_RESET_AFTER_MS).optional(),
});

export const EnvValueSchema = z.union([z.string(), z.number(), z.boolean()], {
  error: (issue) => (issue.input === null ? 'has no value; write "" for an empty string' : undefined),
});

export const ProcessSchema = z.strictObject({
  name: z.string().meta({ description: 'A DNS label, unique in the plan.', pattern: DNS_LABEL_PATTERN }),
  role: z.enum(ROLES).meta({
    description: 'init runs to completion; sidecar keeps running and is started once ready; app is the main process.',
  }),
  command: CommandSchema,
  env: z
    .record(z.string(), EnvValueSchema)
    .optional()
    .meta({ description: "Added to the supervisor's environment; numbers and booleans are taken as written." }),
  cwd: z.string().optional().meta({ description: "Working directory; the supervisor's own when left out." }),
  after: z
    .array(z.string())
    .optional()
    .meta({
      description:
        'Names this process waits for (an init step: exited 0; a sidecar: started). Once any process has after, ' +
        'each starts when its own list is satisfied, and the app after everything unless it has a list.',
    }),
  readiness: ReadinessSchema.optional().meta({ description: 'Sidecars only: when the sidecar counts as started.' }),
  liveness: LivenessSchema.optional().meta({
    description: 'Sidecars and the app: stopped and restarted under its policy after failureThreshold failures in a row.',
  }),
  restart: z.enum(RESTART_POLICIES).optional().meta({
    description: 'Default: always for a sidecar, never for an init step and the app.',
  }),
  backoff: BackoffSchema.optional().meta({ description: 'Delays between restarts.' }),
  maxRestarts: wholeNumber('After this many restarts the process counts as failed; no limit when left out.', MAX_RESTARTS_RANGE).optional(),
  fatal: z.boolean().optional().meta({
    description: 'Sidecars only: its exit, or running out of maxRestarts, ends the pod with a failure.',
    default: false,
  }),
  postStart: HookSchema.optional().meta({
    description: 'Sidecars and the app: runs right after spawn; the next process in the startup sequence waits for it.',
  }),
  preStop: HookSchema.optional().meta({
    description: 'Sidecars and the app: runs when termination starts; the stop signal follows when it has finished.',
  }),
  stopSignal: signalName('The signal that stops this process (default SIGTERM), e.g. SIGQUIT for nginx.').optional(),
  grace: duration('How long this process alone is waited for after its stop signal, within the whole budget.').optional(),
  signalGroup: z.boolean().optional().meta({
    description: "Signal the child's whole process group (default), or only the child (false).",
  }),
  successCodes: z
    .array(wholeNumber('An exit code.', EXIT_CODE_RANGE))
    .optional()
    .meta({ description: 'The app only: exit codes that count as 0, e.g. 143 for a JVM stopped by SIGTERM.' }),
});

const NO_REWRITE_TARGET = 'has no value; write none to drop the signal';

export const DrainSchema = z.union([duration('A plain delay.'), HookSchema], {
  error: (issue) => (typeof issue.input === 'number' ? bareNumberMessage(String(issue.input)) : undefined),
});

export const ConfigSchema = z
  .strictObject({
    grace: duration('The whole budget from the stop signal (or the app exit) to the supervisor exit.', DEFAULT_GRACE_MS).optional(),
    logLevel: z.enum(LOG_LEVELS).optional().meta({ default: DEFAULT_LOG_LEVEL }),
    drain: DrainSchema.optional().meta({
      description: 'Runs first on termination, before any stop signal: a delay (5s) or a hook ({exec} or {http}).',
    }),
    rewrite: z
      .record(z.string(), z.string({ error: (issue) => (issue.input === null ? NO_REWRITE_TARGET : undefined) }))
      .optional()
      .meta({
        description: 'Signals rewritten before they reach the app, by name (SIGTERM: SIGQUIT); none drops the signal.',
        examples: [{ SIGTERM: 'SIGQUIT', SIGHUP: 'none' }],
      }),
    singleChild: z.boolean().optional().meta({
      description: 'Signal only each direct child, not its process group, unless a process sets signalGroup.',
      default: false,
    }),
    processes: z
      .array(ProcessSchema)
      .optional()
      .meta({
        description:
          'Init steps and sidecars start in this order, each after the one before it is done or started ' +
          '(unless a process has after); the app starts last.',
      }),
  })
  .meta({ title: 'sidecar-init configuration' });

export type RawConfig = z.infer<typeof ConfigSchema>;
export type RawProcess = z.infer<typeof ProcessSchema>;
export type RawReadiness = z.infer<typeof ReadinessSchema>;
export type RawLiveness = z.infer<typeof LivenessSchema>;
export type RawBackoff = z.infer<typeof BackoffSchema>;
