import { readFileSync, readdirSync } from 'node:fs';
import type { RunningSupervisor } from './supervisor.ts';

// Externals are processes of other containers in a pod's PID namespace, and
// sidecar-init refuses them in the host's initial namespace. Tests give the
// supervisor a namespace of its own with `unshare --pid --fork --mount-proc`:
// as its PID 1 (startSupervisor's pid1), or, where externals must be found,
// under a shell that plays the pod's pause process and starts the "other
// containers" beside sidecar-init (podWrapper).

/**
 * Whether this test's /proc shows the host's initial PID namespace: kthreadd,
 * the kernel's thread creator, is PID 2 there (parent 0) and in no other
 * namespace. True on a machine or VM, false in a container, and no test can
 * make it true inside a container: no PID namespace can be given the initial
 * one's processes. A test that needs it is skipped elsewhere and says so
 * (HOST_ONLY), rather than failing on where it happens to run.
 */
export const PROC_SHOWS_KTHREADD = /^Name:\tkthreadd$/m.test(readProcStatus(2)) && /^PPid:\t0$/m.test(readProcStatus(2));
export const HOST_ONLY = 'only where /proc shows kthreadd: the host’s initial PID namespace, not a container’s';

function readProcStatus(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return '';
  }
}

/** The children of `pid`, from the kernel's per-thread lists. */
export function childrenOf(pid: number): number[] {
  return readdirSync(`/proc/${pid}/task`).flatMap((task) =>
    readFileSync(`/proc/${pid}/task/${task}/children`, 'latin1')
      .split(' ')
      .filter((word) => word !== '')
      .map(Number),
  );
}

/**
 * The PID (as this test sees it) of a supervisor started with pid1 or
 * podWrapper: unshare's child, and under podWrapper that shell's child that is
 * not a target. Call it once the supervisor has logged, so unshare has forked.
 */
export function supervisorPid(run: RunningSupervisor): number {
  const [namespaceInit] = childrenOf(run.process.pid ?? 0);
  if (namespaceInit === undefined) throw new Error('unshare has no child yet');
  const comm = readFileSync(`/proc/${namespaceInit}/comm`, 'utf8').trim();
  if (comm !== 'sh') return namespaceInit;
  const supervisor = childrenOf(namespaceInit).find((pid) => readFileSync(`/proc/${pid}/cmdline`, 'latin1').includes('sidecar-init'));
  if (supervisor === undefined) throw new Error('the pod shell has not started sidecar-init yet');
  return supervisor;
}

/**
 * A wrapper (startSupervisor's `wrapper`) that runs sidecar-init in a new PID
 * namespace whose PID 1 is a shell, as a pod's pause process: the shell runs
 * `targets` (background commands, the other containers' processes) and then
 * sidecar-init beside them, not as their parent, and exits with its code. When
 * the shell exits the kernel kills whatever is left in the namespace.
 */
export function podWrapper(targets: string): string[] {
  return ['unshare', '--pid', '--fork', '--mount-proc', '--kill-child', '/bin/sh', '-c', `${targets}\n"$@"\nexit $?`, 'pod'];
}
