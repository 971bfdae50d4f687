import { afterEach, describe, expect, test } from 'vitest';
import { jsonLines, loadWorkload, playNativeSidecars, removePods, setEnv } from './support/pod.ts';

// examples/k8s/job-native-sidecars.yaml: sidecar-init as the entrypoint of a
// Job's app container, the proxy a native sidecar the kubelet manages.

afterEach(removePods);

describe('a Job with a native sidecar and sidecar-init as the app container’s entrypoint', () => {
  test.each([0, 3])('runs its init step, then the job, and exits with the job’s code (%i)', async (code) => {
    const workload = loadWorkload('job-native-sidecars.yaml');
    setEnv(workload.spec, 'report', { REPORT_JOB_EXIT: String(code), REPORT_JOB_CHECK_URL: 'http://127.0.0.1:15021/healthz/ready' });
    const { pod, sidecars } = await playNativeSidecars(workload);
    expect(await pod.waitForExit('report')).toBe(code);

    // The kubelet stops native sidecars once the main containers are done.
    await pod.stopAll(30);
    const states = await pod.waitForCompletion();
    expect(states.find((state) => state.name === 'istio-proxy')?.exitCode).toBe(0);
    expect(sidecars).toEqual(['istio-proxy']);

    const log = jsonLines(await pod.logs('report'));
    const job = log
      .filter((line) => line.job === 'report-job')
      .map((line) => `${line.event}${line.argv?.length ? ` ${line.argv.join(' ')}` : ''}`);
    expect(job).toEqual(['started --migrate', 'checked', 'done', 'started', 'checked', 'done']);
    const supervisor = log.filter((line) => line.name === 'sidecar-init');
    expect(supervisor.find((line) => line.event === 'starting')).toMatchObject({ mode: 'pid1' });
    expect(supervisor.at(-1)).toMatchObject({ event: 'exit', exitCode: code });
  });
});
