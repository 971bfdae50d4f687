import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { loadPlan } from '../config/load-plan.ts';
import { parseArgs } from './parse-args.ts';
import { propertyParameters } from '../../test/support/property.ts';

// Random YAML documents, flag sets and SIDECAR_INIT_* variables through the
// path main.ts takes (parseArgs, then loadPlan with the file read from
// memory): every outcome is a plan, a usage error, or a list of problems that
// each say where (FILE:LINE:COL and the field, or the flag and its value).
// Anything else thrown is an internal error, the bug this test hunts. A
// failure prints its seed and path; test/support/property.ts says how to
// replay it.

const RUNS = 4_000;
const CONFIG_FILE = 'fuzz.yaml';

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
] as const;
const KEYS = [
  'processes',
  'grace',
  'logLevel',
  'logFormat',
  'statusAddr',
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
const toYaml = (value: unknown): string => stringify(value) ?? '';

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
  '--external': ['envoy=istio', 'envoy=comm:envoy', 'envoy=nonsense', 'proxy=linkerd'],
  '--ready': ['proxy=tcp://127.0.0.1:1', 'proxy=tcp://:x', 'nobody=exec:true', 'proxy=log:[', 'proxy'],
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
  '--single-child': [],
} as const satisfies Record<string, readonly string[]>;

const flag: fc.Arbitrary<readonly string[]> = fc
  .constantFrom(...(Object.keys(FLAG_VALUES) as (keyof typeof FLAG_VALUES)[]))
  .chain((name): fc.Arbitrary<readonly string[]> => {
    const values: readonly string[] = FLAG_VALUES[name];
    return values.length === 0 ? fc.constant([name]) : fc.constantFrom(...values).map((value) => [name, value]);
  });

const ENV_VALUES = ['10s', 'x', '', 'true', 'maybe', 'TERM:QUIT,HUP:none', '143,x', 'debug', 'json', '127.0.0.1:0', 'prefix'];
const ENV_NAMES = ['GRACE', 'DRAIN', 'REWRITE', 'SINGLE_CHILD', 'SUCCESS_CODE', 'LOG_LEVEL', 'LOG_FORMAT', 'STATUS_ADDR', 'OUTPUT'];

const inputs = fc.record({
  mode: fc.constantFrom<readonly string[]>([], [], ['validate'], ['plan'], ['plan', '--json']),
  withFile: fc.constantFrom(true, true, true, false),
  yaml: yamlText,
  flags: fc.oneof(fc.constant([]), fc.array(flag, { maxLength: 5 })),
  app: fc.constantFrom<readonly string[]>([], ['--', 'sleep', '1'], ['sleep', '1'], ['--', ''], ['--', '--help']),
  env: fc.oneof(fc.constant({}), fc.dictionary(fc.constantFrom(...ENV_NAMES), fc.constantFrom(...ENV_VALUES), { maxKeys: 3 })),
});

/** Where a problem is: the file with line and column (and the field), or the flag, variable or operands it came from. */
const LOCATED = new RegExp(`^(${CONFIG_FILE.replace('.', '\\.')}:\\d+:\\d+( |$)|--|SIDECAR_INIT_|-- |command line$)`);

type Input = typeof inputs extends fc.Arbitrary<infer T> ? T : never;
type Outcome =
  | { readonly kind: 'usage'; readonly output: string }
  | { readonly kind: 'plan' }
  | { readonly kind: 'problems'; readonly locations: string[] };

