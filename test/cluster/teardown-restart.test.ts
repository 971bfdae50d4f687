import { afterEach, expect, test } from 'vitest';
import { PROXY_IMAGES, VOLUME_IMAGE } from '../pod/support/images.ts';
import { jsonLines } from '../pod/support/pod.ts';
import { proxyGapApp } from './support/proxy-gap.ts';
import {
  apply,
  createNamespace,
  deleteNamespace,
  execIn,
  followLogs,
  getJson,
  KEEP_FINALIZER,
  kubectl,
  logs,
  type Pod,
  releasePods,
  status,
  waitFor,
} from './support/cluster.ts';

// docs/lifecycle.md, Restarts during teardown, in a real kubelet's pod: the
// database proxy is sidecar-init's sidecar inside the app container
// (sidecar-init mounted from its volume image), the pod is deleted with
// kubectl, and while the app drains (its last requests go through the proxy)
// the proxy is killed. sidecar-init restarts it, since its turn to stop has
// not come (what KEP-4438 promises native sidecars and no released Kubernetes
// does yet), the app's later requests are answered, and the proxy is stopped
// only after the app, within the pod's terminationGracePeriodSeconds. Without
// the restart the app never sees the proxy again and gives up: exit 1.

const [PROXY_IMAGE] = Object.keys(PROXY_IMAGES).filter((image) => image.includes('cloud-sql-proxy'));
const READY = 'http://127.0.0.1:9090/startup';

// The app drains after SIGTERM: it asks through the proxy until it has seen
// it go and come back (exit 0), or for 20 s (exit 1).
const APP = proxyGapApp({ url: READY, afterSigterm: true, giveUpSeconds: 20 });

let namespace: string | undefined;
afterEach(async () => {
  if (namespace !== undefined) {
    await releasePods(namespace);
    await deleteNamespace(namespace);
  }
  namespace = undefined;
});

test('a proxy killed while the app drains after kubectl delete pod is restarted until its turn; the app’s later requests are answered', async () => {
  if (PROXY_IMAGE === undefined) throw new Error('no cloud-sql-proxy stand-in image');
  const ns = await createNamespace('teardown');
  namespace = ns;
  await apply(ns, [
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'drain', finalizers: [KEEP_FINALIZER] },
      spec: {
        restartPolicy: 'Never',
        terminationGracePeriodSeconds: 30,
        containers: [
          {
            name: 'app',
            image: PROXY_IMAGE,
            imagePullPolicy: 'Never',
            command: [
              '/opt/sidecar-init/sidecar-init',
              '--grace',
              '25s',
              '--sidecar',
              'db-proxy=/cloud-sql-proxy --health-check --port=5432 my-project:europe-west1:reports',
              '--ready',
              `db-proxy=${READY}`,
              '--',
              '/usr/bin/python3',
              '-c',
              APP,
            ],
            volumeMounts: [{ name: 'sidecar-init', mountPath: '/opt/sidecar-init', readOnly: true }],
            securityContext: {
              runAsUser: 65532,
              runAsGroup: 65532,
              runAsNonRoot: true,
              readOnlyRootFilesystem: true,
              allowPrivilegeEscalation: false,
              capabilities: { drop: ['ALL'] },
            },
          },
        ],
        volumes: [{ name: 'sidecar-init', image: { reference: VOLUME_IMAGE, pullPolicy: 'IfNotPresent' } }],
      },
    },
  ]);

  // The app runs (after the proxy was ready) and its first request was answered.
  await waitFor('the app to run', 180_000, async () => {
    const pod = await getJson<Pod>(['get', 'pod', 'drain', '-n', ns]);
    if (pod.status.containerStatuses?.[0]?.state.running === undefined) return undefined;
    const started = jsonLines(await logs(ns, 'drain', 'app')).find((line) => line.app === 'gap' && line.event === 'started');
    return started === undefined ? undefined : started;
  }).then((started) => expect(started).toMatchObject({ proxy: 'ok' }));
  const log = followLogs(ns, 'drain', 'app');
  const spawned = await log.waitForLine('the proxy’s spawned line', 30_000, (line) => line.proc === 'db-proxy' && line.event === 'spawned');
  const deleted = Date.now();
  await kubectl(['delete', 'pod', 'drain', '-n', ns, '--wait=false']);
  // The kubelet's SIGTERM reached the app through sidecar-init; the proxy still answers it.
  expect(
    await log.waitForLine('the app to start draining', 60_000, (line) => line.app === 'gap' && line.event === 'waiting'),
  ).toMatchObject({
    proxy: 'ok',
  });
  // The proxy dies (SIGKILL, as a crash or the OOM killer would end it) while the app drains.
  await execIn(ns, 'drain', 'app', ['/usr/bin/python3', '-c', `import os; os.kill(${Number(spawned.pid)}, 9)`]);
  const { stdout } = await log.ended;

  const done = await waitFor('the app container to have terminated', 60_000, async () => {
    const pod = await getJson<Pod>(['get', 'pod', 'drain', '-n', ns]);
    return status(pod, 'app').state.terminated === undefined ? undefined : pod;
  });
  const terminated = status(done, 'app').state.terminated;
  expect(terminated?.exitCode).toBe(0);
  expect(Date.parse(terminated?.finishedAt ?? '')).toBeLessThanOrEqual(deleted + 31_000);

  const lines = jsonLines(stdout);
  const app = lines.filter((line) => line.app === 'gap').map((line) => line.event);
  expect(app).toEqual(['started', 'waiting', 'proxy-lost', 'proxy-back']);
  const supervisor = lines.filter((line) => line.name === 'sidecar-init');
  expect(supervisor.find((line) => line.event === 'teardown')).toMatchObject({ reason: 'signal' });
  // Restarted once, because teardown had not reached it; then stopped in its turn, after the app.
  expect(supervisor.filter((line) => line.proc === 'db-proxy' && line.event === 'restarting')).toMatchObject([
    { attempt: 1, duringTeardown: true, msg: expect.stringContaining('restart during teardown: db-proxy exited before its turn to stop') },
  ]);
  expect(supervisor.filter((line) => line.proc === 'db-proxy' && line.event === 'spawned')).toHaveLength(2);
  expect(supervisor.filter((line) => line.event === 'stopping').map((line) => line.proc)).toEqual(['app', 'db-proxy']);
  expect(supervisor.at(-1)).toMatchObject({ event: 'exit', exitCode: 0 });
}, 300_000);
