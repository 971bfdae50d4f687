import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The folder rules in .dependency-cruiser.cjs run over the real tree in
// `npm test`; here each rule is shown to bite: a small tree with one violating
// import per rule (and allowed imports beside them) must fail, naming the rule
// and the importing file, and must not flag what the rules allow.

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const DEPCRUISE = join(ROOT, 'node_modules', '.bin', 'depcruise');
const CONFIG = join(ROOT, '.dependency-cruiser.cjs');
/** Adds no-folder-cycles to dependency-cruiser's report; package.json's lint:deps uses it too. */
const REPORTER = `plugin:${join(ROOT, 'scripts', 'folder-cycles-reporter.mjs')}`;

const TREE: Readonly<Record<string, string>> = {
  'tsconfig.json': JSON.stringify({
    compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', allowImportingTsExtensions: true },
  }),
  'src/main.ts': "import { parse } from './cli/parse.ts';\nexport const main = parse;\n",
  'src/cli/parse.ts': 'export const parse = 1;\n',
  'src/plan/plan.ts': 'export type Plan = number;\nexport const isPlan = (plan: Plan) => plan > 0;\n',
  'src/plan/common.ts': "import { isPlan } from './plan.ts';\nexport const shared = isPlan;\n",
  'src/process/status.ts': 'export type Status = number;\nexport const isOk = (status: Status) => status === 0;\n',
  // Allowed: the reducer uses plan/ and its own folder.
  'src/lifecycle/allowed.ts':
    "import { shared } from '../plan/common.ts';\nimport { code } from './own.ts';\nexport const ok = [shared, code];\n",
  'src/lifecycle/own.ts': 'export const code = 1;\n',
  // Allowed: the runner uses the reducer, plan/ and the types of an edge; config uses plan/.
  'src/runner/allowed.ts':
    "import type { Status } from '../process/status.ts';\nimport { code } from '../lifecycle/own.ts';\nimport { shared } from '../plan/common.ts';\nexport const run = (s: Status) => [code, shared, s];\n",
  'src/config/uses-plan.ts': "import { shared } from '../plan/common.ts';\nexport const used = shared;\n",
  // Allowed: config, the runner and an edge use src/support/; support uses its own folder.
  'src/support/clock.ts': "import { base } from './base.ts';\nexport const now = () => base;\n",
  'src/support/base.ts': 'export const base = 0;\n',
  'src/config/uses-support.ts': "import { now } from '../support/clock.ts';\nexport const at = now;\n",
  'src/runner/uses-support.ts': "import { now } from '../support/clock.ts';\nexport const at = now;\n",
  'src/process/uses-support.ts': "import { now } from '../support/clock.ts';\nexport const at = now;\n",
  // Allowed: an edge uses the types of the runner's ports and the reducer's events.
  'src/runner/ports.ts': 'export interface Port { readonly name: string }\nexport const port = 1;\n',
  'src/externals/implements-port.ts': "import type { Port } from '../runner/ports.ts';\nexport const external: Port = { name: 'proxy' };\n",
  'src/runner/supervise.ts': 'export interface Supervision { readonly done: Promise<number> }\n',
  // Violations, one per rule.
  'src/plan/uses-process.ts': "import { isOk } from '../process/status.ts';\nexport const used = isOk;\n",
  'src/lifecycle/uses-process-type.ts': "import type { Status } from '../process/status.ts';\nexport const ok = (s: Status) => s;\n",
  'src/config/uses-process.ts': "import { isOk } from '../process/status.ts';\nexport const used = isOk;\n",
  'src/runner/uses-process-code.ts': "import { isOk } from '../process/status.ts';\nexport const ok = isOk;\n",
  'src/control/uses-runner-type.ts':
    "import type { Supervision } from '../runner/supervise.ts';\nexport const used = (s: Supervision) => s.done;\n",
  'src/probes/uses-runner-code.ts': "import { port } from '../runner/ports.ts';\nexport const used = port;\n",
  'src/status/uses-config-type.ts': "import type { Config } from '../config/config.ts';\nexport const used = (c: Config) => c;\n",
  'src/config/config.ts': 'export type Config = number;\n',
  'src/webhook/uses-reducer.ts': "import { code } from '../lifecycle/own.ts';\nexport const used = code;\n",
  'src/process/imports-main.ts': "import { main } from '../main.ts';\nexport const again = main;\n",
  'src/probes/spawns.ts': "import { spawn } from 'node:child_process';\nexport const start = spawn;\n",
  // Not even the spawner: the addon forks every long-lived child.
  'src/process/spawns.ts': "import { spawn } from 'node:child_process';\nexport const start = spawn;\n",
  'src/probes/common.ts': 'export const shared = 1;\n',
  'src/hooks/uses-probe.ts': "import { shared } from '../probes/common.ts';\nexport const hook = shared;\n",
  'src/hooks/common.ts': 'export const hookShared = 1;\n',
  'src/probes/uses-hook.ts': "import { hookShared } from '../hooks/common.ts';\nexport const probe = hookShared;\n",
  // A cycle is reported once, at its first module: one of types, one through a lazy import(), one across folders.
  'src/config/field.ts': "import type { Rule } from './rule.ts';\nexport type Field = Rule | number;\n",
  'src/config/rule.ts': "import type { Field } from './field.ts';\nexport type Rule = Field[];\n",
  'src/cli/args.ts': "import { check } from './check.ts';\nexport const args = [check];\n",
  'src/cli/check.ts': "export const check = async () => (await import('./args.ts')).args;\n",
  'src/announce/one.ts': "import { two } from '../output/two.ts';\nexport const one = two;\n",
  'src/output/two.ts': "export const two = async () => (await import('../announce/one.ts')).one;\n",
  // A folder cycle with no module cycle, of types alone, through a third folder: log/ → control/ → install/ → log/.
  'src/log/line.ts': 'export interface Line { readonly text: string }\n',
  'src/log/uses-control.ts': "import type { Reply } from '../control/reply.ts';\nexport const reply = (r: Reply) => r;\n",
  'src/control/reply.ts': "import type { Step } from '../install/step.ts';\nexport type Reply = Step;\n",
  'src/install/step.ts': "import type { Line } from '../log/line.ts';\nexport type Step = Line;\n",
  // The reducer and plan/ read no clock: not src/support/, not Node's timers.
  'src/lifecycle/reads-clock.ts': "import { now } from '../support/clock.ts';\nexport const at = now;\n",
  'src/plan/reads-time.ts': "import { performance } from 'node:perf_hooks';\nexport const at = () => performance.now();\n",
  'src/lifecycle/waits.ts': "import { setTimeout } from 'node:timers/promises';\nexport const wait = setTimeout;\n",
  'src/support/uses-process.ts': "import { isOk } from '../process/status.ts';\nexport const used = isOk;\n",
  'src/process/uses-test.ts': "import { helper } from '../../test/support/helper.ts';\nexport const used = helper;\n",
  'src/process/missing.ts': "import { gone } from './no-such-module.ts';\nexport const used = gone;\n",
  'src/externals/requests.ts': "import { request } from 'node:http';\nexport const send = request;\n",
  'src/http/uses-probe.ts': "import { shared } from '../probes/common.ts';\nexport const client = shared;\n",
  // Allowed: the client uses the shared attempt and plan/; a probe uses the client and node:http's types.
  'src/attempt/frame.ts': 'export const frame = 1;\n',
  'src/http/client.ts':
    "import { request } from 'node:http';\nimport { frame } from '../attempt/frame.ts';\nimport { shared } from '../plan/common.ts';\nexport const send = [request, frame, shared];\n",
  'src/probes/uses-client.ts':
    "import type { IncomingMessage } from 'node:http';\nimport { send } from '../http/client.ts';\nexport const probe = (m: IncomingMessage) => [send, m];\n",
  // Allowed: the bounded-command module loads execa on first use.
  'src/attempt/run-command.ts': "export const load = () => import('execa');\n",
  'src/attempt/spawns.ts': "import { spawn } from 'node:child_process';\nexport const start = spawn;\n",
  'src/hooks/uses-execa.ts': "import { execa } from 'execa';\nexport const run = execa;\n",
  'node_modules/execa/package.json': JSON.stringify({ name: 'execa', type: 'module', exports: './index.js' }),
  'node_modules/execa/index.js': 'export const execa = 1;\n',
  'test/support/helper.ts': 'export const helper = 1;\n',
};

