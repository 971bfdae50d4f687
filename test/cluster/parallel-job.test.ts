import { spawn } from 'node:child_process';
import { afterAll, afterEach, describe, expect, test } from 'vitest';
import { APP_IMAGE, SIDECAR_INIT_IMAGE, VOLUME_IMAGE } from '../pod/support/images.ts';
import { apply, CLUSTER, createNamespace, deleteNamespace, jobPods, status, waitForJob } from './support/cluster.ts';

// A Job of 50 completions, 10 at a time, the same job three ways: run as the
// image's own command, under sidecar-init copied in by an init container
// (examples/k8s's Jobs), and under sidecar-init from its image volume. All 50
// pods of each complete; the time from each pod's creation to its Succeeded,
// both seen on a watch of the API server, is what sidecar-init adds to a pod
// (printed at the end; docs/kubernetes.md gives a run's figures).

const COMPLETIONS = 50;
const PARALLELISM = 10;
const LOCKED_DOWN = {
  runAsUser: 1000,
  runAsGroup: 1000,
  runAsNonRoot: true,
  readOnlyRootFilesystem: true,
  allowPrivilegeEscalation: false,
  capabilities: { drop: ['ALL'] },
};
const MOUNT = { name: 'sidecar-init', mountPath: '/opt/sidecar-init', readOnly: true };
const WRAPPED = ['/opt/sidecar-init/sidecar-init', '--', '/app/report-job'];

const VARIANTS = {
  'without sidecar-init': {
    containers: [
      { name: 'report', image: APP_IMAGE, imagePullPolicy: 'Never', command: ['/app/report-job'], securityContext: LOCKED_DOWN },
    ],
  },
  'sidecar-init copied in': {
    initContainers: [
      {
        name: 'sidecar-init',
        image: SIDECAR_INIT_IMAGE,
        imagePullPolicy: 'Never',
        args: ['install', '/opt/sidecar-init'],
        volumeMounts: [{ name: 'sidecar-init', mountPath: '/opt/sidecar-init' }],
        securityContext: { ...LOCKED_DOWN, runAsUser: 65532, runAsGroup: 65532 },
      },
    ],
    containers: [
      { name: 'report', image: APP_IMAGE, imagePullPolicy: 'Never', command: WRAPPED, volumeMounts: [MOUNT], securityContext: LOCKED_DOWN },
    ],
    volumes: [{ name: 'sidecar-init', emptyDir: {} }],
  },
  'sidecar-init from its image volume': {
    containers: [
      { name: 'report', image: APP_IMAGE, imagePullPolicy: 'Never', command: WRAPPED, volumeMounts: [MOUNT], securityContext: LOCKED_DOWN },
    ],
    volumes: [{ name: 'sidecar-init', image: { reference: VOLUME_IMAGE, pullPolicy: 'IfNotPresent' } }],
  },
} as const;

interface Figures {
  readonly perPodMs: number[];
  readonly jobMs: number;
}
const figures = new Map<string, Figures>();

/**
 * Watches the Job's pods (the API's watch, through `kubectl get --raw`): when
 * each was first seen and when it was first seen Succeeded, on this machine's
 * clock, which the API server shares. Resolves once the API server has said
 * the initial events are over (sendInitialEvents: a bookmark), so every pod
 * created afterwards is seen from its creation.
 */
