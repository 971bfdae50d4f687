import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { createProblemList, fileOrigin, type Origin } from './config-error.ts';
import { fail, ok } from '../support/result.ts';
import {
  checkedBy,
  describeIssue,
  describeRange,
  describeValue,
  EXIT_CODE_RANGE,
  exactlyOneOf,
  FAILURE_THRESHOLD_RANGE,
  HTTP_STATUS_RANGE,
  ID_RANGE,
  mapping,
  MAX_RESTARTS_RANGE,
  oneOf,
  parsedWith,
  PORT_RANGE,
  reportIssues,
  unknownKeyMessage,
  wholeNumber,
} from './schema-fields.ts';

// The glue between zod and the messages users read: each helper's issues, as
// the file check words them (describeIssue) and places them (reportIssues).

/** The problems a schema's issues become, each as `path: message` (and `related` when there is one). */
function problems(schema: z.ZodType, value: unknown, originOf?: (path: readonly (string | number)[]) => Origin): string[] {
  const result = schema.safeParse(value, { error: describeIssue });
  if (result.success) throw new Error(`expected issues, got ${JSON.stringify(result.data)}`);
  const list = createProblemList();
  reportIssues(result.error.issues, list.report, originOf);
  return list.problems.map(({ origin, message, related }) => {
    const where = (each: Origin) => (each.kind === 'file' ? each.path.join('.') : JSON.stringify(each));
    return `${where(origin)}: ${message}${related === undefined ? '' : ` (see ${where(related)})`}`;
  });
}

describe('the file check', () => {
  it('skips zod’s compiled fast path, which would load Node’s fetch stack at each start', () => {
    expect(z.config().jitless).toBe(true);
  });
});

describe('parsedWith', () => {
  const even = parsedWith(z.number(), (n: number) => (n % 2 === 0 ? ok(`${n} is even`) : fail(`${n} is odd; give an even number`)));

  it('gives the parser’s value, or its message as the field’s issue', () => {
    expect(even.parse(4)).toBe('4 is even');
    expect(problems(z.object({ n: even }), { n: 3 })).toEqual(['n: 3 is odd; give an even number']);
    expect(even.safeParse(3, { reportInput: true }).error?.issues).toEqual([
      { code: 'custom', message: '3 is odd; give an even number', input: 3, path: [] },
    ]);
  });
});

describe('checkedBy', () => {
  const even = z.number().check(checkedBy((n: number) => (n % 2 === 0 ? ok(n) : fail(`${n} is odd`))));

  it('keeps the value as written, or gives the parser’s message as the field’s issue', () => {
    expect(even.parse(4)).toBe(4);
    expect(even.safeParse(3, { reportInput: true }).error?.issues).toEqual([{ code: 'custom', message: '3 is odd', input: 3, path: [] }]);
  });
});

describe('mapping', () => {
  it('names each unknown key on a line of its own, with the keys accepted and the closest one', () => {
    const schema = mapping({ command: z.string().optional(), after: z.string().optional() });
    expect(problems(schema, { comand: 'x', zzz: 1 })).toEqual([
      'comand: unknown key "comand" (did you mean command?); accepted here: command, after',
      'zzz: unknown key "zzz"; accepted here: command, after',
    ]);
  });

  it('lets describeKey word a key, and falls back to the usual message where it says nothing', () => {
    const schema = mapping({ command: z.string().optional() }, (key) => (key === 'grace' ? 'grace is global' : undefined));
    expect(problems(schema, { grace: '5s', comand: 'x' })).toEqual([
      'grace: grace is global',
      'comand: unknown key "comand" (did you mean command?); accepted here: command',
    ]);
  });

  it('words only the unknown keys: another issue of the mapping keeps zod’s path and the file check’s words', () => {
    expect(problems(mapping({ command: z.string() }), 'x')).toEqual([': expected a mapping, got "x"']);
  });
});

describe('unknownKeyMessage', () => {
  it('suggests from the candidates, which may be more than the keys accepted', () => {
    expect(unknownKeyMessage('stopSignl', ['command'], ['command', 'stopSignal'])).toBe(
      'unknown key "stopSignl" (did you mean stopSignal?); accepted here: command',
    );
    expect(unknownKeyMessage('stopSignl', ['command'])).toBe('unknown key "stopSignl"; accepted here: command');
  });
});

