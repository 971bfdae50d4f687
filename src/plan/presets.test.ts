import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { load } from '../../test/support/config.ts';
import { tableWithHeader } from '../../test/support/docs.ts';
import { type StandinName, startStandin, useStandins } from '../../test/support/standin.ts';
import { searchProcesses } from '../externals/find-processes.ts';
import { PRESETS, type PresetName } from './presets.ts';

// The stand-in proxies play the real ones in every test, in pods too; here
// each preset's endpoints are checked against its stand-in, configured as
// docs/externals.md says the real proxy must be (test/docs-tables.test.ts
// checks that page's table against PRESETS).
const STANDINS: Record<PresetName, { name: StandinName; args?: string[]; env?: Record<string, string> }> = {
  istio: { name: 'pilot-agent', args: ['proxy', 'sidecar'] },
  linkerd: { name: 'linkerd2-proxy', env: { LINKERD2_PROXY_SHUTDOWN_ENDPOINT_ENABLED: 'true' } },
  envoy: { name: 'envoy' },
  'cloud-sql-proxy': { name: 'cloud-sql-proxy', args: ['--health-check', '--quitquitquit'] },
  'alloydb-auth-proxy': { name: 'alloydb-auth-proxy', args: ['--health-check', '--quitquitquit'] },
  dapr: { name: 'daprd' },
  'consul-dataplane': { name: 'consul-dataplane' },
  'otel-collector': { name: 'otelcol' },
};

// A sleep plays sidecar-init, whose descendants are never matched (the stand-ins are this test's).
const { selfPid } = useStandins();

/** The match `--external proxy=PRESET` puts in the plan. */
function presetMatch(name: PresetName) {
  const plan = load({ cli: { processes: [{ flag: '--external', value: `proxy=${name}` }], app: ['job'] } });
  const match = plan.processes.find((spec) => spec.name === 'proxy')?.external?.match;
  if (match === undefined) throw new Error(`--external proxy=${name} gave no match`);
  return match;
}

/** Another preset's stand-in, as a neighbour in the pod that the preset must not find. */
function neighbourOf(name: PresetName): StandinName {
  return name === 'otel-collector' ? 'daprd' : 'otelcol';
}

describe('presets', () => {
  test.each(Object.values(PRESETS))(
    '$name: its stand-in, configured as docs/externals.md says, is found, gets ready and quits',
    async (preset) => {
      const standin = STANDINS[preset.name];
      const proxy = await startStandin(standin.name, { args: standin.args, env: standin.env });
      const comm = readFileSync(`/proc/${proxy.pid}/comm`, 'utf8').trim();
      const cmdline = readFileSync(`/proc/${proxy.pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
      if (preset.match.comm !== undefined) expect(comm).toBe(preset.match.comm);
      if (preset.match.cmdline !== undefined) expect(cmdline).toMatch(new RegExp(preset.match.cmdline));

      const ready = new URL(preset.ready);
      await expect.poll(async () => (await fetch(proxy.url(Number(ready.port), ready.pathname))).status).toBe(200);
      if (preset.quitUrl === undefined) return;
      const quit = new URL(preset.quitUrl);
      const url = proxy.url(Number(quit.port), quit.pathname);
      expect((await fetch(url, { method: 'GET' })).status).toBe(405);
      expect((await fetch(url, { method: 'POST' })).status).toBe(200);
      expect(await proxy.exited).toEqual({ code: 0, signal: null });
    },
  );

  test.each(Object.values(PRESETS))('$name: its match finds its own proxy and not the other processes of the pod', async (preset) => {
    const standin = STANDINS[preset.name];
    const proxy = await startStandin(standin.name, { args: standin.args, env: standin.env });
    await startStandin(neighbourOf(preset.name), { uid: proxy.uid });
    // The UID keeps out the stand-ins of tests running beside this one; the neighbour shares it.
    const search = await searchProcesses({ ...presetMatch(preset.name), uid: proxy.uid }, { selfPid: selfPid() });
    expect(search).toEqual({ kind: 'found', processes: [expect.objectContaining({ pid: proxy.pid })] });
  });

  test("each preset's needs is what docs/externals.md tells the user to configure", () => {
    const table = tableWithHeader('docs/externals.md', ['preset', 'finds', 'ready when', 'stopped by', 'the proxy needs']);
    const needs = Object.fromEntries(table.rows.map((row) => [row[0], row[4]]));
    for (const preset of Object.values(PRESETS)) expect(preset.needs, preset.name).toBe(needs[`\`${preset.name}\``]);
  });

  test('linkerd without the shutdown annotation answers 404; cloud-sql-proxy without its flags serves neither endpoint', async () => {
    const linkerd = await startStandin('linkerd2-proxy');
    expect((await fetch(linkerd.url(4191, '/shutdown'), { method: 'POST' })).status).toBe(404);
    const cloudSql = await startStandin('cloud-sql-proxy');
    expect(cloudSql.ports).toEqual({});
  });
});
