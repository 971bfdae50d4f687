import { describe, expect, it } from 'vitest';
import { load } from '../../test/support/config.ts';
import { TEST_ISTIO_EXTERNAL } from '../../test/support/test-plan.ts';
import type { ExternalSpec } from './plan.ts';
import { type ExternalPreset, PRESETS } from './presets.ts';
import { describeSigtermExit, findSignalOnlyStopsThatFail, presetOfExternal, stopMaySendSigterm } from './stop-exit-warning.ts';

// One sentence for a proxy that fails its pod when stopped by SIGTERM, said
// by the log, plan, validate and the webhook alike.

const SQL = PRESETS['cloud-sql-proxy'];
const SENTENCE = 'cloud-sql-proxy exits 143 on SIGTERM, which fails this pod: run it with --quitquitquit or --exit-zero-on-sigterm';

/** The istio preset's external, with some fields changed. */
const external = (overrides: Partial<ExternalSpec>): ExternalSpec => ({ ...TEST_ISTIO_EXTERNAL, ...overrides });

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

  it('reads as true every spelling Go reads as true, and only a whole argument that is the flag', () => {
    for (const value of ['1', 't', 'T', 'TRUE', 'true', 'True'])
      expect(describeSigtermExit(SQL, [`--exit-zero-on-sigterm=${value}`]), value).toBeUndefined();
    // Not the flag: a longer word that ends in it, or a value past a line break (Go refuses that value).
    for (const arg of ['--yes', 'x--quitquitquit', '--quitquitquit=true\nx', '--exit-zero-on-sigterm=yes'])
      expect(describeSigtermExit(SQL, [arg]), arg).toBe(SENTENCE);
  });

  it('says no fix for a proxy that has none', () => {
    const bare: ExternalPreset = { ...SQL, quitFlag: undefined, exits: { sigterm: 2 } };
    expect(describeSigtermExit(bare)).toBe('cloud-sql-proxy exits 2 on SIGTERM, which fails this pod');
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

  it('knows a preset by the name given before the process name, and by comm only', () => {
    expect(presetOfExternal(external({ preset: 'cloud-sql-proxy', match: { comm: 'pilot-agent', maxMatches: 1 } }))?.name).toBe(
      'cloud-sql-proxy',
    );
    expect(presetOfExternal(external({ preset: undefined, match: { comm: 'envoy', maxMatches: 1 } }))?.name).toBe('envoy');
    // linkerd is known by its cmdline: a matcher without comm is no preset's.
    expect(presetOfExternal(external({ preset: undefined, match: { maxMatches: 1 } }))).toBeUndefined();
  });

  it('counts a stop as sending SIGTERM unless it is none, another signal, or an announced file', () => {
    const stop = (signal: NodeJS.Signals | undefined) => ({ kind: 'stop' as const, http: undefined, signal });
    expect(stopMaySendSigterm(external({ stop: stop(undefined) }))).toBe(true);
    expect(stopMaySendSigterm(external({ stop: stop('SIGTERM') }))).toBe(true);
    expect(stopMaySendSigterm(external({ stop: stop('SIGINT') }))).toBe(false);
    expect(stopMaySendSigterm(external({ stop: { kind: 'none' } }))).toBe(false);
    expect(stopMaySendSigterm(external({ stop: stop(undefined), announced: '/run/peer/state' }))).toBe(false);
    const plan = load({
      yaml: `
        processes:
          - { name: quiet, role: external, match: { comm: cloud-sql-proxy }, stop: { signal: SIGINT } }
          - { name: job, role: app, command: ./job }
      `,
    });
    expect(findSignalOnlyStopsThatFail(plan)).toEqual([]);
  });
});
