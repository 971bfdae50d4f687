import * as z from 'zod';
import { compileLinearPattern, LOG_PATTERN } from '../plan/linear-pattern.ts';
import { checkNoNul, CommandSchema, splitCommand } from './command.ts';
import { duration, positiveDuration } from './duration.ts';
import { PROBE_KINDS } from '../plan/literals.ts';
import { parseHttpUrl, parsePort } from './parse-http-url.ts';
import { DEFAULTS, type ProbeSpec, type ReadinessSpec } from '../plan/plan.ts';
import { fail, mapResult, ok, type Result } from '../support/result.ts';
import { quote } from '../support/message-text.ts';
import { closestMatch, didYouMean } from '../support/closest-match.ts';
import { redactUrl } from '../support/redact-url.ts';
import { exactlyOneOf, FAILURE_THRESHOLD_RANGE, HTTP_STATUS_RANGE, mapping, parsedWith, PORT_RANGE, wholeNumber } from './schema-fields.ts';
import { builtOnFirstUse } from '../support/built-on-first-use.ts';

// A probe, for readiness and liveness: the string form shared by `--ready` and
// the YAML shorthand, or a mapping with exactly one key naming its kind.
// tcp://HOST:PORT, http://HOST:PORT/PATH (2xx/3xx is success), exec:CMD (exit 0
// is success; CMD split like a shell, never run through one), log:REGEX (a line
// of the process's output matches), file:PATH (the file exists),
// grpc://HOST:PORT[/SERVICE] (the gRPC health service answers SERVING), notify
// (the process sends READY=1 to $NOTIFY_SOCKET, as systemd's Type=notify) or
// fd:N (the process writes a newline to descriptor N, as s6's notification-fd).

export const PROBE_HINT =
  'use tcp://HOST:PORT, http://HOST:PORT/PATH, grpc://HOST:PORT[/SERVICE], exec:CMD, log:REGEX, file:PATH, notify or fd:N';

