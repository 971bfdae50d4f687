import { afterEach, expect, test } from 'vitest';
import { NO_GLIBC_APP_IMAGE } from './support/images.ts';
import { container, jsonLines, loadWorkload, playPod, removePods, setEnv } from './support/pod.ts';
import { podman } from './support/podman.ts';

// examples/k8s/job-cloud-sql-proxy.yaml played with an app image that has no
// glibc (Debian's busybox-static and musl, nothing else; test/pod/support/images.ts):
// the install init container copies sidecar-init into the emptyDir, and the
// launcher starts it with the glibc runtime it carries, in a container whose
// own libc is musl.

const APP = 'report';
const PROXY = 'cloud-sql-proxy';
const SIDECAR_INIT = '/opt/sidecar-init/sidecar-init';

afterEach(removePods);

test('job-cloud-sql-proxy.yaml with a musl/busybox app image: the job’s code passes through, the proxy quits, nothing is left', async () => {
  // No glibc loader or library anywhere in the app image.
  const listing = await podman([
    'run',
    '--rm',
    '--network',
    'none',
    '--entrypoint',
    '/bin/busybox',
    NO_GLIBC_APP_IMAGE,
    'find',
    '/',
    '-xdev',
  ]);
  expect(listing).toContain('/lib/ld-musl-');
  expect(listing).not.toMatch(/ld-linux|libc\.so\.6/);

  const workload = loadWorkload('job-cloud-sql-proxy.yaml');
  const app = container(workload.spec, APP);
  app.image = NO_GLIBC_APP_IMAGE;
  app.command = [SIDECAR_INIT, '--external', 'cloud-sql-proxy=cloud-sql-proxy', '--grace', '20s', '--', '/app/static-job'];
  setEnv(workload.spec, APP, { REPORT_JOB_EXIT: '3' });
  const proxy = container(workload.spec, PROXY);
  proxy.args = [...(proxy.args ?? []), '--standin-ready-after=1'];

  const pod = await playPod(workload);
  const states = await pod.waitForCompletion();
  expect(states.find((state) => state.name === APP)?.exitCode).toBe(3);
  expect(states.find((state) => state.name === PROXY)?.exitCode).toBe(0);
  expect(jsonLines(await pod.logs(PROXY)).map((line) => line.event)).toContain('quit');

  const appLog = jsonLines(await pod.logs(APP));
  // The musl job ran, and nothing of sidecar-init's glibc runtime was in its environment.
  expect(appLog.find((line) => line.job === 'static-job')).toMatchObject({ event: 'done', libc: 'musl', foreign: [] });
  const supervisor = appLog.filter((line) => line.name === 'sidecar-init');
  expect(supervisor[0]).toMatchObject({ event: 'starting' });
  expect(supervisor.at(-1)).toMatchObject({ event: 'exit', exitCode: 3 });
  // Every container has exited: no process of the pod is left but podman's infra container.
  expect(states.every((state) => !state.running)).toBe(true);
  expect(await pod.confinement(APP)).toEqual({ readOnlyRoot: true, user: '1000:1000' });
});
