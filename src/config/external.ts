import * as z from 'zod';
import { isPresetName, PRESET_NAMES, type PresetMatch, PRESETS } from '../plan/presets.ts';
import { CMDLINE_PATTERN, compileLinearPattern, type LinearPattern } from '../plan/linear-pattern.ts';
import { parseHttpMethod, parseHttpUrl } from './parse-http-url.ts';
import { parseAnnouncedFile } from './announce.ts';
import {
  DEFAULTS,
  type ExternalMatch,
  type ExternalSpec,
  type ExternalStopSpec,
  type ProbeSpec,
  type ReadinessSpec,
} from '../plan/plan.ts';
import { withReadinessDefaults } from './probe.ts';
import { processField, type ProcessFieldRows } from './roles.ts';
import { fail, ok, type Result } from '../support/result.ts';
import { quote } from '../support/message-text.ts';
import { checkedBy, ID_RANGE, mapping, parsedWith, wholeNumber, type WholeNumberRange } from './schema-fields.ts';
import { stopSignalField } from './signals.ts';

// role: external, a process of another container of the pod: how it is found
// (match), when it counts as started (readiness), how it is stopped (stop).
// A preset gives all three for a known proxy; the user's fields override it,
// readiness field by field.

const EXTERNAL_SPEC_HINT = `use a preset (${PRESET_NAMES.join(', ')}), a matcher (comm:NAME, cmdline:REGEX, uid:N) or announced:FILE`;

const MAX_MATCHES_RANGE: WholeNumberRange = { what: 'a number of matches', min: 1 };

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

const MatchSchema = mapping({
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
    MAX_MATCHES_RANGE,
  )
    .optional()
    .meta({ default: DEFAULTS.external.maxMatches }),
})
  .refine(
    (match) => match.comm !== undefined || match.cmdline !== undefined || match.uid !== undefined,
    'give at least one of comm, cmdline, uid',
  )
  .meta({ minProperties: 1 });

