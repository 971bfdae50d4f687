import { afterEach, describe, expect, test } from 'vitest';
import { jsonLines, loadWorkload, playPod, removePods, setEnv } from './support/pod.ts';

// examples/k8s/job-separate-pid.yaml: a pod without a shared process namespace,
// the app's and the proxy's sidecar-init coordinating through announce files on
// an emptyDir. Neither can see nor signal the other's processes.

afterEach(removePods);

const APP = 'report';
const PROXY = 'cloud-sql-proxy';

describe('a Job whose containers share no process namespace', () => {
  test.each([0, 3])('runs the job once the proxy side is ready; both sides stop, the pod ends with the job’s code (%i)', async (code) => {
    const workload = loadWorkload('job-separate-pid.yaml');
    expect(workload.spec.shareProcessNamespace).toBeUndefined();
    setEnv(workload.spec, APP, { REPORT_JOB_EXIT: String(code) });
    const pod = await playPod(workload);
    const states = await pod.waitForCompletion();
    expect(states.find((state) => state.name === APP)?.exitCode).toBe(code);
    expect(states.find((state) => state.name === PROXY)?.exitCode).toBe(0);

    const app = jsonLines(await pod.logs(APP)).filter((line) => line.name === 'sidecar-init');
    const proxy = jsonLines(await pod.logs(PROXY)).filter((line) => line.name === 'sidecar-init');
    // The app side found the proxy side's announcement before it started the job, and waited for it to say exited.
    const events = app.map((line) => line.event);
    expect(events.indexOf('external-found')).toBeGreaterThanOrEqual(0);
    expect(events.indexOf('external-found')).toBeLessThan(app.findIndex((line) => line.event === 'spawned' && line.role === 'app'));
    expect(app.at(-1)).toMatchObject({ event: 'exit', exitCode: code });
    // The proxy side heard the app side's exit through its --until and ended with 0.
    expect(proxy.some((line) => line.event === 'until-reached')).toBe(true);
    expect(proxy.at(-1)).toMatchObject({ event: 'exit', exitCode: 0 });
  });
});
