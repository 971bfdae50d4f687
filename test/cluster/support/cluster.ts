import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments, stringify } from 'yaml';

// The running cluster (scripts/cluster/up.sh) as the tests see it: kubectl,
// the tier's own build, with the admin kubeconfig, and what the API server
// reports (Job conditions, pod phase, container states). Every wait is for a
// state the API server reports, polled, with a generous liveness bound.

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

function clusterEnv(): { bin: string; kubeconfig: string; sock: string; cache: string } {
  const out = execFileSync(
    'bash',
    [
      '-c',
      '. scripts/cluster/versions.sh; . scripts/cluster/env.sh; printf "%s\\n" "$CLUSTER_BIN" "$KUBECONFIG_FILE" "$CONTAINERD_SOCK" "$CLUSTER_CACHE"',
    ],
    {
      cwd: ROOT,
      encoding: 'utf8',
    },
  );
  const [bin = '', kubeconfig = '', sock = '', cache = ''] = out.trim().split('\n');
  return { bin, kubeconfig, sock, cache };
}

export const CLUSTER = clusterEnv();

export interface CommandResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a command with optional standard input; never rejects on a non-zero exit, which callers judge. */
export function exec(command: string, args: readonly string[], input?: string, timeoutMs = 120_000): Promise<CommandResult> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'], timeout: timeoutMs });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('error', (error) => resolve({ code: 127, stdout, stderr: `${stderr}${error.message}` }));
    child.on('close', (code, signal) => resolve({ code: code ?? (signal === null ? 1 : 128), stdout, stderr }));
    // A command that never reads its input closes the pipe early: not an error of the command's.
    child.stdin.on('error', () => undefined);
    child.stdin.end(input ?? '');
  });
}