const SCHEME = /^([a-z][a-z0-9+.-]*):/i;
const TCP = /^tcp:\/\/(\[[^\]]*\]|[^:/?#@[\]]*)(?::([^/?#]*))?(.*)$/is;
const GRPC = /^grpc:\/\/(\[[^\]]*\]|[^:/?#@[\]]*)(?::([^/?#]*))?(.*)$/is;

export function parseProbe(text: string): Result<ProbeSpec> {
  const scheme = SCHEME.exec(text)?.[1]?.toLowerCase();
  switch (scheme) {
    case 'tcp':
      return parseTcpProbe(text);
    case 'http':
    case 'https':
      return mapResult(parseHttpUrl(text, 'probe'), (url) => ({ kind: 'http', url, headers: {}, expectStatus: undefined }));
    case 'exec':
      return mapResult(parseExecCommand(text.slice('exec:'.length)), (command) => ({ kind: 'exec', command }));
    case 'log':
      return mapResult(parseLogPattern(text.slice('log:'.length)), (pattern) => ({ kind: 'log', pattern }));
    case 'file':
      return mapResult(parseFilePath(text.slice('file:'.length)), (path) => ({ kind: 'file', path }));
    case 'grpc':
      return parseGrpcProbe(text);
    case 'fd':
      return mapResult(parseNotificationFd(text.slice('fd:'.length)), (fd) => ({ kind: 'fd', fd }));
    default:
      // A word without a colon.
      if (text.toLowerCase() === 'notify') return ok({ kind: 'notify', watchdogMs: undefined });
      return fail(`${quote(redactUrl(text))} is not a probe${didYouMeanScheme(text, scheme)}; ${PROBE_HINT}`);
  }
}

/** The kinds a mistyped scheme is likely to have meant: those written SCHEME://, and those written KIND: (fd: is too short to guess). */
const URL_PROBE_SCHEMES = ['http', 'grpc', 'tcp'];
const WORD_PROBE_KINDS = ['exec', 'log', 'file'];

/** " (did you mean http://127.0.0.1/x?)" for htp://127.0.0.1/x, " (did you mean notify?)" for notfy, else nothing. */
function didYouMeanScheme(text: string, scheme: string | undefined): string {
  if (scheme === undefined) return didYouMean(text, ['notify']);
  const rest = text.slice(scheme.length + 1);
  const meant = closestMatch(scheme, rest.startsWith('//') ? URL_PROBE_SCHEMES : WORD_PROBE_KINDS);
  return meant === undefined ? '' : ` (did you mean ${redactUrl(`${meant}:${rest}`)}?)`;
}

/** A pattern that compiles as the log probe will compile it: a JavaScript RegExp the linear-time engine accepts. */
function parseLogPattern(pattern: string): Result<string> {
  const compiled = compileLinearPattern(pattern, LOG_PATTERN);
  return compiled.ok ? ok(pattern) : fail(compiled.message);
}

function parseFilePath(path: string): Result<string> {
  if (path === '') return fail('file: needs a path, e.g. file:/tmp/ready');
  return path.includes('\0') ? fail('file: the path has a NUL character, which no file name can hold') : ok(path);
}

function parseTcpProbe(text: string): Result<ProbeSpec> {
  const [, host = '', port, rest = ''] = TCP.exec(text) ?? [];
  if (host === '' || host === '[]') return fail(`${quote(text)} has no host; use tcp://HOST:PORT, e.g. tcp://127.0.0.1:15000`);
  if (port === undefined || port === '') return fail(`${quote(text)} has no port; use tcp://HOST:PORT, e.g. tcp://127.0.0.1:15000`);
  if (rest !== '') return fail(`${quote(text)}: a tcp probe takes only HOST:PORT, not ${quote(rest)}`);
  return mapResult(parsePort(port), (checked) => ({ kind: 'tcp', host: unbracket(host), port: checked }));
}

/** grpc://HOST:PORT[/SERVICE]: the service as the health service knows it, e.g. grpc.health.v1.Health; none is the whole server. */
function parseGrpcProbe(text: string): Result<ProbeSpec> {
  const example = 'use grpc://HOST:PORT[/SERVICE], e.g. grpc://127.0.0.1:9090 or grpc://127.0.0.1:9090/my.package.Service';
  const [, host = '', port, rest = ''] = GRPC.exec(text) ?? [];
  if (host === '' || host === '[]') return fail(`${quote(text)} has no host; ${example}`);
  if (port === undefined || port === '') return fail(`${quote(text)} has no port; ${example}`);
  if (rest !== '' && !rest.startsWith('/')) return fail(`${quote(text)}: after HOST:PORT only /SERVICE may follow, not ${quote(rest)}`);
  const service = parseGrpcService(rest.slice(1));
  if (!service.ok) return service;
  return mapResult(parsePort(port), (checked) => ({ kind: 'grpc', host: unbracket(host), port: checked, service: service.value }));
}

/** The descriptors above the standard three; s6 uses 3 or more too, and a few hundred are as many as a process opens. */
const NOTIFICATION_FD_RANGE = { what: 'a descriptor for notification', min: 3, max: 255 } as const;

function parseNotificationFd(text: string): Result<number> {
  const fd = /^\d{1,3}$/.test(text) ? Number(text) : Number.NaN;
  return fd >= NOTIFICATION_FD_RANGE.min && fd <= NOTIFICATION_FD_RANGE.max
    ? ok(fd)
    : fail(`fd:${text}: the descriptor must be a number from 3 to 255 (0, 1 and 2 are stdin, stdout and stderr), e.g. fd:3`);
}

function parseGrpcService(service: string): Result<string> {
  // A protobuf full name: letters, digits, _ and dots. Anything else (a space, a
  // line break) could not name a service and is more likely a typo.
  return /^[\w.]*$/.test(service)
    ? ok(service)
    : fail(`${quote(service)} is not a gRPC service name; use a full name such as my.package.Service, or none for the whole server`);
}

function parseExecCommand(commandText: string): Result<string[]> {
  const words = splitCommand(commandText);
  if (!words.ok) return fail(`exec probe: ${words.message}`);
  if (words.value[0] === undefined || words.value[0] === '') return fail('exec: needs a command, e.g. exec:pg_isready -h 127.0.0.1');
  return checkNoNul(words.value, 'exec probe: ');
}

/** IPv6 with or without brackets. */
function unbracket(host: string): string {
  return host.replace(/^\[(.*)\]$/s, '$1');
}

function parseHost(host: string): Result<string> {
  return host === '' ? fail('is empty; give a host name or address, e.g. 127.0.0.1') : ok(unbracket(host));
}

// Header names and values are checked when the plan is made, since Node's
// http would only refuse them at the first probe attempt.
// https://www.rfc-editor.org/rfc/rfc9110#name-field-names (a token)
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// What Node's http accepts in a value: tab, visible ASCII and obs-text; no CR, LF or NUL.
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

const HeadersSchema = builtOnFirstUse(() =>
  z.record(z.string(), z.string()).superRefine((headers, context) => {
    for (const [name, value] of Object.entries(headers)) {
      const message = !TOKEN.test(name)
        ? `${quote(name)} is not a header name; use letters, digits and !#$%&'*+-.^_\`|~`
        : !FIELD_VALUE.test(value)
          ? 'the value contains a control character (a line break?), which a header cannot hold'
          : undefined;
      if (message !== undefined) context.addIssue({ code: 'custom', message, path: [name], input: value });
    }
  }),
);

const TcpProbeSchema = builtOnFirstUse(() =>
  mapping({
    host: parsedWith(z.string().meta({ description: 'A host name or address; IPv6 with or without brackets.' }), parseHost),
    port: wholeNumber(`${PORT_RANGE.min} to ${PORT_RANGE.max}.`, PORT_RANGE),
  }),
);

const HttpProbeSchema = builtOnFirstUse(() =>
  mapping({
    url: parsedWith(z.string().meta({ description: 'http://HOST:PORT/PATH', examples: ['http://127.0.0.1:15021/healthz/ready'] }), (url) =>
      parseHttpUrl(url, 'probe'),
    ),
    headers: HeadersSchema().optional().meta({ description: 'Request headers.' }),
    expectStatus: z
      .array(wholeNumber('An HTTP status.', HTTP_STATUS_RANGE))
      .min(1)
      .optional()
      .meta({ description: 'The statuses that pass; any 2xx or 3xx when left out.', examples: [[200, 204]] }),
  }),
);

const GrpcProbeSchema = builtOnFirstUse(() =>
  mapping({
    host: parsedWith(z.string().meta({ description: 'A host name or address; IPv6 with or without brackets.' }), parseHost),
    port: wholeNumber('1 to 65535.', PORT_RANGE),
    service: parsedWith(
      z.string().meta({ description: 'The service to ask about, e.g. my.package.Service; empty or left out: the server as a whole.' }),
      parseGrpcService,
    ).optional(),
  }),
);

const NotifyProbeSchema = builtOnFirstUse(() =>
  mapping({
    watchdog: positiveDuration(
      'Once ready, WATCHDOG=1 must come at least this often (the process reads it from WATCHDOG_USEC), or the liveness rule applies.',
      undefined,
    ).optional(),
  }),
);

/** A probe kind users write: the object form's keys. */
type WrittenProbeKind = (typeof PROBE_KINDS)[number];

/** The object form's field for each kind; a kind added to PROBE_KINDS without one fails to compile. */
const PROBE_FIELDS = builtOnFirstUse(
  () =>
    ({
      tcp: TcpProbeSchema().optional().meta({ description: 'Passes when a TCP connection opens.' }),
      http: HttpProbeSchema().optional().meta({ description: 'Passes on an expected status.' }),
      exec: CommandSchema().optional().meta({ description: 'Passes when the command exits 0.' }),
      log: parsedWith(z.string(), parseLogPattern).optional().meta({
        description: "Readiness only: passes once a line of the process's stdout or stderr matches this JavaScript RegExp.",
      }),
      file: parsedWith(z.string(), parseFilePath).optional().meta({ description: 'Passes while the file exists.' }),
      grpc: GrpcProbeSchema().optional().meta({ description: 'Passes when grpc.health.v1.Health/Check answers SERVING.' }),
      notify: NotifyProbeSchema().optional().meta({
        description: 'Readiness only: passes once the process sends READY=1 to the socket in $NOTIFY_SOCKET (systemd).',
      }),
      fd: wholeNumber('3 to 255.', NOTIFICATION_FD_RANGE).optional().meta({
        description: 'Readiness only: passes once the process writes a newline to this descriptor (s6), 3 to 255.',
      }),
    }) satisfies Record<WrittenProbeKind, z.ZodType>,
);

/** The plan's probe from each kind's field: a kind without its line fails to compile, instead of becoming another kind. */
const PROBE_SPECS: {
  readonly [Kind in WrittenProbeKind]: (value: NonNullable<z.output<ReturnType<typeof PROBE_FIELDS>[Kind]>>) => ProbeSpec;
} = {
  tcp: (tcp) => ({ kind: 'tcp', ...tcp }),
  http: (http) => ({ kind: 'http', url: http.url, headers: http.headers ?? {}, expectStatus: http.expectStatus }),
  exec: (command) => ({ kind: 'exec', command }),
  log: (pattern) => ({ kind: 'log', pattern }),
  file: (path) => ({ kind: 'file', path }),
  grpc: (grpc) => ({ kind: 'grpc', host: grpc.host, port: grpc.port, service: grpc.service ?? '' }),
  notify: (notify) => ({ kind: 'notify', watchdogMs: notify.watchdog }),
  fd: (fd) => ({ kind: 'fd', fd }),
};

type WrittenProbe = { [Kind in WrittenProbeKind]?: z.output<ReturnType<typeof PROBE_FIELDS>[Kind]> };

function probeSpecOf<Kind extends WrittenProbeKind>(kind: Kind, written: WrittenProbe): ProbeSpec | undefined {
  const value = written[kind];
  return value === undefined ? undefined : PROBE_SPECS[kind](value as NonNullable<z.output<ReturnType<typeof PROBE_FIELDS>[Kind]>>);
}

const ProbeObjectSchema = builtOnFirstUse(() =>
  mapping(PROBE_FIELDS())
    // Checked on what was written, even when a field has problems of its own.
    .check(z.superRefine(exactlyOneOf(PROBE_KINDS), { when: () => true }))
    .meta({ minProperties: 1, maxProperties: 1 })
    .transform((written): ProbeSpec => {
      // exactlyOneOf has passed: one kind is given.
      for (const kind of PROBE_KINDS) {
        const spec = probeSpecOf(kind, written);
        if (spec !== undefined) return spec;
      }
      throw new Error(`a probe mapping passed its check without one of ${PROBE_KINDS.join(', ')}`);
    }),
);

export const ProbeSchema = builtOnFirstUse(() =>
  z.union([
    parsedWith(
      z.string().meta({
        description:
          'tcp://HOST:PORT, http://HOST:PORT/PATH (2xx/3xx is success), grpc://HOST:PORT[/SERVICE] (SERVING is success), exec:CMD (exit 0 is success), log:REGEX, file:PATH, notify or fd:N',
        examples: [
          'tcp://127.0.0.1:15000',
          'http://127.0.0.1:15021/healthz/ready',
          'exec:pg_isready -h 127.0.0.1',
          'log:ready to accept connections',
          'file:/tmp/ready',
          'grpc://127.0.0.1:9090',
          'notify',
          'fd:3',
        ],
      }),
      parseProbe,
    ),
    ProbeObjectSchema(),
  ]),
);

/**
 * The timings of `readiness:`, each a duration: the file's keys, and the
 * options `--ready NAME=PROBE,KEY=DURATION` takes (ready-flag.ts).
 */
export const READINESS_TIMINGS = builtOnFirstUse(
  () =>
    ({
      period: positiveDuration('Time between the start of one attempt and the next.', DEFAULTS.readiness.periodMs),
      timeout: positiveDuration('Bound on one attempt.', DEFAULTS.readiness.timeoutMs),
      deadline: positiveDuration('Startup fails when no attempt has passed after this long.', DEFAULTS.readiness.deadlineMs),
      periodAfterStart: positiveDuration(
        'Once started, readiness is still tracked at this period; a failure never restarts anything.',
        DEFAULTS.readiness.periodAfterStartMs,
      ),
    }) as const,
);

export type ReadinessTiming = keyof ReturnType<typeof READINESS_TIMINGS>;

/** The plan's field for each timing. */
export const READINESS_TIMING_FIELDS = {
  period: 'periodMs',
  timeout: 'timeoutMs',
  deadline: 'deadlineMs',
  periodAfterStart: 'periodAfterStartMs',
} as const satisfies Record<ReadinessTiming, keyof ReadinessSpec>;

// The same keys in the same order as READINESS_TIMINGS, whose schemas are built on first use.
export const READINESS_TIMING_NAMES = Object.keys(READINESS_TIMING_FIELDS) as ReadinessTiming[];

/** `readiness:`; its probe is required for a sidecar, optional for an external (its preset's, or its process existing). */
export const readinessField = (probe: 'required' | 'optional') =>
  mapping({
    probe: (probe === 'required' ? ProbeSchema() : ProbeSchema().optional()).meta({
      description: "Required for a sidecar; an external's defaults to its preset's, or to its process existing.",
    }),
    period: READINESS_TIMINGS().period.optional(),
    timeout: READINESS_TIMINGS().timeout.optional(),
    deadline: READINESS_TIMINGS().deadline.optional(),
    periodAfterStart: READINESS_TIMINGS().periodAfterStart.optional(),
  }).transform((raw) => withReadinessDefaults({ ...raw, probe: raw.probe }));

/** `readiness:` with the default timings; with the probe alone, for a probe given only by `--ready`. */
export function withReadinessDefaults<Probe extends ProbeSpec | undefined>(raw: {
  probe: Probe;
  period?: number | undefined;
  timeout?: number | undefined;
  deadline?: number | undefined;
  periodAfterStart?: number | undefined;
}): Omit<ReadinessSpec, 'probe'> & { readonly probe: Probe } {
  return {
    probe: raw.probe,
    periodMs: raw.period ?? DEFAULTS.readiness.periodMs,
    timeoutMs: raw.timeout ?? DEFAULTS.readiness.timeoutMs,
    deadlineMs: raw.deadline ?? DEFAULTS.readiness.deadlineMs,
    periodAfterStartMs: raw.periodAfterStart ?? DEFAULTS.readiness.periodAfterStartMs,
  };
}

// A log probe passes once, when its line is seen, and never fails again, so it
// cannot tell whether a process is still alive; nor can notify and fd, which
// the process reports once (notify's watchdog is its liveness).
const LOG_LIVENESS_MESSAGE = 'a log probe passes once and stays passed, so it cannot check liveness; use tcp, http, grpc, exec or file';
const SELF_REPORTED_LIVENESS_MESSAGE =
  'a notify or fd probe passes once and stays passed, so it cannot check liveness; use readiness.probe.notify.watchdog, or tcp, http, grpc, exec or file';

/**
 * notify, fd and log need a process sidecar-init starts: the socket and the
 * descriptor are handed to it at spawn, and only the output of a process it
 * spawned is read. An external gets none of them.
 */
export const EXTERNAL_STARTED_ONLY_PROBE =
  'an external is never started by sidecar-init, so it gets no notify socket or notification descriptor and its output is never read; use tcp, http, grpc, exec or file';

/** A probe only a process sidecar-init starts can pass: notify, fd or log. */
export function isStartedOnlyProbe(probe: ProbeSpec): boolean {
  return probe.kind === 'notify' || probe.kind === 'fd' || probe.kind === 'log';
}

/**
 * A notify, fd or log probe as written or as parsed (a role's check sees the
 * field parsed when it passed, as written when it did not): the string form,
 * the mapping's key, or the kind.
 */
export function isStartedOnlyProbeAsWritten(probe: unknown): boolean {
  if (typeof probe === 'string') return /^(notify$|fd:|log:)/i.test(probe);
  if (typeof probe !== 'object' || probe === null) return false;
  if ('kind' in probe) return probe.kind === 'notify' || probe.kind === 'fd' || probe.kind === 'log';
  return 'notify' in probe || 'fd' in probe || 'log' in probe;
}

export const LivenessSchema = builtOnFirstUse(() =>
  mapping({
    probe: ProbeSchema()
      .meta({ description: 'Any probe but log, notify and fd.' })
      .refine((probe) => probe.kind !== 'log', LOG_LIVENESS_MESSAGE)
      .refine((probe) => probe.kind !== 'notify' && probe.kind !== 'fd', SELF_REPORTED_LIVENESS_MESSAGE),
    period: positiveDuration('Time between the start of one attempt and the next.', DEFAULTS.liveness.periodMs).optional(),
    timeout: positiveDuration('Bound on one attempt.', DEFAULTS.liveness.timeoutMs).optional(),
    failureThreshold: wholeNumber('Consecutive failures that make the process be stopped and restarted.', FAILURE_THRESHOLD_RANGE)
      .optional()
      .meta({ default: DEFAULTS.liveness.failureThreshold }),
    initialDelay: duration('Wait after the process has started before the first attempt.', DEFAULTS.liveness.initialDelayMs).optional(),
  }).transform((raw) => ({
    probe: raw.probe,
    periodMs: raw.period ?? DEFAULTS.liveness.periodMs,
    timeoutMs: raw.timeout ?? DEFAULTS.liveness.timeoutMs,
    failureThreshold: raw.failureThreshold ?? DEFAULTS.liveness.failureThreshold,
    initialDelayMs: raw.initialDelay ?? DEFAULTS.liveness.initialDelayMs,
  })),
);