let dir = '';

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'architecture-test-'));
  for (const [path, text] of Object.entries(TREE)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  }
});

afterAll(async () => {
  if (dir !== '') await rm(dir, { recursive: true, force: true });
});

/** Runs depcruise as `npm run lint:deps` does; its report has one "error RULE: FROM → TO" line per violation. */
function cruise(): Promise<{ readonly code: number; readonly violations: readonly string[] }> {
  return new Promise((resolve, reject) => {
    execFile(DEPCRUISE, ['src', 'test', '--config', CONFIG, '--output-type', REPORTER], { cwd: dir }, (error, stdout) => {
      if (error !== null && typeof error.code !== 'number') return reject(error);
      const violations = [...stdout.matchAll(/^\s*error (\S+): (\S+) →/gm)].map(([, rule, from]) => `${rule}: ${from}`);
      resolve({ code: error === null ? 0 : Number(error.code), violations });
    });
  });
}

describe('the folder rules', () => {
  it('fail on each violating import, naming the rule and the file, and allow the rest', async () => {
    const { code, violations } = await cruise();
    expect(code).not.toBe(0);
    expect([...violations].sort()).toEqual(
      [
        'no-import-cycles: src/announce/one.ts',
        'no-import-cycles: src/cli/args.ts',
        'no-import-cycles: src/config/field.ts',
        // Each import of a folder cycle, by its first file: the folder cycle of types alone, the module cycle
        // across folders, and the pairs the planted hooks ↔ probes, http ↔ probes and support ↔ process make.
        'no-folder-cycles: src/log/uses-control.ts',
        'no-folder-cycles: src/control/reply.ts',
        'no-folder-cycles: src/install/step.ts',
        'no-folder-cycles: src/announce/one.ts',
        'no-folder-cycles: src/output/two.ts',
        'no-folder-cycles: src/hooks/uses-probe.ts',
        'no-folder-cycles: src/probes/uses-hook.ts',
        'no-folder-cycles: src/http/uses-probe.ts',
        'no-folder-cycles: src/probes/uses-client.ts',
        'no-folder-cycles: src/support/uses-process.ts',
        'no-folder-cycles: src/process/uses-support.ts',
        'support-imports-nothing: src/support/uses-process.ts',
        'the-reducer-imports-only-plan: src/lifecycle/reads-clock.ts',
        'the-reducer-reads-no-clock: src/lifecycle/reads-clock.ts',
        'the-reducer-reads-no-clock: src/lifecycle/waits.ts',
        'the-reducer-reads-no-clock: src/plan/reads-time.ts',
        'config-reads-only: src/config/uses-process.ts',
        'edges-never-import-the-core: src/probes/uses-runner-code.ts',
        'edges-never-read-config: src/status/uses-config-type.ts',
        'edges-see-the-runner-only-through-its-ports: src/control/uses-runner-type.ts',
        'hooks-do-not-import-probes: src/hooks/uses-probe.ts',
        'no-unresolvable-imports: src/process/missing.ts',
        'nothing-imports-the-composition-root: src/process/imports-main.ts',
        'only-bounded-commands-use-execa: src/hooks/uses-execa.ts',
        'only-the-spawner-spawns: src/attempt/spawns.ts',
        'only-the-spawner-spawns: src/probes/spawns.ts',
        'only-the-spawner-spawns: src/process/spawns.ts',
        'plan-imports-nothing: src/plan/uses-process.ts',
        'probes-do-not-import-hooks: src/probes/uses-hook.ts',
        'requests-go-through-the-http-client: src/externals/requests.ts',
        'src-never-imports-test: src/process/uses-test.ts',
        'the-http-client-stays-below-its-users: src/http/uses-probe.ts',
        'the-reducer-imports-only-plan: src/lifecycle/uses-process-type.ts',
        'the-runner-uses-edges-through-ports: src/runner/uses-process-code.ts',
        'the-webhook-is-a-command: src/webhook/uses-reducer.ts',
      ].sort(),
    );
  });
});

