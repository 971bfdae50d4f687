import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { GLOBAL_OPTION_NAMES, GLOBAL_OPTIONS, type OptionSpec, optionFlag, optionVariable } from '../src/config/global-options.ts';
import { JSON_SCHEMA_FILE } from '../src/config/json-schema.ts';
import { PRESETS } from '../src/plan/presets.ts';
import { statusMetrics } from '../src/status/status-metrics.ts';
import { VERDICT_MEMORY_LIMITS } from '../src/webhook/remember-verdicts.ts';
import { REVIEW_LIMITS } from '../src/webhook/review-limits.ts';
import { WEBHOOK_SERVER_LIMITS } from '../src/webhook/serve-webhook.ts';
import type { ProcessSnapshot } from '../src/plan/status-snapshot.ts';
import { NATIVE_DIR_ENV } from '../src/os/embedded-addon.ts';
import { NATIVE_ADDON_ENV } from '../src/os/native.ts';
import { codeSpans, fencedBlocks, plainCell, REPO_ROOT, readPage, tableWithHeader } from './support/docs.ts';
import { runSupervisor } from './support/supervisor.ts';

// The reference tables of docs/ against the code they describe: a row per
// flag, variable, preset, config key and plan field the code has, no row the
// code does not have, and what each row says where the code says it too.

