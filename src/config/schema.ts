import * as z from 'zod';
import { bareNumberMessage, DURATION_PATTERN, formatDuration } from './duration.ts';
import { DNS_LABEL_PATTERN } from './dns-label.ts';
import { LOG_LEVELS, ROLES } from './literals.ts';
import {
  DEFAULT_GRACE_MS,
  DEFAULT_LOG_LEVEL,
  DEFAULT_PROBE_DEADLINE_MS,
  DEFAULT_PROBE_PERIOD_MS,
  DEFAULT_PROBE_TIMEOUT_MS,
} from './plan.ts';

// The config is validated once per start, so zod's compiled fast path buys
// nothing; its eval probe also touches globalThis.navigator, which makes Node
// load its fetch stack (measured: ~40 ms of a 140 ms start).
z.config({ jitless: true });

// The shape of the YAML file: what the user wrote (RawConfig), checked for
// structure and unknown keys. Values with a grammar of their own (names,
// durations, probes, command strings) are checked by the normalize steps, with
// the same code as the flags; their `pattern`s here help editors only. The JSON
// Schema is generated from these definitions (json-schema.ts).

function duration(description: string, defaultMs: number) {
  // `grace: 5` reaches zod as a number: say what a duration needs.
  const error = (issue: { input?: unknown }) =>
    typeof issue.input === 'number' ? bareNumberMessage(String(issue.input)) : undefined;
  return z.string({ error }).meta({
    description,
    pattern: DURATION_PATTERN,
    default: formatDuration(defaultMs),
    examples: ['500ms', '5s', '1m30s'],
  });
}

export const ReadinessSchema = z.strictObject({
  probe: z.string().meta({
    description: 'tcp://HOST:PORT, http://HOST:PORT/PATH (2xx/3xx is success) or exec:CMD (exit 0 is success)',
    examples: ['tcp://127.0.0.1:15000', 'http://127.0.0.1:15021/healthz/ready', 'exec:pg_isready -h 127.0.0.1'],
  }),
  period: duration('Time between the start of one attempt and the next.', DEFAULT_PROBE_PERIOD_MS).optional(),
  timeout: duration('Bound on one attempt.', DEFAULT_PROBE_TIMEOUT_MS).optional(),
  deadline: duration('Startup fails when no attempt has passed after this long.', DEFAULT_PROBE_DEADLINE_MS).optional(),
});

export const CommandSchema = z.union([z.string(), z.array(z.string()).min(1)]).meta({
  description: 'A string split into words like a shell does (quotes honoured, no shell run), or the argv as a list.',
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
  readiness: ReadinessSchema.optional().meta({ description: 'Sidecars only: when the sidecar counts as started.' }),
});

export const ConfigSchema = z
  .strictObject({
    grace: duration(
      'The whole budget from the stop signal (or the app exit) to the supervisor exit.',
      DEFAULT_GRACE_MS,
    ).optional(),
    logLevel: z.enum(LOG_LEVELS).optional().meta({ default: DEFAULT_LOG_LEVEL }),
    processes: z.array(ProcessSchema).optional().meta({
      description:
        'Init steps and sidecars start in this order, each after the one before it is done or started; the app starts last.',
    }),
  })
  .meta({ title: 'sidecar-init configuration' });

export type RawConfig = z.infer<typeof ConfigSchema>;
export type RawProcess = z.infer<typeof ProcessSchema>;
export type RawReadiness = z.infer<typeof ReadinessSchema>;
