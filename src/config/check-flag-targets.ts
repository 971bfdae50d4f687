import type { Entry } from './entry.ts';
import type { Role } from './plan.ts';
import type { Report } from './problem.ts';
import { quote } from './result.ts';
import type { TargetFlag } from './target-flag.ts';

const ROLE_NAMES: Readonly<Record<Role, string>> = { init: 'an init step', sidecar: 'a sidecar', app: 'the app' };

export interface TargetRule<Value> {
  /** The roles the flag applies to; undefined: any. */
  readonly roles?: readonly Role[] | undefined;
  /** A problem with the value for this target, e.g. a policy that does not suit its role. */
  readonly checkValue?: ((value: Value, target: Entry) => string | undefined) | undefined;
}

/**
 * Each --ready, --restart or --stop-signal names a process that exists and
 * suits the flag, once per flag; problems in command-line order.
 */
export function checkFlagTargets<Value>(
  flags: readonly TargetFlag<Value>[],
  entries: readonly Entry[],
  rule: TargetRule<Value>,
  report: Report,
): void {
  const { roles, checkValue } = rule;
  const seen = new Map<string, TargetFlag<Value>>();
  for (const flag of flags) {
    const earlier = seen.get(flag.name);
    if (earlier !== undefined) {
      report(flag.origin, `${flag.flag} was already given for ${quote(flag.name)}`, earlier.origin);
      continue;
    }
    seen.set(flag.name, flag);
    const target = entries.find((entry) => entry.name === flag.name);
    if (target === undefined) {
      report(flag.origin, `no process is named ${quote(flag.name)}; ${describeTargets(entries, roles)}`);
    } else if (roles !== undefined && target.role !== undefined && !roles.includes(target.role)) {
      report(flag.origin, `${quote(flag.name)} is ${ROLE_NAMES[target.role]}; ${flag.flag} applies only to ${describeRoles(roles)}`);
    } else {
      const problem = flag.value === undefined ? undefined : checkValue?.(flag.value, target);
      if (problem !== undefined) report(flag.origin, problem);
    }
  }
}

function describeTargets(entries: readonly Entry[], roles: readonly Role[] | undefined): string {
  const names = entries.flatMap((entry) =>
    entry.name !== undefined && (roles === undefined || (entry.role !== undefined && roles.includes(entry.role))) ? [entry.name] : [],
  );
  const what = roles === undefined ? 'processes' : describeRoles(roles);
  return names.length === 0 ? `there are no ${what}` : `the ${what} are ${names.join(', ')}`;
}

function describeRoles(roles: readonly Role[]): string {
  return roles.map((role) => (role === 'init' ? 'init steps' : role === 'sidecar' ? 'sidecars' : 'apps')).join(' and ');
}