/** The config file's variable, which --help names as the default of -c. */
const CONFIG_ENV = 'SIDECAR_INIT_CONFIG';
const work = mkdtempSync(join(tmpdir(), 'sidecar-init-docs-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('docs/configuration.md', () => {
  it('has a row per flag of a run, in the order --help lists them, written as --help writes them', async () => {
    const help = await runSupervisor(['--help']);
    expect(help.code).toBe(0);
    const options = help.stdout().slice(help.stdout().indexOf('\nOptions:\n'));
    // An option's line starts two spaces in; its description follows after two or more spaces, or on the lines below.
    const listed = [...options.matchAll(/^ {2}(-\S.*?)(?: {2,}|$)/gm)].map((match) => match[1]!.replace(/<([^>]+)>/g, '$1').toLowerCase());
    for (const option of GLOBAL_OPTION_NAMES)
      expect(listed).toContainEqual(expect.stringMatching(new RegExp(`^${optionFlag(option)}( |$)`)));
    for (const flag of ['--init', '--sidecar', '--external', '--ready', '--quit', '--restart', '--stop-signal', '--user'])
      expect(listed).toContainEqual(expect.stringMatching(new RegExp(`^${flag} `)));
    const table = tableWithHeader('docs/configuration.md', ['flag', 'meaning']);
    // --help writes <name=cmd>, the table NAME=CMD: the same words, whatever their case.
    expect(table.rows.map((row) => plainCell(row[0]!).toLowerCase())).toEqual(listed);
    expect(help.stdout()).toContain(`$${CONFIG_ENV}`);
  });

  it('names every option that overrides the file in "Flags and the file"', () => {
    const text = readPage('docs/configuration.md');
    const section = text.slice(text.indexOf('## Flags and the file'), text.indexOf('## The YAML file'));
    for (const option of GLOBAL_OPTION_NAMES) expect(section).toContain(`\`${optionFlag(option)}\``);
    for (const flag of ['--ready', '--restart', '--stop-signal', '--user', '--quit']) expect(section).toContain(`\`${flag}\``);
  });

  it('has a row per variable sidecar-init reads, with the flag and the file key of each option', () => {
    const table = tableWithHeader('docs/configuration.md', ['variable', 'flag', 'file', 'value']);
    const rows = table.rows.map(([variable = '', flag = '', file = '']) => ({
      variable: plainCell(variable),
      flag: plainCell(flag),
      file,
    }));
    const options = GLOBAL_OPTION_NAMES.map((option) => {
      const spec: OptionSpec = GLOBAL_OPTIONS[option];
      return { variable: optionVariable(option), flag: optionFlag(option), key: spec.appField ?? option };
    });
    expect(rows.map((row) => row.variable)).toEqual([
      CONFIG_ENV,
      ...options.map((option) => option.variable),
      NATIVE_DIR_ENV,
      NATIVE_ADDON_ENV,
    ]);
    for (const option of options) {
      const row = rows.find((candidate) => candidate.variable === option.variable);
      expect(row?.flag).toBe(option.flag);
      expect(codeSpans(row?.file ?? '')).toEqual([option.key]);
    }
  });

  it('has a row for every key of the file, and no key the schema does not have', async () => {
    const schema = (await import(JSON_SCHEMA_FILE.href, { with: { type: 'json' } })).default as JsonSchema;
    const processKeys = schema.properties.processes.items.oneOf.flatMap((role) => Object.keys(role.properties));
    const fileKeys = new Set([...Object.keys(schema.properties), ...processKeys]);
    const everywhere = new Set<string>();
    const walk = (node: unknown): void => {
      if (typeof node !== 'object' || node === null) return;
      for (const [key, value] of Object.entries(node)) {
        if (key === 'properties' && typeof value === 'object' && value !== null)
          for (const name of Object.keys(value)) everywhere.add(name);
        walk(value);
      }
    };
    walk(schema);
    const table = tableWithHeader('docs/configuration.md', ['key', 'where', 'meaning (default)']);
    const listed = table.rows.flatMap((row) => codeSpans(row[0]!));
    for (const key of fileKeys) expect(listed).toContain(key);
    for (const key of listed) expect(everywhere).toContain(key);
  });

  it('shows what `plan --json` prints for the demo', async () => {
    const example = fencedBlocks(readPage('docs/configuration.md')).find((block) =>
      block.body.includes('plan -c examples/demo.yaml --json'),
    );
    const [, shown] = example?.body.split('\n') ?? [];
    const run = await runSupervisor(['plan', '--json', '-c', `${REPO_ROOT}examples/demo.yaml`]);
    const { start, stop, graceMs } = JSON.parse(run.stdout()) as Record<string, unknown>;
    expect(shown).toBe(JSON.stringify({ start, stop, graceMs }));
  });

  it('describes every field `plan --json` prints, and no other', async () => {
    const config = join(work, 'plan.yaml');
    writeFileSync(
      config,
      [
        'drain: { exec: "sleep 1" }',
        'rewrite: { SIGHUP: none }',
        'statusAddr: 127.0.0.1:9797',
        'control: /run/sidecar-init-docs.sock',
        'logFormat: json',
        'announce: /handoff/app',
        'until: /handoff/proxy',
        'processes:',
        '  - { name: mesh, role: external, preset: istio }',
        '  - name: proxy',
        '    role: sidecar',
        '    command: envoy',
        '    user: "1337:1337"',
        '    readiness: { probe: "tcp://127.0.0.1:15000" }',
        '    liveness: { probe: "tcp://127.0.0.1:15000" }',
        '    postStart: { exec: "true" }',
        '    preStop: { http: { url: "http://127.0.0.1:15000/drain" } }',
        '  - { name: job, role: app, command: ./job }',
      ].join('\n'),
    );
    const run = await runSupervisor(['plan', '--json', '-c', config]);
    expect(run.stderr()).toBe('');
    const plan = JSON.parse(run.stdout()) as Record<string, unknown> & { processes: Record<string, unknown>[] };
    const printed = new Map<string, unknown>();
    for (const [key, value] of Object.entries(plan)) printed.set(key, value);
    for (const process of plan.processes)
      for (const [key, value] of Object.entries(process))
        if (value !== null || !printed.has(`processes[].${key}`)) printed.set(`processes[].${key}`, value);

    const table = tableWithHeader('docs/configuration.md', ['field', 'value']);
    const documented = new Map(table.rows.map(([field = '', value = '']) => [plainCell(field), value]));
    expect([...documented.keys()].sort()).toEqual([...printed.keys()].sort());
    // An object's fields, where the row writes them out as {a, b}; rewrite's keys are signals, not fields.
    for (const [field, value] of printed) {
      if (field === 'rewrite' || typeof value !== 'object' || value === null || Array.isArray(value)) continue;
      const written = [...(documented.get(field) ?? '').matchAll(/\{([\w, ]+)\}/g)].map((match) => match[1]!.split(/,\s*/));
      expect(written, field).toContainEqual(Object.keys(value));
    }
  });
});