/** argv, variables and file as main.ts takes them: parseArgs, then loadPlan reading the file from memory. */
function configure({ mode, withFile, yaml, flags, app, env }: Input): Outcome {
  const argv = [...mode, ...(withFile ? ['-c', CONFIG_FILE] : []), ...flags.flat(), ...app];
  const variables = Object.fromEntries(Object.entries(env).map(([name, value]) => [`SIDECAR_INIT_${name}`, value]));
  const command = parseArgs(argv, variables);
  if (command.kind === 'exit') {
    if (command.code !== 0 && command.output.trim() === '') throw new Error(`usage error ${command.code} without a message`);
    return { kind: 'usage', output: command.output };
  }
  const readFile = (path: string) => {
    if (path !== CONFIG_FILE) throw Object.assign(new Error(`ENOENT: ${path}`), { code: 'ENOENT' });
    return yaml;
  };
  let plan: ReturnType<typeof loadPlan>;
  try {
    plan = loadPlan({ ...command, readFile, identity: command.kind === 'run' ? { uid: 0, gid: 0 } : undefined });
  } catch (error) {
    const problems = (error as { code?: unknown; problems?: unknown }).problems;
    if ((error as { code?: unknown }).code !== 'CONFIG_INVALID' || !Array.isArray(problems)) throw error;
    if (problems.length === 0) throw new Error('a config error without problems');
    for (const problem of problems as { location: string; text: string }[]) {
      if (!LOCATED.test(problem.location)) throw new Error(`a problem that does not say where: ${problem.text}`);
    }
    return { kind: 'problems', locations: problems.map((problem: { location: string }) => problem.location) };
  }
  const names = plan.processes.map((spec) => spec.name);
  if (plan.processes.at(-1)?.role !== 'app' || plan.processes.filter((spec) => spec.role === 'app').length !== 1)
    throw new Error(`a plan whose app is not exactly one, last: ${names.join(', ')}`);
  if (new Set(names).size !== names.length) throw new Error(`a plan with a name twice: ${names.join(', ')}`);
  for (const spec of plan.processes) {
    const unknown = spec.after.filter((name) => !names.includes(name));
    if (unknown.length > 0) throw new Error(`${spec.name} waits for unknown ${unknown.join(', ')}`);
  }
  return { kind: 'plan' };
}

const fileOnly = (yaml: string): Input => ({ mode: [], withFile: true, yaml, flags: [], app: [], env: {} });

describe('configuration from random files, flags and variables', () => {
  it('gives a plan or problems that each say where, never an internal error', () => {
    fc.assert(
      fc.property(inputs, (input) => {
        configure(input);
      }),
      propertyParameters(RUNS),
    );
  });

  // Shapes random text rarely reaches: each is answered with located problems, not a crash or a hang.
  it.each([
    ['flow collections nested 20,000 deep', `${'['.repeat(20_000)}${']'.repeat(20_000)}`],
    ['block lists nested 3,000 deep', Array.from({ length: 3_000 }, (_, depth) => `${' '.repeat(depth)}- `).join('\n')],
    [
      'an alias bomb ("billion laughs")',
      [
        'a: &a [x, x, x, x, x, x, x, x, x]',
        ...'bcdef'.split('').map((name, index) => `${name}: &${name} [${Array(9).fill(`*${'abcde'[index]}`).join(', ')}]`),
        'processes: *f',
      ].join('\n'),
    ],
    ['a binary tag', 'processes: !!binary aGVsbG8='],
    ['a __proto__ key', 'processes:\n  - __proto__: { role: app }\n    name: app\n    command: ["true"]'],
  ])('answers %s with located problems', (_shape, yaml) => {
    expect(configure(fileOnly(yaml)).kind).toBe('problems');
  });

  // Found by the property above: YAML refused while building its value (not while parsing) had no line.
  it('names the line of an alias used before its anchor', () => {
    const yaml = ['processes:', '  - name: app', '    role: app', '    command: *later', '    env: &later {}', ''].join('\n');
    expect(configure(fileOnly(yaml))).toEqual({ kind: 'problems', locations: [`${CONFIG_FILE}:4:14`] });
  });

  it('names the line of a merge key whose value is not a mapping', () => {
    const yaml = ['processes:', '  - name: app', '    role: app', '    command: ["true"]', '    <<: 3', ''].join('\n');
    expect(configure(fileOnly(yaml))).toEqual({ kind: 'problems', locations: [`${CONFIG_FILE}:5:5`] });
  });
});
