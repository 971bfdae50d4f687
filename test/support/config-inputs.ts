import fc from 'fast-check';
import { stringify } from 'yaml';

// Generators for the configuration property test (src/cli/config-inputs.property.test.ts):
// command lines, SIDECAR_INIT_* variables and YAML texts, from nearly valid to
// nonsense, all about one config file named CONFIG_FILE.

export const CONFIG_FILE = 'fuzz.yaml';

// Values that are right for some field, wrong for most, or wrong everywhere.
const SCALARS = [
  'proxy',
  'app',
  'step',
  'sidecar',
  'init',
  'external',
  'envoy',
  'istio',
  'linkerd',
  '10s',
  '50ms',
  '1m',
  '0s',
  '-1s',
  '1.5s',
  '10',
  'abc',
  '',
  ' ',
  'SIGTERM',
  'TERM',
  'SIGQUIT',
  'SIGFOO',
  'none',
  'always',
  'on-failure',
  'never',
  'group',
  'process',
  'prefix',
  'json',
  'inherit',
  'text',
  'debug',
  'loud',
  'tcp://127.0.0.1:1',
  'tcp://:x',
  'http://127.0.0.1:1/ready',
  'https://[::1]:80/x',
  'exec:true',
  'file:/tmp/x',
  'log:^ready$',
  'log:(a+)+$',
  'log:[',
  'comm:envoy',
  'cmdline:pilot-agent',
  '127.0.0.1:0',
  ':9090',
  'localhost:99999',
  'root',
  'nobody',
  '1000',
  '1000:1000',
  'nosuchuser',
  '0',
  'GET',
  'POST',
  'sh -c "exit 0"',
  "sleep 'unterminated",
  'a'.repeat(300),
  '\u0000',
  'ünïcode',
  '$HOME',
  '*alias',
  '&anchor',
  '<<',
  '/handoff/app',
  '/handoff/app=exited',
  'ready',
  'none',
] as const;
const KEYS = [
  'processes',
  'grace',
  'logLevel',
  'logFormat',
  'statusAddr',
  'terminationLog',
  'control',
  'announce',
  'until',
  'file',
  'state',
  'output',
  'drain',
  'rewrite',
  'singleChild',
  'name',
  'role',
  'command',
  'after',
  'env',
  'cwd',
  'user',
  'group',
  'readiness',
  'liveness',
  'probe',
  'period',
  'timeout',
  'deadline',
  'failureThreshold',
  'initialDelay',
  'restart',
  'backoff',
  'initial',
  'max',
  'resetAfter',
  'maxRestarts',
  'stopSignal',
  'signalGroup',
  'fatal',
  'postStart',
  'preStop',
  'exec',
  'http',
  'url',
  'method',
  'successCodes',
  'preset',
  'match',
  'comm',
  'cmdline',
  'uid',
  'stop',
  'signal',
  'stopOnFailure',
  'optional',
  'allowHost',
  'maxMatches',
  'announced',
  'grpc',
  'notify',
  'fd',
  'watchdog',
  'host',
  'port',
  'service',
  'SIGTERM',
  'SIGHUP',
  'proccesses',
  'nmae',
  '__proto__',
  'constructor',
  '',
] as const;

const scalar = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...SCALARS) },
  { weight: 2, arbitrary: fc.oneof(fc.integer({ min: -5, max: 70_000 }), fc.double(), fc.boolean(), fc.constant(null)) },
  { weight: 1, arbitrary: fc.string({ maxLength: 20 }) },
);

/** Values shaped like a config: maps of known keys, lists, scalars, and now and then anything at all. */
const { value: configValue } = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    { weight: 4, arbitrary: scalar },
    { weight: 3, arbitrary: fc.dictionary(fc.constantFrom(...KEYS), tie('value'), { maxKeys: 6 }) },
    { weight: 2, arbitrary: fc.array(tie('value'), { maxLength: 4 }) },
    { weight: 1, arbitrary: fc.anything({ maxDepth: 2 }) },
  ),
}));