describe("docs/architecture.md's folder table", () => {
  const architecture = readFileSync(join(ROOT, 'docs', 'architecture.md'), 'utf8');
  const table = architecture.slice(architecture.indexOf('| folder | may import | rule |'));
  const rows = table.slice(0, table.indexOf('\n\n')).split('\n').slice(2);
  const firstColumns = rows.map((row) => row.split(' | ')[0] ?? '');
  const config = createRequire(import.meta.url)(CONFIG) as { forbidden: { name: string; from: { path?: string | string[] } }[] };

  it('has a row for every folder of src/', () => {
    const folders = readdirSync(join(ROOT, 'src'), { withFileTypes: true }).filter((entry) => entry.isDirectory());
    for (const { name } of folders) {
      expect(
        firstColumns.some((column) => column.includes(`\`src/${name}/\``) || column.includes(`\`${name}\``)),
        name,
      ).toBe(true);
    }
  });

  it('names an export of every file of src/support/ in its row', () => {
    const supportRow = rows.find((row) => row.startsWith('| `src/support/`')) ?? '';
    const files = readdirSync(join(ROOT, 'src', 'support')).filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts'));
    for (const file of files) {
      const source = readFileSync(join(ROOT, 'src', 'support', file), 'utf8');
      const exported = [...source.matchAll(/^export (?:function|const|type|interface|class) (\w+)/gm)].map(([, name]) => name);
      expect(
        exported.some((name) => supportRow.includes(`\`${name}\``)),
        `${file} (${exported.join(', ')})`,
      ).toBe(true);
    }
  });

  it('names every rule of .dependency-cruiser.cjs', () => {
    // no-folder-cycles is the rule scripts/folder-cycles-reporter.mjs adds to the report.
    for (const name of [...config.forbidden.map((rule) => rule.name), 'no-folder-cycles'])
      expect(architecture, name).toContain(`\`${name}\``);
  });

  it('lists the edges the edge rules cover, no more and no fewer', () => {
    const edgesRow = firstColumns.find((column) => column.startsWith('| edges')) ?? '';
    const listed = [...edgesRow.matchAll(/`([a-z]+)`/g)].map(([, name]) => name);
    for (const rule of ['edges-never-import-the-core', 'edges-see-the-runner-only-through-its-ports', 'edges-never-read-config']) {
      const path = config.forbidden.find(({ name }) => name === rule)?.from.path;
      const covered = /^\^src\/\(([a-z|]+)\)\/$/.exec(String(path))?.[1]?.split('|');
      expect(covered, rule).toEqual(listed);
    }
  });
});

describe("docs/architecture.md's account of main.ts", () => {
  it('names every step runPlan() calls, in the order it calls them', () => {
    const main = readFileSync(join(ROOT, 'src', 'main.ts'), 'utf8');
    const own = new Set([...main.matchAll(/^(?:async )?function (\w+)/gm)].map(([, name]) => name));
    const body = main.slice(main.indexOf('async function runPlan('), main.indexOf('\n}\n', main.indexOf('async function runPlan(')));
    const steps = [...body.matchAll(/\b(\w+)\(/g)].map(([, name]) => name).filter((name) => name !== 'runPlan' && own.has(name));
    const architecture = readFileSync(join(ROOT, 'docs', 'architecture.md'), 'utf8');
    const account = architecture.slice(architecture.indexOf('**`src/main.ts`**'), architecture.indexOf('## The folders'));
    const named = [...account.matchAll(/`(\w+)`/g)].map(([, name]) => name).filter((name) => own.has(name) && steps.includes(name));
    expect(steps.length).toBeGreaterThan(5);
    expect(named).toEqual(steps);
  });
});
