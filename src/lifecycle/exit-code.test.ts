import { describe, expect, it } from 'vitest';
import type { ExitStatus } from '../plan/exit-status.ts';
import type { ProcessSpec } from '../plan/plan.ts';
import { testProcess as proc } from '../../test/support/test-plan.ts';
import {
  decideExitCode,
  EXIT_EXTERNAL_LEFT_RUNNING,
  EXIT_FATAL_SIDECAR,
  EXIT_SIDECAR_FAILED,
  withExternalsLeftRunning,
} from './exit-code.ts';
import type { ProcState } from './state.ts';

const exited = (code: number): ExitStatus => ({ kind: 'exited', code });
const app: ProcessSpec = { ...proc('app', 'app'), after: [] };
const job: ProcessSpec = { ...app, successCodes: [3] };
const appExited = (status: ExitStatus): ProcState => ({ status: 'exited', started: true, restarts: 0, exit: status });
const appNeverRan: ProcState = { status: 'pending' };

describe('decideExitCode', () => {
  it('is the app’s code when the app exited, a success code counting as 0', () => {
    expect(decideExitCode({ kind: 'app-exited', status: exited(4) }, appExited(exited(4)), app)).toBe(4);
    expect(decideExitCode({ kind: 'app-exited', status: exited(3) }, appExited(exited(3)), job)).toBe(0);
    expect(decideExitCode({ kind: 'app-exited', status: { kind: 'signaled', signal: 'SIGKILL' } }, appNeverRan, app)).toBe(137);
  });

  it('on a signal is the app’s code once it exited, else the signal’s code as a shell reports it', () => {
    expect(decideExitCode({ kind: 'signal', signal: 'SIGTERM' }, appExited(exited(0)), app)).toBe(0);
    expect(decideExitCode({ kind: 'signal', signal: 'SIGTERM' }, appExited(exited(3)), job)).toBe(0);
    expect(decideExitCode({ kind: 'signal', signal: 'SIGTERM' }, appExited(exited(2)), app)).toBe(2);
    expect(decideExitCode({ kind: 'signal', signal: 'SIGTERM' }, appNeverRan, app)).toBe(143);
    expect(decideExitCode({ kind: 'signal', signal: 'SIGINT' }, appNeverRan, app)).toBe(130);
  });

  it('is a failed init step’s code, and never a success code of the app’s', () => {
    expect(decideExitCode({ kind: 'init-failed', name: 'migrate', status: exited(3) }, appNeverRan, job)).toBe(3);
  });

  it('is a failed sidecar’s own failing code, or 1 when it has none (a missed deadline, a clean exit)', () => {
    const failed = (status: ExitStatus | undefined) =>
      decideExitCode({ kind: 'sidecar-failed', name: 'proxy', status, reason: 'failed' }, appNeverRan, app);
    expect(EXIT_SIDECAR_FAILED).toBe(1);
    expect(failed(exited(7))).toBe(7);
    expect(failed({ kind: 'signaled', signal: 'SIGKILL' })).toBe(137);
    expect(failed(exited(0))).toBe(1);
    expect(failed(undefined)).toBe(1);
  });

  it('is 69 for a fatal sidecar, 1 for an external that failed, 0 for the state another container announced', () => {
    expect(EXIT_FATAL_SIDECAR).toBe(69);
    expect(decideExitCode({ kind: 'fatal-sidecar', name: 'db', status: exited(0) }, appExited(exited(0)), app)).toBe(69);
    expect(decideExitCode({ kind: 'external-failed', name: 'istio', reason: 'gone' }, appNeverRan, app)).toBe(1);
    expect(decideExitCode({ kind: 'until', file: '/run/announce/app.json', state: 'exited' }, appNeverRan, app)).toBe(0);
  });
});

describe('withExternalsLeftRunning', () => {
  it('turns a 0 into 1 when an external is left running, and keeps a failing code, which says more', () => {
    expect(EXIT_EXTERNAL_LEFT_RUNNING).toBe(1);
    expect(withExternalsLeftRunning(0, 1)).toBe(1);
    expect(withExternalsLeftRunning(0, 0)).toBe(0);
    expect(withExternalsLeftRunning(3, 2)).toBe(3);
  });
});
