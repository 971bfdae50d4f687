import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
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

const TREE: Readonly<Record<string, string>> = {
  'tsconfig.json': JSON.stringify({
    compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', allowImportingTsExtensions: true },
  }),
  'src/main.ts': "import { parse } from './cli/parse.ts';\nexport const main = parse;\n",
  'src/cli/parse.ts': 'export const parse = 1;\n',
  'src/util/assert.ts': 'export const assert = 1;\n',
  'src/process/status.ts': 'export type Status = number;\nexport const isOk = (status: Status) => status === 0;\n',
  // Allowed: a type from another folder, code from its own folder and util/.
  'src/lifecycle/allowed.ts':
    "import type { Status } from '../process/status.ts';\nimport { assert } from '../util/assert.ts';\nimport { code } from './own.ts';\nexport const ok = (s: Status) => [assert, code, s];\n",
  'src/lifecycle/own.ts': 'export const code = 1;\n',
  // Violations, one per rule.
  'src/lifecycle/uses-process-code.ts': "import { isOk } from '../process/status.ts';\nexport const ok = isOk;\n",
  'src/process/imports-main.ts': "import { main } from '../main.ts';\nexport const again = main;\n",
  'src/probes/spawns.ts': "import { spawn } from 'node:child_process';\nexport const start = spawn;\n",
  'src/probes/shared.ts': 'export const shared = 1;\n',
  'src/hooks/uses-probe.ts': "import { shared } from '../probes/shared.ts';\nexport const hook = shared;\n",
  'src/hooks/shared.ts': 'export const hookShared = 1;\n',
  'src/probes/uses-hook.ts': "import { hookShared } from '../hooks/shared.ts';\nexport const probe = hookShared;\n",
  'src/process/uses-test.ts': "import { helper } from '../../test/support/helper.ts';\nexport const used = helper;\n",
  // Allowed: anything importing src/plan/, and src/plan/ importing its own folder.
  'src/plan/pattern.ts': "import { shared } from './shared.ts';\nexport const pattern = shared;\n",
  'src/plan/shared.ts': 'export const shared = 1;\n',
  'src/config/uses-plan.ts': "import { pattern } from '../plan/pattern.ts';\nexport const used = pattern;\n",
  'src/plan/uses-util.ts': "import { assert } from '../util/assert.ts';\nexport const used = assert;\n",
  'src/process/missing.ts': "import { gone } from './no-such-module.ts';\nexport const used = gone;\n",
  'src/externals/requests.ts': "import { request } from 'node:http';\nexport const send = request;\n",
  'src/http/uses-probe.ts': "import { shared } from '../probes/shared.ts';\nexport const client = shared;\n",
  // Allowed: the client uses the shared attempt and util; a probe uses the client and node:http's types.
  'src/attempt/frame.ts': 'export const frame = 1;\n',
  'src/http/client.ts':
    "import { request } from 'node:http';\nimport { frame } from '../attempt/frame.ts';\nimport { assert } from '../util/assert.ts';\nexport const send = [request, frame, assert];\n",
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
    execFile(DEPCRUISE, ['src', 'test', '--config', CONFIG], { cwd: dir }, (error, stdout) => {
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
        'hooks-do-not-import-probes: src/hooks/uses-probe.ts',
        'lifecycle-imports-only-types: src/lifecycle/uses-process-code.ts',
        'no-unresolvable-imports: src/process/missing.ts',
        'nothing-imports-the-composition-root: src/process/imports-main.ts',
        'only-bounded-commands-use-execa: src/hooks/uses-execa.ts',
        'only-the-spawner-spawns: src/attempt/spawns.ts',
        'only-the-spawner-spawns: src/probes/spawns.ts',
        'plan-imports-nothing: src/plan/uses-util.ts',
        'probes-do-not-import-hooks: src/probes/uses-hook.ts',
        'src-never-imports-test: src/process/uses-test.ts',
        'requests-go-through-the-http-client: src/externals/requests.ts',
        'the-http-client-stays-below-its-users: src/http/uses-probe.ts',
      ].sort(),
    );
  });
});
