import { describe, expect, it } from 'vitest';
import { load } from '../../test/support/config.ts';
import { PRESETS } from './presets.ts';
import { describeSigtermExit, findSignalOnlyStopsThatFail, presetOfExternal } from './stop-exit-warning.ts';

// One sentence for a proxy that fails its pod when stopped by SIGTERM, said
// by the log, plan, validate and the webhook alike.

const SQL = PRESETS['cloud-sql-proxy'];
const SENTENCE = 'cloud-sql-proxy exits 143 on SIGTERM, which fails this pod: run it with --quitquitquit or --exit-zero-on-sigterm';

describe('the SIGTERM exit warning', () => {
  it('names the code and both fixes, for the proxies that exit non-zero on SIGTERM only', () => {
    expect(describeSigtermExit(SQL)).toBe(SENTENCE);
    expect(describeSigtermExit(PRESETS['alloydb-auth-proxy'])).toBe(
      'alloydb-auth-proxy exits 143 on SIGTERM, which fails this pod: run it with --quitquitquit or --exit-zero-sigterm',
    );
    const silent = Object.values(PRESETS).filter((preset) => describeSigtermExit(preset) === undefined);
    expect(silent.map((preset) => preset.name)).toEqual(['istio', 'linkerd', 'envoy', 'dapr', 'consul-dataplane', 'otel-collector']);
  });

  it('is not said when the container’s args enable either flag, as Go’s flag packages read them', () => {
    for (const args of [
      ['--quitquitquit'],
      ['--exit-zero-on-sigterm'],
      ['-exit-zero-on-sigterm'],
      ['--quitquitquit=true'],
      ['--exit-zero-on-sigterm=1'],
    ])
      expect(describeSigtermExit(SQL, ['my-project:region:db', ...args])).toBeUndefined();
    for (const args of [
      [],
      ['--quitquitquit=false'],
      ['--quitquitquit', '--quitquitquit=false'],
      ['--exit-zero-sigterm'],
      ['--quitquitquitx'],
    ])
      expect(describeSigtermExit(SQL, ['my-project:region:db', ...args])).toBe(SENTENCE);
  });

  it('knows an external by its preset, or by the process name of one', () => {
    const plan = load({
      yaml: `
        processes:
          - { name: named, role: external, preset: cloud-sql-proxy }
          - { name: matched, role: external, match: { comm: cloud-sql-proxy }, stop: { signal: SIGTERM } }
          - { name: other, role: external, match: { comm: redis-server } }
          - { name: job, role: app, command: ./job }
      `,
    });
    const externals = plan.processes.flatMap((spec) => (spec.external === undefined ? [] : [spec.external]));
    expect(externals.map((external) => presetOfExternal(external)?.name)).toEqual(['cloud-sql-proxy', 'cloud-sql-proxy', undefined]);
    // Only `matched` has no stop endpoint at all: validate's warning.
    expect(findSignalOnlyStopsThatFail(plan)).toEqual([{ name: 'matched', warning: SENTENCE }]);
  });
});