export async function kubectl(args: readonly string[], input?: string): Promise<string> {
  const result = await exec(`${CLUSTER.bin}/kube`, ['kubectl', `--kubeconfig=${CLUSTER.kubeconfig}`, ...args], input);
  if (result.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${result.code}): ${result.stderr.trim()}`);
  return result.stdout;
}

export async function getJson<T>(args: readonly string[]): Promise<T> {
  return JSON.parse(await kubectl([...args, '-o', 'json'])) as T;
}

/** A namespace of its own for one test: its name. */
export async function createNamespace(prefix: string): Promise<string> {
  const name = `${prefix}-${randomBytes(3).toString('hex')}`;
  await kubectl(['create', 'namespace', name]);
  // The namespace's default ServiceAccount, which a pod needs before it is admitted.
  await waitFor(`serviceaccount default in ${name}`, 60_000, async () => {
    const result = await exec(`${CLUSTER.bin}/kube`, [
      'kubectl',
      `--kubeconfig=${CLUSTER.kubeconfig}`,
      'get',
      'serviceaccount',
      'default',
      '-n',
      name,
    ]);
    return result.code === 0 ? true : undefined;
  });
  return name;
}

/** Deletes the namespace and waits until it, and so every pod in it, is gone. */
export async function deleteNamespace(name: string): Promise<void> {
  await kubectl(['delete', 'namespace', name, '--wait=true', '--timeout=120s']);
}

/** Polls `check` every 250 ms until it returns a value; fails after `timeoutMs` with `what`. */
export async function waitFor<T>(what: string, timeoutMs: number, check: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

export interface Condition {
  readonly type: string;
  readonly status: string;
  readonly reason?: string;
  readonly message?: string;
}

export interface ContainerState {
  readonly running?: { startedAt: string };
  readonly waiting?: { reason: string; message?: string };
  readonly terminated?: { exitCode: number; reason?: string; message?: string; signal?: number; startedAt: string; finishedAt: string };
}

export interface ContainerStatus {
  readonly name: string;
  readonly state: ContainerState;
  readonly lastState?: ContainerState;
  readonly ready: boolean;
  readonly started?: boolean;
  readonly restartCount: number;
}

export interface Pod {
  readonly metadata: { readonly name: string; readonly creationTimestamp: string; readonly labels?: Record<string, string> };
  readonly spec: { readonly nodeName?: string; readonly [key: string]: unknown };
  readonly status: {
    readonly phase: string;
    readonly conditions?: Condition[];
    readonly containerStatuses?: ContainerStatus[];
    readonly initContainerStatuses?: ContainerStatus[];
  };
}

export interface Job {
  readonly metadata: { readonly name: string };
  readonly status: { readonly conditions?: Condition[]; readonly succeeded?: number; readonly failed?: number; readonly active?: number };
}

/** Waits until the Job's Complete or Failed condition is True; returns which and the Job. */
export async function waitForJob(
  namespace: string,
  name: string,
  timeoutMs = 180_000,
): Promise<{ outcome: 'Complete' | 'Failed'; job: Job }> {
  return waitFor(`job ${namespace}/${name} to complete or fail`, timeoutMs, async () => {
    const job = await getJson<Job>(['get', 'job', name, '-n', namespace]);
    const done = job.status.conditions?.find(
      (condition) => (condition.type === 'Complete' || condition.type === 'Failed') && condition.status === 'True',
    );
    return done === undefined ? undefined : { outcome: done.type as 'Complete' | 'Failed', job };
  });
}

export async function jobPods(namespace: string, job: string): Promise<Pod[]> {
  return (await getJson<{ items: Pod[] }>(['get', 'pods', '-n', namespace, '-l', `job-name=${job}`])).items;
}

export function status(pod: Pod, name: string): ContainerStatus {
  const found = [...(pod.status.containerStatuses ?? []), ...(pod.status.initContainerStatuses ?? [])].find((entry) => entry.name === name);
  if (found === undefined) throw new Error(`pod ${pod.metadata.name} reports no status for container ${name}`);
  return found;
}

/** The documents of a manifest, as objects to change before applying. */
export function documents(yaml: string): Record<string, unknown>[] {
  return parseAllDocuments(yaml).map((document) => document.toJS() as Record<string, unknown>);
}

export async function apply(namespace: string, objects: readonly unknown[]): Promise<void> {
  await kubectl(['apply', '-n', namespace, '-f', '-'], objects.map((object) => stringify(object)).join('---\n'));
}

export async function logs(namespace: string, pod: string, container: string): Promise<string> {
  return kubectl(['logs', '-n', namespace, pod, '-c', container]);
}

/**
 * A finalizer of the tests' own: a pod deleted with it (kubectl delete pod)
 * stays readable, its containers' final states and logs included, until the
 * test has looked and calls releasePods.
 */
export const KEEP_FINALIZER = 'sidecar-init.test/keep';

/** Removes KEEP_FINALIZER from every pod of the namespace, so deleting the namespace can finish. */
export async function releasePods(namespace: string): Promise<void> {
  const pods = await getJson<{ items: Pod[] }>(['get', 'pods', '-n', namespace]).catch(() => ({ items: [] as Pod[] }));
  for (const pod of pods.items)
    await kubectl(['patch', 'pod', pod.metadata.name, '-n', namespace, '--type=merge', '-p', '{"metadata":{"finalizers":null}}']).catch(
      () => undefined,
    );
}

/** A container's log as `kubectl logs -f` streams it: the text so far, a wait for a line, and the end (the container's exit). */
export interface FollowedLog {
  text(): string;
  /** Resolves with the first JSON line `match` accepts, as soon as the stream has it. */
  waitForLine(what: string, timeoutMs: number, match: (line: Record<string, unknown>) => boolean): Promise<Record<string, unknown>>;
  /** Resolves once the stream ends: the container has exited and every line is in. */
  readonly ended: Promise<CommandResult>;
}

/** Follows a running container's log from its start (`kubectl logs -f`), so lines stay readable whatever happens to the pod later. */
export function followLogs(namespace: string, pod: string, container: string, timeoutMs = 300_000): FollowedLog {
  const child = spawn(
    `${CLUSTER.bin}/kube`,
    ['kubectl', `--kubeconfig=${CLUSTER.kubeconfig}`, 'logs', '-f', '-n', namespace, pod, '-c', container],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: timeoutMs,
    },
  );
  let stdout = '';
  let stderr = '';
  const waiters = new Set<() => void>();
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
    for (const waiter of waiters) waiter();
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  let closed = false;
  const ended = new Promise<CommandResult>((resolve) => {
    const end = (result: CommandResult) => {
      closed = true;
      resolve(result);
      for (const waiter of waiters) waiter();
    };
    child.on('error', (error) => end({ code: 127, stdout, stderr: `${stderr}${error.message}` }));
    child.on('close', (code, signal) => end({ code: code ?? (signal === null ? 1 : 128), stdout, stderr }));
  });
  const find = (match: (line: Record<string, unknown>) => boolean) =>
    stdout
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => {
        try {
          return JSON.parse(line) as Record<string, unknown>;
        } catch {
          return undefined;
        }
      })
      .find((line) => line !== undefined && match(line));
  return {
    text: () => stdout,
    ended,
    waitForLine: (what, waitMs, match) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(
            new Error(
              `timed out after ${waitMs} ms waiting for ${what} in the log of ${namespace}/${pod}/${container}:\n${stdout}${stderr}`,
            ),
          );
        }, waitMs);
        function check(): void {
          const found = find(match);
          if (found === undefined && !closed) return;
          clearTimeout(timer);
          waiters.delete(check);
          if (found !== undefined) resolve(found);
          else reject(new Error(`the log of ${namespace}/${pod}/${container} ended without ${what}:\n${stdout}${stderr}`));
        }
        waiters.add(check);
        check();
      }),
  };
}

/** Runs a command in a running container (`kubectl exec`). */
export async function execIn(namespace: string, pod: string, container: string, command: readonly string[]): Promise<string> {
  return kubectl(['exec', '-n', namespace, pod, '-c', container, '--', ...command]);
}
