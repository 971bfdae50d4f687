import { describe, expect, it, vi } from 'vitest';

// What a start builds of the config's zod schemas: the CLI's tables import
// every config module, so a schema at the top of one is built by every start,
// `--version` included (bench/README.md, "Goals"). zod is wrapped so that
// each call of one of its functions (z.string(), z.union(), …) is counted,
// but z.config(), which builds no schema (schema-fields.ts sets zod's
// options at load); the modules under test are imported only after, through it.
const calls = vi.hoisted(() => ({ names: [] as string[] }));
vi.mock('zod', async (importOriginal) => {
  const zod = await importOriginal<Record<string, unknown>>();
  const counted = (name: string, value: unknown) =>
    typeof value === 'function' && !/^[A-Z$]/.test(name) && name !== 'config'
      ? (...args: unknown[]) => {
          calls.names.push(name);
          return (value as (...args: unknown[]) => unknown)(...args);
        }
      : value;
  return Object.fromEntries(Object.entries(zod).map(([name, value]) => [name, counted(name, value)]));
});

const { parseArgs } = await import('./parse-args.ts');
const { loadPlan } = await import('../config/load-plan.ts');
const { NO_ACCOUNTS } = await import('../config/user.ts');

function schemaCallsOf(action: () => unknown): string[] {
  calls.names.length = 0;
  action();
  return [...calls.names];
}

describe('the config schemas, built on first use', () => {
  it('are not built by loading the CLI and the config modules', () => {
    expect(calls.names).toEqual([]);
  });

  it('are not built for --version, --help or a usage error', () => {
    expect(schemaCallsOf(() => parseArgs(['--version'], {}))).toEqual([]);
    expect(schemaCallsOf(() => parseArgs(['--help'], {}))).toEqual([]);
    expect(schemaCallsOf(() => parseArgs(['--no-such-flag'], {}))).toEqual([]);
  });

  it('are not built for a plain run, and only its own field for an option given', () => {
    const plain = parseArgs(['--', 'true'], {});
    if (plain.kind !== 'run') throw new Error(`expected a run, got ${plain.kind}`);
    expect(schemaCallsOf(() => loadPlan({ cli: plain.cli, accounts: NO_ACCOUNTS }))).toEqual([]);

    const withLevel = parseArgs(['--log-level', 'warn', '--', 'true'], {});
    if (withLevel.kind !== 'run') throw new Error(`expected a run, got ${withLevel.kind}`);
    const built = schemaCallsOf(() => loadPlan({ cli: withLevel.cli, accounts: NO_ACCOUNTS }));
    expect(built.length).toBeGreaterThan(0);
    // Built once: the same field checks the next run's option.
    expect(schemaCallsOf(() => loadPlan({ cli: withLevel.cli, accounts: NO_ACCOUNTS }))).toEqual([]);
  });

  it('still check what they are given: a bad value is refused as before', () => {
    const bad = parseArgs(['--log-level', 'loud', '--', 'true'], {});
    if (bad.kind !== 'run') throw new Error(`expected a run, got ${bad.kind}`);
    expect(() => loadPlan({ cli: bad.cli, accounts: NO_ACCOUNTS })).toThrow(/log level/);
  });
});