async function watchPods(namespace: string, job: string) {
  const query = new URLSearchParams({
    watch: 'true',
    labelSelector: `job-name=${job}`,
    allowWatchBookmarks: 'true',
    sendInitialEvents: 'true',
    resourceVersionMatch: 'NotOlderThan',
  });
  const child = spawn(
    `${CLUSTER.bin}/kube`,
    ['kubectl', `--kubeconfig=${CLUSTER.kubeconfig}`, 'get', '--raw', `/api/v1/namespaces/${namespace}/pods?${query}`],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const seen = new Map<string, number>();
  const succeeded = new Map<string, number>();
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const watching = new Promise<void>((resolve, reject) => {
    let pending = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      const now = Date.now();
      pending += chunk;
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        if (line.trim() === '') continue;
        const event = JSON.parse(line) as {
          type: string;
          object: { metadata: { name?: string; annotations?: Record<string, string> }; status?: { phase?: string } };
        };
        if (event.type === 'BOOKMARK') {
          if (event.object.metadata.annotations?.['k8s.io/initial-events-end'] === 'true') resolve();
          continue;
        }
        const { name } = event.object.metadata;
        if (name === undefined) continue;
        if (!seen.has(name)) seen.set(name, now);
        if (event.object.status?.phase === 'Succeeded' && !succeeded.has(name)) succeeded.set(name, now);
      }
    });
    child.on('close', (code) => reject(new Error(`the watch of ${namespace}'s pods ended (${code}) before it began: ${stderr}`)));
  });
  await watching;
  return {
    stop(): { seen: Map<string, number>; succeeded: Map<string, number> } {
      child.kill();
      return { seen, succeeded };
    },
  };
}

function summary(values: readonly number[]): string {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
  const mean = sorted.reduce((sum, value) => sum + value, 0) / sorted.length;
  const s = (ms: number) => (ms / 1000).toFixed(2);
  return `median ${s(at(0.5))} s, mean ${s(mean)} s, p90 ${s(at(0.9))} s, max ${s(sorted.at(-1) ?? Number.NaN)} s`;
}

let namespace: string | undefined;
afterEach(async () => {
  if (namespace !== undefined) await deleteNamespace(namespace);
  namespace = undefined;
});

afterAll(() => {
  const lines = [...figures].map(
    ([variant, { perPodMs, jobMs }]) =>
      `  ${variant}: per pod, creation to Succeeded: ${summary(perPodMs)}; the Job: ${(jobMs / 1000).toFixed(1)} s`,
  );
  process.stdout.write(`a Job of ${COMPLETIONS} completions, parallelism ${PARALLELISM}:\n${lines.join('\n')}\n`);
});

describe(`a Job of ${COMPLETIONS} completions, parallelism ${PARALLELISM}`, () => {
  test.each(Object.keys(VARIANTS) as (keyof typeof VARIANTS)[])(
    '%s: every pod completes; the time per pod from creation to Succeeded is measured',
    async (variant) => {
      const ns = await createNamespace('parallel');
      namespace = ns;
      const watch = await watchPods(ns, 'batch');
      const applied = Date.now();
      await apply(ns, [
        {
          apiVersion: 'batch/v1',
          kind: 'Job',
          metadata: { name: 'batch' },
          spec: {
            completions: COMPLETIONS,
            parallelism: PARALLELISM,
            backoffLimit: 0,
            template: { spec: { restartPolicy: 'Never', terminationGracePeriodSeconds: 30, ...VARIANTS[variant] } },
          },
        },
      ]);
      const { outcome, job } = await waitForJob(ns, 'batch', 900_000);
      const jobMs = Date.now() - applied;
      const { seen, succeeded } = watch.stop();
      expect(outcome).toBe('Complete');
      expect(job.status.succeeded).toBe(COMPLETIONS);
      expect(job.status.failed ?? 0).toBe(0);

      const pods = await jobPods(ns, 'batch');
      expect(pods).toHaveLength(COMPLETIONS);
      for (const pod of pods) {
        expect({ pod: pod.metadata.name, phase: pod.status.phase }).toEqual({ pod: pod.metadata.name, phase: 'Succeeded' });
        expect(status(pod, 'report').state.terminated?.exitCode).toBe(0);
      }
      const perPodMs = pods.map((pod) => {
        const from = seen.get(pod.metadata.name);
        const to = succeeded.get(pod.metadata.name);
        if (from === undefined || to === undefined)
          throw new Error(`the watch missed pod ${pod.metadata.name}'s creation or its Succeeded`);
        return to - from;
      });
      figures.set(variant, { perPodMs, jobMs });
    },
    900_000,
  );
});
