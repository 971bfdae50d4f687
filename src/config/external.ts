import * as z from 'zod';
import { isPresetName, PRESET_NAMES, PRESETS } from '../plan/presets.ts';
import { CMDLINE_PATTERN, compileLinearPattern, type LinearPattern } from '../plan/linear-pattern.ts';
import { parseHttpMethod, parseHttpUrl } from './parse-http-url.ts';
import { parseAnnouncedFile } from './announce.ts';
import { DEFAULTS, type ExternalSpec, type ExternalStopSpec, type ProbeSpec, type ReadinessSpec } from '../plan/plan.ts';
import { withReadinessDefaults } from './probe.ts';
import { optionalField, type ProcessFieldRows } from './roles.ts';
import { fail, ok, type Result } from '../support/result.ts';
import { quote } from '../support/message-text.ts';
import { didYouMean } from '../support/closest-match.ts';
import { checkedBy, ID_RANGE, mapping, parsedWith, wholeNumber } from './schema-fields.ts';
import { stopSignalField } from './signals.ts';
import { builtOnFirstUse } from '../support/built-on-first-use.ts';

// role: external, a process of another container of the pod: how it is found
// (match), when it counts as started (readiness), how it is stopped (stop).
// A preset gives all three for a known proxy; the user's fields override it,
// readiness field by field.

/**
 * A JavaScript RegExp over the space-joined cmdline, compiled here, once, for
 * the linear-time engine the finder runs it on: it is tested against the
 * command line of every process in the pod, which any of them can choose.
 */
function parseCmdlinePattern(pattern: string): Result<LinearPattern> {
  const compiled = compileLinearPattern(pattern, CMDLINE_PATTERN);
  return compiled.ok ? ok(compiled.pattern) : fail(compiled.message);
}

function parseComm(comm: string): Result<string> {
  if (comm === '') return fail('comm needs a process name, e.g. comm:envoy');
  return comm.includes('\0') || comm.includes('/') ? fail(`${quote(comm)} cannot be a process name (comm has no "/" or NUL)`) : ok(comm);
}

/** An external's stop endpoint: the file's `stop.http` and --quit NAME=URL. */
export function parseStopUrl(url: string): Result<string> {
  return parseHttpUrl(url, 'stop endpoint');
}

const MatchSchema = builtOnFirstUse(() =>
  mapping({
    comm: parsedWith(z.string().meta({ description: 'Exact /proc/PID/comm; the kernel keeps its first 15 bytes.' }), parseComm).optional(),
    cmdline: parsedWith(
      z.string().meta({
        description:
          'A JavaScript RegExp over the arguments joined by spaces, run in linear time: no backreferences, lookaheads or counted repetitions above 16.',
      }),
      parseCmdlinePattern,
    ).optional(),
    uid: wholeNumber('The real UID of the process.', ID_RANGE).optional(),
    maxMatches: wholeNumber(
      'How many processes it may match (a matched process’s children not counted); more, and sidecar-init refuses to signal any.',
      { what: 'a number of matches', min: 1 },
    )
      .optional()
      .meta({ default: DEFAULTS.external.maxMatches }),
  })
    .refine(
      (match) => match.comm !== undefined || match.cmdline !== undefined || match.uid !== undefined,
      'give at least one of comm, cmdline, uid',
    )
    .meta({ minProperties: 1 }),
);

const StopObjectSchema = builtOnFirstUse(() =>
  mapping({
    http: z
      .union([
        parsedWith(z.string(), parseStopUrl),
        mapping({
          url: parsedWith(z.string(), parseStopUrl),
          method: z
            .string()
            .check(checkedBy((method: string) => parseHttpMethod(method, 'stop endpoint')))
            .optional()
            .meta({ default: DEFAULTS.external.stopMethod }),
        }),
      ])
      .optional()
      .meta({ description: 'The stop endpoint (POST unless a method is given); any 2xx counts, a refused connection means it is gone.' }),
    signal: stopSignalField('Sent to every matching process (default SIGTERM when there is no http stop or it fails).').optional(),
  }),
);

const EXTERNAL = ['external'] as const;

/** The fields only externals have; process.ts adds them to a process entry. */
export const EXTERNAL_FIELDS = builtOnFirstUse(
  () =>
    ({
      preset: optionalField(EXTERNAL, z.enum(PRESET_NAMES as [string, ...string[]]), 'A known proxy: its match, readiness and stop.'),
      match: optionalField(EXTERNAL, MatchSchema(), 'How its processes are found in /proc; every field given must match.'),
      stop: optionalField(
        EXTERNAL,
        z.union([z.literal('none').meta({ description: 'Leave it running.' }), StopObjectSchema()]),
        'How it is stopped at teardown, or none.',
      ),
      stopOnFailure: optionalField(EXTERNAL, z.boolean(), {
        description: 'false: leave it running when sidecar-init exits non-zero (a restarted app container).',
        default: DEFAULTS.external.stopOnFailure,
      }),
      optional: optionalField(EXTERNAL, z.boolean(), {
        description: 'true: absent at its readiness deadline is logged, not a failure.',
        default: DEFAULTS.external.optional,
      }),
      // Made absolute by its parser.
      announced: optionalField(EXTERNAL, parsedWith(z.string(), parseAnnouncedFile), {
        description:
          "Another container's sidecar-init, known by its --announce file on a shared volume (no shared PID namespace): " +
          'ready while the file says ready; at teardown, waited for until it says exited. Instead of preset and match.',
        examples: ['/handoff/proxy'],
      }),
      allowHost: optionalField(EXTERNAL, z.boolean(), {
        description:
          "true: may be looked for when sidecar-init runs in the host's initial PID namespace (not in a container or pod), where every user's processes are visible.",
        default: DEFAULTS.external.allowHost,
      }),
    }) satisfies ProcessFieldRows,
);

