import type { Plan } from '../plan/plan.ts';
import { seesHostProcesses } from '../os/namespace-mode.ts';

// Externals are for a pod's shared PID namespace, where every process belongs
// to a container of the same pod. In the host's initial namespace every
// user's processes are visible, and a loose matcher would signal an unrelated
// one (someone's `sleep`, the reader of sidecar-init's own log). So there an
// external is looked for only when its entry says allowHost: true. An
// `announced` external is never looked for in /proc (its file is all there
// is to it), so it is never refused.

/** Why the plan cannot run here, or undefined: an external found in /proc without allowHost, and /proc showing the host's processes. */
export function refuseHostExternals(plan: Plan, onHost: boolean = seesHostProcesses()): string | undefined {
  if (!onHost) return undefined;
  const refused = plan.processes
    .filter((spec) => spec.external !== undefined && spec.external.announced === undefined && !spec.external.allowHost)
    .map((spec) => spec.name);
  if (refused.length === 0) return undefined;
  const names = refused.join(', ');
  return (
    `external ${names}: sidecar-init sees the host's processes (it runs in the host's PID namespace, not in a container's or a pod's), where every user's processes are visible, ` +
    `so ${refused.length === 1 ? 'it is' : 'they are'} not looked for; externals are for a pod with shareProcessNamespace. ` +
    `To match processes of this host on purpose, set allowHost: true on ${refused.length === 1 ? 'it' : 'each'} in the config file.`
  );
}
