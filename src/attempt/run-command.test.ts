import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

// execa is loaded with the first bounded command, never at start: a fresh Node
// process imports run-command.ts, and a resolve hook records whether anything
// resolved 'execa' before and after its first command.

const execFileAsync = promisify(execFile);
const RUN_BOUND_MS = 15_000;
const module = (file: string) => JSON.stringify(new URL(file, import.meta.url).pathname);

describe('runCommand', () => {
  it('loads execa with the first command, not when its module is imported', async () => {
    const script = `
      import { registerHooks } from 'node:module';
      const resolved = [];
      registerHooks({
        resolve(specifier, context, next) {
          if (specifier === 'execa') resolved.push(specifier);
          return next(specifier, context);
        },
      });
      const { runCommand } = await import(${module('./run-command.ts')});
      const { libuvChildren } = await import(${module('../process/child-registry.ts')});
      const beforeFirst = resolved.length;
      const request = { command: ['sh', '-c', 'exit 3'], env: {}, cwd: undefined };
      const outcome = await runCommand({ request, timeoutMs: 10000, label: 'exec:sh' }, new AbortController().signal);
      console.log(JSON.stringify({ beforeFirst, afterFirst: resolved.length, outcome, owned: [...libuvChildren] }));
    `;
    const { stdout } = await execFileAsync(process.execPath, ['--input-type=module', '-e', script], {
      timeout: RUN_BOUND_MS,
      killSignal: 'SIGKILL',
    });
    expect(JSON.parse(stdout)).toEqual({
      beforeFirst: 0,
      afterFirst: 1,
      outcome: { ok: false, reason: 'exec:sh: exited with code 3' },
      owned: [],
    });
  });
});
