import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, expect, test } from 'vitest';
import { VOLUME_IMAGE } from './support/images.ts';
import { container, jsonLines, loadWorkload, playPod, removePods, setEnv } from './support/pod.ts';
import { podman } from './support/podman.ts';

// examples/k8s/job-image-volume.yaml played: sidecar-init run from its volume
// image mounted read-only (podman 4's kube play has no image volumes; the
// image's root from `podman image mount` stands in, see pod.ts), nothing
// copied or written at pod start.

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const APP = 'report';
const PROXY = 'cloud-sql-proxy';

afterEach(removePods);

const sha256 = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

test('job-image-volume.yaml completes from the read-only image volume: the job’s code passes through, the proxy quits, nothing written', async () => {
  const workload = loadWorkload('job-image-volume.yaml');
  setEnv(workload.spec, APP, { REPORT_JOB_EXIT: '3' });
  const proxy = container(workload.spec, PROXY);
  proxy.args = [...(proxy.args ?? []), '--standin-ready-after=1'];
  const volumesBefore = (await podman(['volume', 'ls', '--quiet'])).trim();

  const pod = await playPod(workload);
  const states = await pod.waitForCompletion();
  expect(states.find((state) => state.name === APP)?.exitCode).toBe(3);
  expect(states.find((state) => state.name === PROXY)?.exitCode).toBe(0);
  expect(jsonLines(await pod.logs(PROXY)).map((line) => line.event)).toContain('quit');
  const supervisor = jsonLines(await pod.logs(APP)).filter((line) => line.name === 'sidecar-init');
  expect(supervisor.at(-1)).toMatchObject({ event: 'exit', exitCode: 3 });
  // Every container has exited: no process of the pod is left but podman's infra container.
  expect(states.every((state) => !state.running)).toBe(true);
  expect(await pod.confinement(APP)).toEqual({ readOnlyRoot: true, user: '1000:1000' });

  // Nothing was written: no volume made for the pod (no emptyDir), the one
  // mount at /opt/sidecar-init is the image's root, read-only, and holds the
  // very bytes `sidecar-init install` wrote into the image.
  expect((await podman(['volume', 'ls', '--quiet'])).trim()).toBe(volumesBefore);
  const [inspected] = JSON.parse(await podman(['inspect', pod.containerName(APP)])) as {
    Mounts: { Destination: string; Source: string; RW: boolean }[];
  }[];
  const mount = inspected?.Mounts.find((entry) => entry.Destination === '/opt/sidecar-init');
  expect(mount?.RW).toBe(false);
  const imageRoot = (await podman(['image', 'mount', VOLUME_IMAGE])).trim();
  try {
    expect(mount?.Source).toBe(imageRoot);
    expect(sha256(join(imageRoot, 'sidecar-init.runtime/sidecar-init'))).toBe(sha256(join(ROOT, 'dist/sidecar-init')));
  } finally {
    await podman(['image', 'unmount', VOLUME_IMAGE]);
  }
});