const processEntry = fc.record(
  {
    name: fc.constantFrom('proxy', 'step', 'app', 'envoy', 'Bad Name', ''),
    role: fc.constantFrom('init', 'sidecar', 'app', 'external', 'daemon'),
    command: fc.oneof(fc.constantFrom('sleep 10', 'true', ''), fc.array(fc.constantFrom('sh', '-c', 'exit 3', ''), { maxLength: 3 })),
    readiness: configValue,
    restart: fc.constantFrom('always', 'on-failure', 'never', 'sometimes'),
    after: fc.array(fc.constantFrom('proxy', 'step', 'app', 'nobody'), { maxLength: 2 }),
    extra: configValue,
  },
  { requiredKeys: ['name', 'role'] },
);

/** A config that is valid, or one field away from it, so that plans are built too. */
const nearlyValid = fc.record({
  grace: fc.constantFrom('10s', '1m', '500ms'),
  processes: fc
    .tuple(
      fc.option(fc.constant({ name: 'step', role: 'init', command: 'true' }), { nil: undefined }),
      fc.option(
        fc.record(
          {
            name: fc.constant('proxy'),
            role: fc.constant('sidecar'),
            command: fc.constantFrom('sleep 10', ['sleep', '10']),
            readiness: fc.constantFrom({ probe: 'tcp://127.0.0.1:1' }, { probe: 'exec:true', period: '50ms' }, { probe: 'log:^up$' }),
            restart: fc.constantFrom('always', 'on-failure', 'never'),
            stopSignal: fc.constantFrom('SIGQUIT', 'SIGTERM'),
          },
          { requiredKeys: ['name', 'role', 'command'] },
        ),
        { nil: undefined },
      ),
      fc.record(
        {
          name: fc.constant('app'),
          role: fc.constant('app'),
          command: fc.constantFrom(['sleep', '1'], 'true'),
          successCodes: fc.constantFrom([143], [0]),
        },
        { requiredKeys: ['name', 'role', 'command'] },
      ),
      fc.option(fc.tuple(fc.constantFrom(...KEYS), configValue, fc.nat()), { nil: undefined, freq: 2 }),
    )
    .map(([step, proxy, app, extra]) => {
      // Copies: generated constants are shared between cases and must not change.
      const entries: Record<string, unknown>[] = [step, proxy, app].flatMap((entry) => (entry === undefined ? [] : [{ ...entry }]));
      if (extra !== undefined) {
        const [key, value, which] = extra;
        const target = entries[which % entries.length] as Record<string, unknown>;
        target[key] = value;
      }
      return entries;
    }),
});

/** A config object: mostly a processes list of entries that almost make sense. */
const configObject = fc.oneof(
  { weight: 3, arbitrary: nearlyValid },
  {
    weight: 3,
    arbitrary: fc.record(
      { processes: fc.array(processEntry, { maxLength: 4 }), grace: scalar, drain: scalar, rewrite: configValue },
      { requiredKeys: ['processes'] },
    ),
  },
  { weight: 2, arbitrary: configValue },
);

/** The YAML text of a value (stringify gives undefined for undefined itself). */
export const toYaml = (value: unknown): string => stringify(value) ?? '';

/** Text that YAML may or may not parse: a config with bytes cut out or spliced in, or YAML's own punctuation. */
const yamlText = fc.oneof(
  { weight: 4, arbitrary: configObject.map(toYaml) },
  {
    weight: 2,
    arbitrary: fc
      .tuple(
        configObject.map(toYaml),
        fc.nat(),
        fc.nat(8),
        fc.string({
          unit: fc.constantFrom(
            ':',
            '-',
            ' ',
            '\n',
            '\t',
            '[',
            ']',
            '{',
            '}',
            '&a',
            '*a',
            '!!str',
            '#',
            '"',
            "'",
            '|',
            '>',
            '<<: *a',
            '%YAML 1.2',
            '---',
            '...',
            '?',
            ',',
          ),
          maxLength: 6,
        }),
      )
      .map(([text, at, cut, splice]) => {
        const index = at % (text.length + 1);
        return text.slice(0, index) + splice + text.slice(index + cut);
      }),
  },
  {
    weight: 1,
    arbitrary: fc.string({
      unit: fc.constantFrom('a', '1', ':', '-', ' ', '\n', '\t', '[', ']', '{', '}', '&x', '*x', '!', '#', '"', "'", '|', '>', '?', ','),
      maxLength: 80,
    }),
  },
);