describe('docs/observability.md', () => {
  it('has a row per metric /metrics serves, with its type and labels', () => {
    const process: ProcessSnapshot = {
      name: 'proxy',
      role: 'sidecar',
      state: 'running',
      pid: 1,
      gatesReadiness: true,
      probeReady: true,
      restarts: 0,
      lastExit: undefined,
    };
    // Teardown under way, so that every family is there.
    const families = statusMetrics({ phase: 'stopping', processes: [process], reapedOrphans: 0, teardownSeconds: 1 });
    const served = families.map((family) => {
      const labels = Object.keys(family.samples[0]?.labels ?? {});
      return [labels.length === 0 ? family.name : `${family.name}{${labels.join(', ')}}`, family.type];
    });
    const table = tableWithHeader('docs/observability.md', ['metric', 'type', 'meaning']);
    const perProcess = /labelled `\{name, role\}`/.test(readPage('docs/observability.md'));
    const documented = table.rows.map(([metric = '', type = '']) => {
      const name = plainCell(metric);
      // Per-process metrics carry {name, role}, which the text above the table says once for all of them.
      return [name.startsWith('sidecar_init_process_') && perProcess ? `${name}{name, role}` : name, type];
    });
    expect(documented).toEqual(served);
  });
});

describe('docs/kubernetes.md', () => {
  it('gives the webhook limits the code has', () => {
    const bytes = (value: number) => (value >= 1024 * 1024 ? `${value / 1024 / 1024} MiB` : `${value / 1024} KiB`);
    const seconds = (ms: number) => `${ms / 1000} s`;
    const count = (value: number) => value.toLocaleString('en-US');
    const server = WEBHOOK_SERVER_LIMITS;
    const table = tableWithHeader('docs/kubernetes.md', ['limit', 'value', 'when it is reached']);
    expect(table.rows.map((row) => row[1])).toEqual([
      `${count(REVIEW_LIMITS.maxContainers)} each`,
      count(REVIEW_LIMITS.maxExternals),
      count(REVIEW_LIMITS.maxFlagWords),
      count(REVIEW_LIMITS.maxCommandWords),
      bytes(REVIEW_LIMITS.maxCommandLineBytes),
      bytes(server.maxBodyBytes),
      `${count(VERDICT_MEMORY_LIMITS.maxEntries)}, in ${bytes(VERDICT_MEMORY_LIMITS.maxBytes)}`,
      count(server.maxConnectionsPerAddress),
      count(server.maxConnections),
      `${seconds(server.handshakeTimeoutMs)} after connecting`,
      `${seconds(server.headTimeoutMs)} after the handshake`,
      `${seconds(server.headTimeoutMs)} from its first byte`,
      `${seconds(server.idleTimeoutMs)} after the last answer`,
      seconds(server.requestTimeoutMs),
    ]);
    expect(table.rows[6]?.[2]).toContain(`a verdict over ${bytes(VERDICT_MEMORY_LIMITS.maxEntryBytes)}`);
  });
});

describe('docs/externals.md', () => {
  it('has a row per preset, showing it as it is', () => {
    const table = tableWithHeader('docs/externals.md', ['preset', 'finds', 'ready when', 'stopped by', 'the proxy needs']);
    const expected = Object.values(PRESETS).map((preset) => [
      `\`${preset.name}\``,
      preset.match.comm === undefined ? `cmdline \`${preset.match.cmdline}\`` : `comm \`${preset.match.comm}\``,
      `GET \`${preset.ready}\``,
      preset.quitUrl === undefined ? 'SIGTERM' : `POST \`${preset.quitUrl}\``,
      preset.needs,
    ]);
    expect(table.rows).toEqual(expected);
  });
});

interface JsonSchema {
  properties: Record<string, unknown> & { processes: { items: { oneOf: { properties: Record<string, unknown> }[] } } };
}
