import { describe, expect, it } from 'vitest';
import { parsePrometheusText } from '../../test/support/prometheus-parser.ts';
import type { ParsedFamily } from '../../test/support/prometheus-parser.ts';
import { processSnapshot, statusSnapshot } from '../../test/support/status-snapshot.ts';
import { formatPrometheusText } from './prometheus-text.ts';
import { statusMetrics } from './status-metrics.ts';
import type { StatusSnapshot } from '../plan/status-snapshot.ts';

const SNAPSHOT: StatusSnapshot = statusSnapshot(
  'running',
  [
    processSnapshot('proxy', 'sidecar', { pid: 10, probeReady: false, restarts: 2 }),
    processSnapshot('migrate', 'init', { state: 'exited', pid: undefined }),
    processSnapshot('job', 'app', { pid: 12 }),
  ],
  { reapedOrphans: 7 },
);

function scrape(snapshot: StatusSnapshot): Map<string, ParsedFamily> {
  return new Map(parsePrometheusText(formatPrometheusText(statusMetrics(snapshot))).map((family) => [family.name, family]));
}

function values(family: ParsedFamily | undefined): Record<string, number> {
  return Object.fromEntries((family?.samples ?? []).map((sample) => [Object.values(sample.labels).join('/'), sample.value]));
}

describe('statusMetrics', () => {
  it('exposes up, ready and restarts per process, orphans and the phase, as a parser reads them', () => {
    const families = scrape(SNAPSHOT);
    expect([...families.keys()]).toEqual([
      'sidecar_init_process_up',
      'sidecar_init_process_ready',
      'sidecar_init_process_restarts',
      'sidecar_init_reaped_orphans',
      'sidecar_init_phase',
    ]);
    expect(families.get('sidecar_init_process_up')?.type).toBe('gauge');
    expect(values(families.get('sidecar_init_process_up'))).toEqual({ 'proxy/sidecar': 1, 'migrate/init': 0, 'job/app': 1 });
    expect(values(families.get('sidecar_init_process_ready'))).toEqual({ 'proxy/sidecar': 0, 'migrate/init': 0, 'job/app': 1 });
    expect(families.get('sidecar_init_process_restarts')?.type).toBe('counter');
    expect(values(families.get('sidecar_init_process_restarts'))).toEqual({ 'proxy/sidecar': 2, 'migrate/init': 0, 'job/app': 0 });
    expect(families.get('sidecar_init_reaped_orphans')?.samples).toEqual([
      { name: 'sidecar_init_reaped_orphans_total', labels: {}, value: 7 },
    ]);
    expect(values(families.get('sidecar_init_phase'))).toEqual({ starting: 0, running: 1, stopping: 0, done: 0 });
  });

  it('adds the teardown time once teardown has begun', () => {
    const families = scrape({ ...SNAPSHOT, phase: 'stopping', teardownSeconds: 1.5 });
    expect(families.get('sidecar_init_teardown_seconds')?.samples.map((sample) => sample.value)).toEqual([1.5]);
    expect(values(families.get('sidecar_init_phase'))).toEqual({ starting: 0, running: 0, stopping: 1, done: 0 });
  });
});
