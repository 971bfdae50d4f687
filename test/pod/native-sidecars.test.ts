import { afterEach, describe, expect, test } from 'vitest';
import { container, jsonLines, loadWorkload, playNativeSidecars, removePods, setEnv } from './support/pod.ts';

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

// --external given for a proxy that is a native sidecar (a mistake the docs
// warn of: docs/kubernetes.md#native-sidecars-and---external), as far as a pod
// played by podman shows it. podman 4 runs an init container with
// restartPolicy: Always as an ordinary init container, so playNativeSidecars
// starts it as a container of its own first; there is no kubelet, so whether
// it would restart the quit proxy, and the pod's phase, are not seen here.
describe('--external for a proxy that is a native sidecar', () => {
  function withExternal(shareProcessNamespace: boolean) {
    const workload = loadWorkload('job-native-sidecars.yaml');
    const report = container(workload.spec, 'report');
    const [executable = '', ...rest] = report.command ?? [];
    report.command = [executable, '--external', 'istio-proxy=istio', ...rest];
    if (shareProcessNamespace) workload.spec.shareProcessNamespace = true;
    else delete workload.spec.shareProcessNamespace;
    return workload;
  }

  // The istio preset's readiness is its HTTP endpoint and its stop is its quit
  // endpoint, both over the pod's network: seeing the proxy's process is not needed.
  test.each([false, true])(
    'shareProcessNamespace %s: sidecar-init waits for the proxy, runs the job, then quits the proxy: its container exits 0 while the pod still runs',
    async (shared) => {
      const { pod } = await playNativeSidecars(withExternal(shared));
      expect(await pod.waitForExit('report')).toBe(0);
      // Nothing stopped the pod: the proxy's container ended because sidecar-init POSTed its quit endpoint.
      expect(await pod.waitForExit('istio-proxy')).toBe(0);
      expect(jsonLines(await pod.logs('istio-proxy')).map((line) => line.event)).toContain('quit');
      const log = jsonLines(await pod.logs('report'));
      expect(log.filter((line) => line.job === 'report-job').map((line) => line.event)).toEqual(['started', 'done', 'started', 'done']);
      const supervisor = log.filter((line) => line.name === 'sidecar-init').map((line) => line.event);
      expect(supervisor).toContain('external-stop-request');
      // Without a shared process namespace there is no process to wait for once the endpoint accepted.
      if (!shared) expect(supervisor).toContain('external-absent');
      expect(log.at(-1)).toMatchObject({ event: 'exit', exitCode: 0 });
    },
  );
});