describe('exactlyOneOf', () => {
  const schema = z
    .object({ exec: z.string().optional(), http: z.string().optional(), grace: z.string().optional() })
    .check(z.superRefine(exactlyOneOf(['exec', 'http']), { when: () => true }));

  it('takes a mapping with one of the keys', () => {
    expect(schema.parse({ http: 'u' })).toEqual({ http: 'u' });
    expect(schema.parse({ exec: 'x', grace: '1s' })).toEqual({ exec: 'x', grace: '1s' });
  });

  it('names the keys when none or more than one is given', () => {
    expect(problems(schema, { grace: '1s' })).toEqual([': give one of exec or http']);
    expect(problems(schema, { exec: 'x', http: 'u' })).toEqual([': give only one of exec or http; this has exec and http']);
    expect(schema.safeParse({}, { reportInput: true }).error?.issues).toEqual([
      { code: 'custom', message: 'give one of exec or http', input: {}, path: [] },
    ]);
  });

  it('counts a key written as undefined as not given, and says nothing of a value that is not a mapping', () => {
    expect(problems(schema, { exec: undefined })).toEqual([': give one of exec or http']);
    const check = exactlyOneOf(['exec', 'http']);
    const issues: unknown[] = [];
    for (const value of ['exec', ['exec', 'http'], null]) check(value, { addIssue: (issue: unknown) => issues.push(issue) } as never);
    expect(issues).toEqual([]);
  });
});

describe('oneOf', () => {
  it('names what the value should be and the words, listed as asked', () => {
    expect(problems(z.object({ level: oneOf('a log level', ['debug', 'info']) }), { level: 'loud' })).toEqual([
      'level: "loud" is not a log level; use debug or info',
    ]);
    const commas = oneOf('a log level', ['debug', 'info', 'warn'], (words) => words.join(', '));
    expect(problems(commas, 3)).toEqual([': 3 is not a log level; use debug, info, warn']);
  });
});

describe('describeIssue', () => {
  it('names the type expected and the value received', () => {
    const fields = z.object({
      s: z.string(),
      n: z.number(),
      b: z.boolean(),
      l: z.array(z.string()),
      m: z.object({}),
      r: z.record(z.string(), z.string()),
    });
    expect(problems(fields, { s: 1, n: 'x', b: null, l: {}, m: [], r: true })).toEqual([
      's: expected a string, got 1',
      'n: expected a number, got "x"',
      'b: expected a boolean, got an empty value (null)',
      'l: expected a list, got a mapping',
      'm: expected a mapping, got a list',
      'r: expected a mapping, got true',
    ]);
  });

  it('says a missing field is required, and names a type it has no words for as zod does', () => {
    expect(problems(z.object({ s: z.string(), i: z.bigint() }), { i: 1 })).toEqual([
      's: is required; give a string',
      'i: expected bigint, got 1',
    ]);
  });

  it('names the branches of a union by their types, or "another value" when none is a type', () => {
    expect(problems(z.union([z.string(), z.number()]), true)).toEqual([': expected a string or a number, got true']);
    expect(problems(z.union([z.literal('a'), z.literal('b')]), 'c')).toEqual([': expected another value, got "c"']);
  });

  it('lists the values accepted of a literal', () => {
    expect(problems(z.literal(['on', 'off']), 'up')).toEqual([': "up" is not accepted; use on, off']);
  });

  it('says how many items an empty list needs, and leaves other sizes to zod', () => {
    expect(problems(z.array(z.string()).min(1), [])).toEqual([': is an empty list; give at least 1 item']);
    expect(problems(z.string().min(2), 'a')).toEqual([': Too small: expected string to have >=2 characters']);
  });

  it('leaves other issues to zod', () => {
    expect(describeIssue({ code: 'not_multiple_of', divisor: 2, input: 3, path: [] } as never)).toBeUndefined();
  });
});

describe('describeValue', () => {
  it('quotes a string, cut to 60 characters', () => {
    expect(describeValue('a'.repeat(60))).toBe(`"${'a'.repeat(60)}"`);
    expect(describeValue(`${'a'.repeat(57)}bcde`)).toBe(`"${'a'.repeat(57)}..."`);
  });

  it('names an empty value and collections, and writes anything else as JavaScript does', () => {
    expect([null, [], {}, 3, false, undefined].map(describeValue)).toEqual([
      'an empty value (null)',
      'a list',
      'a mapping',
      '3',
      'false',
      'undefined',
    ]);
  });
});