const StopObjectSchema = mapping({
  http: z
    .union([
      parsedWith(z.string(), (url) => parseHttpUrl(url, 'stop endpoint')),
      mapping({
        url: parsedWith(z.string(), (url) => parseHttpUrl(url, 'stop endpoint')),
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
});

const StopSchema = z.union([z.literal('none').meta({ description: 'Leave it running.' }), StopObjectSchema]);

const EXTERNAL = ['external'] as const;

/** The fields only externals have; process.ts adds them to a process entry. */
export const EXTERNAL_FIELDS = {
  preset: processField(
    EXTERNAL,
    z
      .enum(PRESET_NAMES as [string, ...string[]])
      .optional()
      .meta({ description: 'A known proxy: its match, readiness and stop.' }),
  ),
  match: processField(
    EXTERNAL,
    MatchSchema.optional().meta({ description: 'How its processes are found in /proc; every field given must match.' }),
  ),
  stop: processField(EXTERNAL, StopSchema.optional().meta({ description: 'How it is stopped at teardown, or none.' })),
  stopOnFailure: processField(
    EXTERNAL,
    z.boolean().optional().meta({
      description: 'false: leave it running when sidecar-init exits non-zero (a restarted app container).',
      default: DEFAULTS.external.stopOnFailure,
    }),
  ),
  optional: processField(
    EXTERNAL,
    z
      .boolean()
      .optional()
      .meta({ description: 'true: absent at its readiness deadline is logged, not a failure.', default: DEFAULTS.external.optional }),
  ),
  announced: processField(
    EXTERNAL,
    parsedWith(z.string(), parseAnnouncedFile)
      .optional()
      .meta({
        description:
          "Another container's sidecar-init, known by its --announce file on a shared volume (no shared PID namespace): " +
          'ready while the file says ready; at teardown, waited for until it says exited. Instead of preset and match.',
        examples: ['/handoff/proxy'],
      }),
  ),
  allowHost: processField(
    EXTERNAL,
    z.boolean().optional().meta({
      description:
        "true: may be looked for when sidecar-init runs in the host's initial PID namespace (not in a container or pod), where every user's processes are visible.",
      default: DEFAULTS.external.allowHost,
    }),
  ),
} satisfies ProcessFieldRows;

/** A match as written: maxMatches may be left to its default. */
export type MatchDraft = Omit<ExternalMatch, 'maxMatches'> & { readonly maxMatches?: number | undefined };

export interface ExternalFieldValues {
  readonly preset?: string | undefined;
  readonly match?: MatchDraft | undefined;
  readonly stop?: z.output<typeof StopSchema> | undefined;
  readonly stopOnFailure?: boolean | undefined;
  readonly optional?: boolean | undefined;
  readonly allowHost?: boolean | undefined;
  /** Absolute, resolved by the schema. */
  readonly announced?: string | undefined;
}

/** The readiness as written, its probe possibly left to the preset or to the process's presence. */
export type ReadinessDraft = Omit<ReadinessSpec, 'probe'> & { readonly probe: ProbeSpec | undefined };

/** The external with its preset applied; readiness always has a probe (the preset's, or presence of a match). */
export function createExternal(
  fields: ExternalFieldValues,
  readiness: ReadinessDraft | undefined,
): { external: ExternalSpec; readiness: ReadinessSpec } {
  if (fields.announced !== undefined) return createAnnouncedExternal(fields, fields.announced, readiness);
  const preset = fields.preset !== undefined && isPresetName(fields.preset) ? PRESETS[fields.preset] : undefined;
  const written = fields.match ?? (preset === undefined ? {} : compilePresetMatch(preset.match));
  const match: ExternalMatch = { ...written, maxMatches: written.maxMatches ?? DEFAULTS.external.maxMatches };
  const presetProbe: ProbeSpec | undefined =
    preset === undefined ? undefined : { kind: 'http', url: preset.ready, headers: {}, expectStatus: undefined };
  const probe = readiness?.probe ?? presetProbe ?? { kind: 'process', match };
  return {
    external: {
      preset: preset?.name,
      match,
      stop: createStop(fields.stop, preset?.quitUrl),
      stopOnFailure: fields.stopOnFailure ?? DEFAULTS.external.stopOnFailure,
      optional: fields.optional ?? DEFAULTS.external.optional,
      allowHost: fields.allowHost ?? DEFAULTS.external.allowHost,
      notFoundHint: preset?.notFoundHint,
    },
    readiness: readiness === undefined ? withReadinessDefaults({ probe }) : { ...readiness, probe },
  };
}

/**
 * announced: FILE: found, ready and stopped through the file alone; its match
 * is unused (nothing is looked for in /proc) and it is never signalled, so
 * its stop is only whether to wait for `exited` (stop: none does not).
 */
function createAnnouncedExternal(
  fields: ExternalFieldValues,
  file: string,
  readiness: ReadinessDraft | undefined,
): { external: ExternalSpec; readiness: ReadinessSpec } {
  const probe = readiness?.probe ?? { kind: 'announced', file };
  return {
    external: {
      preset: undefined,
      match: { maxMatches: DEFAULTS.external.maxMatches },
      stop: fields.stop === 'none' ? { kind: 'none' } : { kind: 'stop', http: undefined, signal: undefined },
      stopOnFailure: fields.stopOnFailure ?? DEFAULTS.external.stopOnFailure,
      optional: fields.optional ?? DEFAULTS.external.optional,
      // Never looked for in /proc.
      allowHost: false,
      announced: file,
      notFoundHint: undefined,
    },
    readiness: readiness === undefined ? withReadinessDefaults({ probe }) : { ...readiness, probe },
  };
}

/** A preset's cmdline through the same compiler as the user's (presets.test.ts checks that each compiles). */
function compilePresetMatch(match: PresetMatch): MatchDraft {
  if (match.cmdline === undefined) return { comm: match.comm };
  const compiled = compileLinearPattern(match.cmdline, CMDLINE_PATTERN);
  if (!compiled.ok) throw new Error(`a preset's cmdline ${match.cmdline} does not compile: ${compiled.message}`);
  return { ...(match.comm === undefined ? {} : { comm: match.comm }), cmdline: compiled.pattern };
}

function createStop(stop: ExternalFieldValues['stop'], presetQuitUrl: string | undefined): ExternalStopSpec {
  if (stop === 'none') return { kind: 'none' };
  const http = stop?.http;
  if (http === undefined) {
    return {
      kind: 'stop',
      http: presetQuitUrl === undefined ? undefined : { url: presetQuitUrl, method: DEFAULTS.external.stopMethod },
      signal: stop?.signal,
    };
  }
  return typeof http === 'string'
    ? { kind: 'stop', http: { url: http, method: DEFAULTS.external.stopMethod }, signal: stop?.signal }
    : { kind: 'stop', http: { url: http.url, method: (http.method ?? DEFAULTS.external.stopMethod).toUpperCase() }, signal: stop?.signal };
}

/** What --external's SPEC stands for, as the file would write it (its cmdline as text: the schema compiles it). */
export interface ExternalSpecFields {
  readonly preset?: string;
  readonly match?: { readonly comm?: string; readonly cmdline?: string; readonly uid?: number };
  readonly announced?: string;
}

/** --external NAME=SPEC: SPEC is a preset name, one matcher (comm:NAME, cmdline:REGEX, uid:N) or announced:FILE. */
export function parseExternalSpec(text: string): Result<ExternalSpecFields> {
  if (isPresetName(text)) return ok({ preset: text });
  const colon = text.indexOf(':');
  const kind = colon < 0 ? undefined : text.slice(0, colon);
  const value = text.slice(colon + 1);
  switch (kind) {
    case 'comm': {
      const comm = parseComm(value);
      return comm.ok ? ok({ match: { comm: comm.value } }) : comm;
    }
    case 'cmdline': {
      const cmdline = parseCmdlinePattern(value);
      return cmdline.ok ? ok({ match: { cmdline: value } }) : cmdline;
    }
    case 'uid': {
      const uid = Number(value);
      return /^[0-9]+$/.test(value) && uid <= ID_RANGE.max
        ? ok({ match: { uid } })
        : fail(`${quote(value)} is not a UID; use a whole number, e.g. uid:1337`);
    }
    case 'announced': {
      const file = parseAnnouncedFile(value);
      return file.ok ? ok({ announced: value }) : file;
    }
    default:
      return fail(`${quote(text)} is neither a preset nor a matcher; ${EXTERNAL_SPEC_HINT}`);
  }
}

/** --quit NAME=URL: the stop endpoint, POSTed. */
export function parseQuitUrl(text: string): Result<string> {
  return parseHttpUrl(text, 'stop endpoint');
}

export function stopWithQuitUrl(stop: ExternalStopSpec, url: string): ExternalStopSpec {
  return { kind: 'stop', http: { url, method: DEFAULTS.external.stopMethod }, signal: stop.kind === 'stop' ? stop.signal : undefined };
}
