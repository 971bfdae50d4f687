import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { JSON_SCHEMA_FILE } from '../src/config/json-schema.ts';
import { readPage } from './support/docs.ts';
import { useHarness } from './support/harness.ts';
import { runSupervisor } from './support/supervisor.ts';

// `sidecar-init schema`: the JSON Schema travels with the executable, so an
// editor can check a config file outside this repository.

const { track } = useHarness();

describe('sidecar-init schema', () => {
  it('prints the published JSON Schema, from the executable itself', async () => {
    const run = track(await runSupervisor(['schema']));
    expect(run.code).toBe(0);
    expect(run.stdout()).toBe(readFileSync(JSON_SCHEMA_FILE, 'utf8'));
    expect(JSON.parse(run.stdout())).toMatchObject({ $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object' });
    expect(run.stderr()).toBe('');
  });

  it('takes no arguments: exit 2 with the usage; --help exits 0', async () => {
    const wrong = track(await runSupervisor(['schema', 'out.json']));
    expect(wrong.code).toBe(2);
    expect(wrong.stderr()).toContain('schema takes no arguments, got "out.json": sidecar-init schema > sidecar-init.schema.json');
    const help = track(await runSupervisor(['schema', '--help']));
    expect(help.code).toBe(0);
    expect(help.stdout()).toMatch(/^Usage: sidecar-init schema\n/);
  });

  it('is how the docs tell a user to point an editor at it', () => {
    const page = readPage('docs/configuration.md');
    expect(page).toContain('\nsidecar-init schema > sidecar-init.schema.json\n');
    expect(page).toContain('# yaml-language-server: $schema=sidecar-init.schema.json\n');
  });
});