describe('reportIssues', () => {
  it('reports under a prefix, list indexes as numbers', () => {
    const result = z.object({ list: z.array(z.string()) }).safeParse({ list: ['a', 2] }, { error: describeIssue });
    const list = createProblemList();
    reportIssues(result.error!.issues, list.report, undefined, ['processes', 0]);
    expect(list.problems).toEqual([
      { origin: fileOrigin('processes', 0, 'list', 1), message: 'expected a string, got 2', related: undefined },
    ]);
  });

  it('gives an unknown key the plain message when the mapping’s message has no line for it', () => {
    const list = createProblemList();
    reportIssues([{ code: 'unrecognized_keys', keys: ['a', 'b'], message: 'a is global', path: ['x'], input: {} } as never], list.report);
    expect(list.problems.map((problem) => [problem.origin, problem.message])).toEqual([
      [fileOrigin('x', 'a'), 'a is global'],
      [fileOrigin('x', 'b'), 'unknown key "b"'],
    ]);
  });

  it('reports the issues of the one branch of a union that took the value’s type', () => {
    const probe = z.union([z.string(), z.object({ http: z.string() })]);
    expect(problems(z.object({ probe }), { probe: { http: 1 } })).toEqual(['probe.http: expected a string, got 1']);
    const items = z.union([z.string(), z.array(z.string())]);
    expect(problems(items, ['a', 2])).toEqual(['1: expected a string, got 2']);
  });

  it('reports a union at its own path when no branch or several took the value’s type', () => {
    expect(problems(z.object({ v: z.union([z.string(), z.number()]) }), { v: true })).toEqual([
      'v: expected a string or a number, got true',
    ]);
    const both = z.union([z.object({ a: z.string() }), z.object({ b: z.string() })]);
    expect(problems(z.object({ v: both }), { v: {} })).toEqual(['v: expected another value, got a mapping']);
  });

  it('names a sibling key as the related place of a custom issue that gives one', () => {
    const rewrite = z.record(z.string(), z.string()).check(
      z.superRefine((_value, context) => {
        context.addIssue({ code: 'custom', message: 'TERM is already rewritten', path: ['SIGTERM'], params: { relatedKey: 'TERM' } });
        context.addIssue({ code: 'custom', message: 'no value', path: ['SIGHUP'], params: {} });
      }),
    );
    expect(problems(z.object({ rewrite }), { rewrite: {} })).toEqual([
      'rewrite.SIGTERM: TERM is already rewritten (see rewrite.TERM)',
      'rewrite.SIGHUP: no value',
    ]);
    expect(problems(z.object({ signals: z.object({ rewrite }) }), { signals: { rewrite: {} } })).toEqual([
      'signals.rewrite.SIGTERM: TERM is already rewritten (see signals.rewrite.TERM)',
      'signals.rewrite.SIGHUP: no value',
    ]);
  });

  it('reads no related key from an issue that is not custom', () => {
    const list = createProblemList();
    reportIssues(
      [{ code: 'invalid_type', expected: 'string', message: 'm', path: ['a'], params: { relatedKey: 'b' } } as never],
      list.report,
    );
    expect(list.problems).toEqual([{ origin: fileOrigin('a'), message: 'm', related: undefined }]);
  });

  it('puts every problem at the one place originOf gives (a flag)', () => {
    const flag: Origin = { kind: 'flag', flag: '--probe', value: 'x' };
    expect(problems(z.object({ a: z.string(), b: z.string() }), {}, () => flag)).toEqual([
      `${JSON.stringify(flag)}: is required; give a string`,
      `${JSON.stringify(flag)}: is required; give a string`,
    ]);
  });
});

describe('whole-number ranges', () => {
  it('are those of exit codes, HTTP statuses, ports, thresholds, restarts and ids', () => {
    expect(
      [EXIT_CODE_RANGE, HTTP_STATUS_RANGE, PORT_RANGE, FAILURE_THRESHOLD_RANGE, MAX_RESTARTS_RANGE, ID_RANGE].map(describeRange),
    ).toEqual([
      'use a whole number from 0 to 255',
      'use a whole number from 100 to 599',
      'use a whole number from 1 to 65535',
      'use a whole number of 1 or more',
      'use a whole number of 0 or more',
      'use a whole number from 0 to 2147483647',
    ]);
    expect(
      [EXIT_CODE_RANGE, HTTP_STATUS_RANGE, PORT_RANGE, FAILURE_THRESHOLD_RANGE, MAX_RESTARTS_RANGE, ID_RANGE].map((range) => range.what),
    ).toEqual(['an exit code', 'an HTTP status', 'a port', 'a failure threshold', 'a number of restarts', 'a uid']);
  });
});

describe('wholeNumber', () => {
  const port = wholeNumber('The port.', PORT_RANGE);

  it('checks the range, and tells editors the type and bounds', () => {
    expect(port.parse(1)).toBe(1);
    expect(problems(z.object({ port }), { port: 0 })).toEqual(['port: 0 is not a port; use a whole number from 1 to 65535']);
    expect(z.toJSONSchema(port)).toMatchObject({ description: 'The port.', type: 'integer', minimum: 1, maximum: 65_535 });
  });
});
