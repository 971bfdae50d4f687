import { describe, expect, it } from 'vitest';
import { processSnapshot, statusSnapshot } from '../../test/support/status-snapshot.ts';
import { judgeReadiness } from './readiness-verdict.ts';
import type { ProcessSnapshot, StatusSnapshot } from '../plan/status-snapshot.ts';

const proc = processSnapshot;
const snapshot = (phase: StatusSnapshot['phase'], processes: ProcessSnapshot[]) => statusSnapshot(phase, processes);

describe('judgeReadiness', () => {
  const done = proc('migrate', 'init', { state: 'exited', pid: undefined });

  it('is ready while the app runs and every sidecar is ready; finished init steps do not count', () => {
    expect(judgeReadiness(snapshot('running', [proc('proxy', 'sidecar'), done, proc('job', 'app')]))).toEqual({ ready: true, reasons: [] });
  });

  it('is not ready during startup or teardown, whatever the processes say', () => {
    expect(judgeReadiness(snapshot('starting', [proc('job', 'app', { state: 'pending' })])).reasons).toEqual([
      'sidecar-init: starting, the app is not running yet',
      'job (app): not started yet',
    ]);
    expect(judgeReadiness(snapshot('stopping', [proc('job', 'app')])).reasons).toEqual(['sidecar-init: stopping']);
  });

  it('names each sidecar that holds readiness back and why', () => {
    const verdict = judgeReadiness(
      snapshot('running', [
        proc('proxy', 'sidecar', { probeReady: false }),
        proc('db', 'sidecar', { state: 'backoff', pid: undefined }),
        proc('mesh', 'external', { probeReady: false }),
        proc('job', 'app'),
      ]),
    );
    expect(verdict).toEqual({
      ready: false,
      reasons: ['proxy (sidecar): readiness probe not passing', 'db (sidecar): restarting', 'mesh (external): readiness probe not passing'],
    });
  });
});