const FLAG_VALUES = {
  '--init': ['step=true', 'step=', '=true', 'bad name=true', 'step=sh -c "exit 0"'],
  '--sidecar': ['proxy=sleep 10', 'proxy', 'proxy=', 'app=sleep 1', 'proxy=sleep "unterminated'],
  '--external': [
    'envoy=istio',
    'envoy=comm:envoy',
    'envoy=nonsense',
    'proxy=linkerd',
    'proxy=announced:/handoff/proxy',
    'proxy=announced:',
  ],
  '--ready': [
    'proxy=tcp://127.0.0.1:1',
    'proxy=tcp://:x',
    'nobody=exec:true',
    'proxy=log:[',
    'proxy',
    'proxy=notify',
    'proxy=fd:3',
    'envoy=fd:1',
    'proxy=grpc://127.0.0.1:1/a.B',
  ],
  '--quit': ['envoy=http://127.0.0.1:15000/quitquitquit', 'envoy=ftp://x', 'proxy=http://x'],
  '--restart': ['proxy=always', 'step=always', 'proxy=sometimes', 'app=on-failure'],
  '--stop-signal': ['proxy=SIGQUIT', 'proxy=QUIT', 'proxy=SIGFOO', 'nobody=SIGTERM'],
  '--user': ['proxy=1000', 'proxy=nobody:nogroup', 'proxy=nosuchuser', 'proxy=1000:x'],
  '--grace': ['10s', '0s', 'x', '-1s', '99999999999s'],
  '--drain': ['5s', 'sh -c "sleep 1"', '', 'x y z'],
  '--rewrite': ['TERM:QUIT', 'SIGTERM:none', 'SIGKILL:TERM', 'x:y'],
  '--success-code': ['143', '0', '256', 'x'],
  '--log-level': ['debug', 'loud'],
  '--log-format': ['json', 'text', 'xml'],
  '--status-addr': ['127.0.0.1:0', ':9090', 'x', '[::1]:99999'],
  '--output': ['prefix', 'json', 'inherit', 'rainbow'],
  '--termination-log': ['/tmp/termination', 'none', 'relative'],
  '--control': ['/run/sidecar-init.sock', 'relative.sock', `/${'x'.repeat(200)}`],
  '--announce': ['/handoff/app', 'handoff/app', '', '/handoff/'],
  '--until': ['/handoff/proxy', '/handoff/proxy=ready', '/handoff/proxy=done', '=ready'],
  '--single-child': [],
} as const satisfies Record<string, readonly string[]>;

const flag: fc.Arbitrary<readonly string[]> = fc
  .constantFrom(...(Object.keys(FLAG_VALUES) as (keyof typeof FLAG_VALUES)[]))
  .chain((name): fc.Arbitrary<readonly string[]> => {
    const values: readonly string[] = FLAG_VALUES[name];
    return values.length === 0 ? fc.constant([name]) : fc.constantFrom(...values).map((value) => [name, value]);
  });

const ENV_VALUES = [
  '10s',
  'x',
  '',
  'true',
  'maybe',
  'TERM:QUIT,HUP:none',
  '143,x',
  'debug',
  'json',
  '127.0.0.1:0',
  'prefix',
  '/handoff/app=ready',
];
const ENV_NAMES = [
  'GRACE',
  'DRAIN',
  'REWRITE',
  'SINGLE_CHILD',
  'SUCCESS_CODE',
  'LOG_LEVEL',
  'LOG_FORMAT',
  'STATUS_ADDR',
  'TERMINATION_LOG',
  'CONTROL',
  'ANNOUNCE',
  'UNTIL',
  'OUTPUT',
];

export const configInputs = fc.record({
  mode: fc.constantFrom<readonly string[]>([], [], ['validate'], ['plan'], ['plan', '--json']),
  withFile: fc.constantFrom(true, true, true, false),
  yaml: yamlText,
  flags: fc.oneof(fc.constant([]), fc.array(flag, { maxLength: 5 })),
  app: fc.constantFrom<readonly string[]>([], ['--', 'sleep', '1'], ['sleep', '1'], ['--', ''], ['--', '--help']),
  env: fc.oneof(fc.constant({}), fc.dictionary(fc.constantFrom(...ENV_NAMES), fc.constantFrom(...ENV_VALUES), { maxKeys: 3 })),
});

export type ConfigInput = typeof configInputs extends fc.Arbitrary<infer T> ? T : never;
