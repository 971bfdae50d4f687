import { afterEach, expect, test } from 'vitest';
import { BAKED_IMAGE } from '../pod/support/images.ts';
import { jsonLines } from '../pod/support/pod.ts';
import { apply, createNamespace, deleteNamespace, getJson, logs, type Pod, status, waitFor } from './support/cluster.ts';

// The status server (docs/observability.md) as the container's
// startupProbe (/healthz), readinessProbe (/readyz) and livenessProbe
// (/healthz), asked by a real kubelet: the pod is Ready only once sidecar-init's
// sidecar is ready, and the liveness probe never restarts it.

let namespace: string | undefined;
afterEach(async () => {
  if (namespace !== undefined) await deleteNamespace(namespace);
  namespace = undefined;
});

test('the kubelet’s readinessProbe on /readyz: the pod turns Ready only after the sidecar is ready; liveness on /healthz keeps it', async () => {
  const ns = await createNamespace('probes');
  namespace = ns;
  const probe = (path: string, extra: Record<string, number>) => ({ httpGet: { path, port: 9797 }, periodSeconds: 1, ...extra });
  await apply(ns, [
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'web' },
      spec: {
        restartPolicy: 'Never',
        containers: [
          {
            name: 'web',
            image: BAKED_IMAGE,
            imagePullPolicy: 'Never',
            command: [
              '/usr/local/bin/sidecar-init',
              '--status-addr',
              ':9797',
              // The sidecar says it is ready (a file) 5 s after it started.
              '--sidecar',
              'cache=/bin/sh -c "sleep 5; touch /tmp/cache-ready; exec sleep 600"',
              '--ready',
              'cache=file:/tmp/cache-ready',
              '--',
              '/bin/sh',
              '-c',
              'exec sleep 600',
            ],
            ports: [{ name: 'status', containerPort: 9797 }],
            startupProbe: probe('/healthz', { failureThreshold: 60 }),
            readinessProbe: probe('/readyz', { failureThreshold: 1 }),
            livenessProbe: probe('/healthz', { failureThreshold: 3 }),
          },
        ],
      },
    },
  ]);
  const pod = await waitFor('the pod to be Ready', 180_000, async () => {
    const current = await getJson<Pod>(['get', 'pod', 'web', '-n', ns]);
    return current.status.conditions?.some((condition) => condition.type === 'Ready' && condition.status === 'True') ? current : undefined;
  });
  const log = jsonLines(await logs(ns, 'web', 'web')).filter((line) => line.name === 'sidecar-init');
  const ready = log.find((line) => line.proc === 'cache' && line.event === 'ready');
  expect(ready).toBeDefined();
  // The kubelet saw Ready after the sidecar was ready (the API's times are in whole seconds).
  const readyCondition = (pod.status.conditions ?? []).find((condition) => condition.type === 'Ready') as
    | { lastTransitionTime?: string }
    | undefined;
  expect(Date.parse(readyCondition?.lastTransitionTime ?? '')).toBeGreaterThanOrEqual(
    Math.floor(Date.parse(String(ready?.time)) / 1000) * 1000,
  );
  const started = Date.parse(status(pod, 'web').state.running?.startedAt ?? '');
  expect(Date.parse(readyCondition?.lastTransitionTime ?? '')).toBeGreaterThanOrEqual(started + 4000);
  expect(status(pod, 'web').restartCount).toBe(0);
  expect(status(pod, 'web').ready).toBe(true);
});
