import { execFileSync } from 'node:child_process';
import { readdirSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { APP_ONLY, dedent, load, problemsOf } from '../../test/support/config.ts';
import { EMPTY_CLI_INPUT } from './flags.ts';
import { ConfigError } from './config-error.ts';
import { MAX_CONFIG_BYTES } from './config-file.ts';
import { loadPlan } from './load-plan.ts';
import { useTempDirs } from '../../test/support/temp-dirs.ts';

// The config file as read from disk (a bound on its size, nothing that can
// block) and as parsed (YAML errors and every later problem at their line).

const tempDir = useTempDirs('config-file');

/** The reported lines of loading `path` from disk, or [] when the plan was built. */
function problemsReading(path: string): string[] {
  try {
    loadPlan({ cli: EMPTY_CLI_INPUT, configFile: path });
    return [];
  } catch (error) {
    if (error instanceof ConfigError) return error.problems.map((problem) => problem.text);
    throw error;
  }
}

const VALID = dedent(APP_ONLY);

describe('reading the config file', () => {
  it('reads a regular file, up to exactly 1 MiB', () => {
    const dir = tempDir();
    const small = join(dir, 'small.yaml');
    writeFileSync(small, VALID);
    expect(loadPlan({ cli: EMPTY_CLI_INPUT, configFile: small }).processes.map((spec) => spec.command)).toEqual([['python', 'job.py']]);
    // Padded with a comment to the limit, its last byte included: still a config.
    const last = 'grace: 25s';
    const full = join(dir, 'full.yaml');
    writeFileSync(full, `${VALID}#${'x'.repeat(MAX_CONFIG_BYTES - VALID.length - last.length - 2)}\n${last}`);
    expect(loadPlan({ cli: EMPTY_CLI_INPUT, configFile: full }).graceMs).toBe(25_000);
    const over = join(dir, 'over.yaml');
    writeFileSync(over, `${VALID}#${'x'.repeat(MAX_CONFIG_BYTES - VALID.length - 1)}\n`);
    expect(problemsReading(over)).toEqual([`${over}: cannot read the config file: larger than 1 MiB; a config is a few kilobytes`]);
  });

  it('refuses a directory, a device, a FIFO with no writer and a huge file, at once and naming what it is', () => {
    const dir = tempDir();
    const fifo = join(dir, 'config.fifo');
    execFileSync('mkfifo', [fifo]);
    const huge = join(dir, 'huge.yaml');
    writeFileSync(huge, '');
    truncateSync(huge, 2 * MAX_CONFIG_BYTES);
    expect([dir, '/dev/zero', fifo, huge].map(problemsReading)).toEqual([
      [`${dir}: cannot read the config file: is a directory, not a file`],
      ['/dev/zero: cannot read the config file: not a regular file (a device, a pipe or a socket?); give a YAML file'],
      [`${fifo}: cannot read the config file: not a regular file (a device, a pipe or a socket?); give a YAML file`],
      [`${huge}: cannot read the config file: larger than 1 MiB; a config is a few kilobytes`],
    ]);
  });

  it('reads what a file holds, not what its size says: /proc files say 0 bytes', () => {
    // "Linux" is read in full, so the problem is that it is no mapping, not that it is empty.
    expect(problemsReading('/proc/sys/kernel/ostype')[0]).toBe('/proc/sys/kernel/ostype:1:1: expected a mapping, got "Linux"');
    // Megabytes, though its size is 0: refused once the read passes the limit.
    expect(problemsReading('/proc/kallsyms')).toEqual([
      '/proc/kallsyms: cannot read the config file: larger than 1 MiB; a config is a few kilobytes',
    ]);
  });

  it('closes every file it opens, read or refused', () => {
    const dir = tempDir();
    const file = join(dir, 'config.yaml');
    writeFileSync(file, VALID);
    const open = () => readdirSync('/proc/self/fd').length;
    const before = open();
    for (let round = 0; round < 20; round += 1) {
      problemsReading(file);
      problemsReading(dir);
      problemsReading('/dev/zero');
    }
    expect(open()).toBe(before);
  });

  it('says why a file cannot be opened: missing, not readable (even by root), or the system error', () => {
    // Write-only even for root: procfs checks a sysctl's mode for root too. drop_caches is in every
    // Linux kernel (compact_memory only in one built with memory compaction).
    expect(problemsReading('/proc/sys/vm/drop_caches')).toEqual([
      '/proc/sys/vm/drop_caches: cannot read the config file: permission denied',
    ]);
    expect(problemsReading('/etc/passwd/config.yaml')).toEqual([
      "/etc/passwd/config.yaml: cannot read the config file: ENOTDIR: not a directory, open '/etc/passwd/config.yaml'",
    ]);
  });
});

describe('parsing the config file', () => {
  it('gives each YAML syntax error its line, unadorned, and looks for duplicate keys only in a file that parses', () => {
    expect(problemsOf({ yaml: 'grace: 1s\ngrace: 2s\nprocesses: [a\n' })).toEqual([
      'demo.yaml:4:1: invalid YAML: Flow sequence in block collection must be sufficiently indented and end with a ]',
    ]);
    expect(problemsOf({ yaml: 'grace: 1s\ngrace: 2s\nprocesses: [{ name: job, role: app, command: job }]\n' })).toEqual([
      'demo.yaml:2:1: invalid YAML: Map keys must be unique',
    ]);
  });

  it("adds the usual slip to an error of indentation, once a line, after the parser's own words", () => {
    const problems = problemsOf({ yaml: 'processes:\n  - name: app\n   role: app\n    command: job\n' });
    expect(problems).toEqual([
      'demo.yaml:3:1: invalid YAML: Sequence item without - indicator; a list item begins with "- "; if this line belongs to the item above, indent it to the column of that item\'s keys',
      'demo.yaml:3:10: invalid YAML: Nested mappings are not allowed in compact mappings',
      'demo.yaml:3:10: invalid YAML: Implicit keys need to be on a single line',
    ]);
    expect(problemsOf({ yaml: 'processes:\n\t- name: app\n' })).toEqual([
      'demo.yaml:2:1: invalid YAML: Tabs are not allowed as indentation; replace the tab that indents this line with spaces: YAML indents with spaces only',
    ]);
  });

  it('takes several merge keys in one mapping, and tells keys that are not plain values apart', () => {
    const yaml = `
      processes:
        - &a { name: a, role: init, command: a, env: { A: "1" } }
        - &b { name: b, role: init, command: b, cwd: /srv }
        - <<: *a
          <<: *b
          name: c
        - { name: job, role: app, command: job }
    `;
    expect(load({ yaml }).processes[2]).toMatchObject({ name: 'c', env: { A: '1' }, cwd: '/srv' });
    // Two different list keys are no duplicate; a key named "undefined" is found where it is written, before them or after.
    const listKeys = '? [a]\n: 1\n? [b]\n: 2\n';
    const job = 'processes: [{ name: job, role: app, command: job }]\n';
    expect(problemsOf({ yaml: `${listKeys}undefined: 3\n${job}` })).toEqual([
      expect.stringMatching(/^demo\.yaml:1:1 \["\[ a \]"\]: unknown key /),
      expect.stringMatching(/^demo\.yaml:1:1 \["\[ b \]"\]: unknown key /),
      expect.stringMatching(/^demo\.yaml:5:1 undefined: unknown key "undefined"; /),
    ]);
    expect(problemsOf({ yaml: `${job}undefined: 3\n${listKeys}` }).filter((line) => line.includes(' undefined: '))).toEqual([
      expect.stringMatching(/^demo\.yaml:2:1 undefined: unknown key "undefined"; /),
    ]);
  });

  it('keeps env values as written, those a merge key brings from anywhere included', () => {
    const yaml = `
      processes:
        - { name: a, role: init, command: a, env: &common { A: 1.10, B: 0x1F, C: True, D: 1e3 } }
        - name: b
          role: init
          command: b
          env:
            <<: *common
            <<: { E: 2.50 }
        - name: job
          role: app
          command: job
          env:
            <<: [{ F: 3.10 }, *common]
    `;
    const common = { A: '1.10', B: '0x1F', C: 'True', D: '1e3' };
    expect(load({ yaml }).processes.map((spec) => spec.env)).toEqual([common, { ...common, E: '2.50' }, { F: '3.10', ...common }]);
  });

  it('refuses an env that merges itself, or one mapping by many ways, at once and as YAML problems', () => {
    const job = (env: string) => `processes:\n  - name: job\n    role: app\n    command: job\n    env: ${env}\n`;
    expect(problemsOf({ yaml: job('&e { A: 1.10, <<: *e }') })).toEqual([
      'demo.yaml:5:28: invalid YAML: Excessive alias count indicates a resource exhaustion attack',
    ]);
    // Nine levels of nine merges each: 9^9 ways to the first mapping, each walked once.
    const levels = ['base: &m0 { A: 1.10 }'];
    for (let level = 1; level < 9; level += 1)
      levels.push(
        `l${level}: &m${level} { <<: [${Array(9)
          .fill(`*m${level - 1}`)
          .join(', ')}] }`,
      );
    expect(problemsOf({ yaml: `${levels.join('\n')}\n${job('{ <<: *m8 }')}` })).toEqual([
      'demo.yaml:2:16: invalid YAML: Excessive alias count indicates a resource exhaustion attack',
    ]);
  });

  it('finds a problem of a process written once and used by an alias where it is written', () => {
    const yaml = `
      processes:
        - &p { name: a, role: init, command: a, grace: soon }
        - *p
        - { name: job, role: app, command: job }
    `;
    expect(problemsOf({ yaml })).toEqual([
      'demo.yaml:2:10 processes[1].name: "a" is already the name of another process (see demo.yaml:2:10 processes[0].name)',
      'demo.yaml:2:43 processes[0].grace: "soon" is not a duration; use e.g. 500ms, 5s, 1m',
      'demo.yaml:2:43 processes[1].grace: "soon" is not a duration; use e.g. 500ms, 5s, 1m',
    ]);
  });

  it('puts what the YAML library refuses about aliases and merge keys at the alias or key to blame', () => {
    const problems = (...lines: string[]) => problemsOf({ yaml: `processes:\n${lines.map((line) => `  ${line}\n`).join('')}` });
    // An alias before its anchor: that alias, not an earlier one that resolves.
    expect(
      problems(
        '- &x { name: a, role: init, command: a }',
        '- *x',
        '- *later',
        '- *later',
        '- &later { name: job, role: app, command: job }',
      ),
    ).toEqual(['demo.yaml:4:5: invalid YAML: Unresolved alias (the anchor must be set before the alias): later']);
    // A merge of something that is not a mapping: the first such key, not the alias in it.
    expect(problems('- &x 1', '- name: job', '  <<: *x', '  <<: 2')).toEqual([
      'demo.yaml:4:5: invalid YAML: Merge sources must be maps or map aliases',
    ]);
    expect(problems('- &m { role: app }', '- name: job', '  command: job', '  <<: [*m, 1]')).toEqual([
      'demo.yaml:5:5: invalid YAML: Merge sources must be maps or map aliases',
    ]);
    // Too many aliases ("billion laughs"): the first alias, past a list of mappings merged as it should be.
    const laughs = ['a', 'b', 'c', 'd', 'e'].map((name, index) =>
      index === 0
        ? `- &${name} [1, 1, 1, 1, 1, 1, 1, 1, 1]`
        : `- &${name} [${Array(9)
            .fill(`*${'abcde'[index - 1]}`)
            .join(', ')}]`,
    );
    expect(
      problems('- &m { role: app }', '- { name: job, command: job, <<: [*m] }', ...laughs, `- [${Array(9).fill('*e').join(', ')}]`),
    ).toEqual(['demo.yaml:3:37: invalid YAML: Excessive alias count indicates a resource exhaustion attack']);
  });
});