type ExternalFields = ReturnType<typeof EXTERNAL_FIELDS>;

/** The external's fields once checked, as its rows' schemas give them. */
export type ExternalFieldValues = { readonly [Key in keyof ExternalFields]?: z.output<ExternalFields[Key]['schema']> };

/** The readiness as written, its probe possibly left to the preset or to the process's presence. */
type ReadinessDraft = Omit<ReadinessSpec, 'probe'> & { readonly probe: ProbeSpec | undefined };

/**
 * The external with its preset applied; readiness always has a probe: the
 * preset's, or presence (of a match, or of an announced file). An announced
 * external is found, ready and stopped through its file alone: roles.ts
 * refuses a preset, match, allowHost, stop endpoint or signal beside it, so
 * nothing is looked for in /proc, called or signalled, and its stop is only
 * whether to wait for `exited` (stop: none does not).
 */
export function createExternal(
  fields: ExternalFieldValues,
  readiness: ReadinessDraft | undefined,
): { external: ExternalSpec; readiness: ReadinessSpec } {
  const { announced } = fields;
  const preset = fields.preset !== undefined && isPresetName(fields.preset) ? PRESETS[fields.preset] : undefined;
  // A preset's match through the user's schema, its cmdline compiled alike (external.test.ts loads every preset).
  const written = fields.match ?? (preset === undefined ? {} : MatchSchema().parse(preset.match));
  const match = { ...written, maxMatches: written.maxMatches ?? DEFAULTS.external.maxMatches };
  const presence: ProbeSpec = announced === undefined ? { kind: 'process', match } : { kind: 'announced', file: announced };
  const probe =
    readiness?.probe ?? (preset === undefined ? presence : { kind: 'http', url: preset.ready, headers: {}, expectStatus: undefined });
  return {
    external: {
      preset: preset?.name,
      match,
      stop: createStop(fields.stop, preset?.quitUrl),
      stopOnFailure: fields.stopOnFailure ?? DEFAULTS.external.stopOnFailure,
      optional: fields.optional ?? DEFAULTS.external.optional,
      allowHost: fields.allowHost ?? DEFAULTS.external.allowHost,
      announced,
      notFoundHint: preset?.notFoundHint,
    },
    readiness: readiness === undefined ? withReadinessDefaults({ probe }) : { ...readiness, probe },
  };
}

/** The written stop over the preset's endpoint; an endpoint is POSTed unless the file gives a method. */
function createStop(stop: ExternalFieldValues['stop'], presetQuitUrl: string | undefined): ExternalStopSpec {
  if (stop === 'none') return { kind: 'none' };
  const http = stop?.http;
  const url = typeof http === 'string' ? http : (http?.url ?? presetQuitUrl);
  const method = typeof http === 'object' && http.method !== undefined ? http.method.toUpperCase() : DEFAULTS.external.stopMethod;
  return { kind: 'stop', http: url === undefined ? undefined : { url, method }, signal: stop?.signal };
}

/** --quit NAME=URL: the stop endpoint, POSTed; a stop signal from the file stays. */
export function stopWithQuitUrl(stop: ExternalStopSpec, url: string): ExternalStopSpec {
  return { kind: 'stop', http: { url, method: DEFAULTS.external.stopMethod }, signal: stop.kind === 'stop' ? stop.signal : undefined };
}

const EXTERNAL_SPEC_HINT = `use a preset (${PRESET_NAMES.join(', ')}), a matcher (comm:NAME, cmdline:REGEX, uid:N) or announced:FILE`;

/**
 * --external NAME=SPEC: SPEC is a preset name, one matcher (comm:NAME,
 * cmdline:REGEX, uid:N) or announced:FILE, as the file would write it; the
 * file's schema then checks it, so its problems are worded as the file's.
 */
export function parseExternalSpec(
  text: string,
): Result<{ readonly [Key in keyof ExternalFields]?: z.input<ExternalFields[Key]['schema']> }> {
  if (isPresetName(text)) return ok({ preset: text });
  const colon = text.indexOf(':');
  const value = text.slice(colon + 1);
  switch (colon < 0 ? undefined : text.slice(0, colon)) {
    case 'comm':
      return ok({ match: { comm: value } });
    case 'cmdline':
      return ok({ match: { cmdline: value } });
    case 'uid':
      // Digits only, as the flag's text, where the file's field takes a YAML number.
      return /^[0-9]+$/.test(value) && Number(value) <= ID_RANGE.max
        ? ok({ match: { uid: Number(value) } })
        : fail(`${quote(value)} is not a UID; use a whole number, e.g. uid:1337`);
    case 'announced':
      return ok({ announced: value });
    default:
      return fail(
        `${quote(text)} is neither a preset nor a matcher${colon < 0 ? didYouMean(text, PRESET_NAMES) : ''}; ${EXTERNAL_SPEC_HINT}`,
      );
  }
}
