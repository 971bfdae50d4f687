import type { Role } from './plan.ts';
import { at, type Origin, type Report } from './problem.ts';
import type { RawProcess } from './schema.ts';

// Fields that only some roles have. An init step runs to completion, so it has
// no readiness, liveness or hooks; only a sidecar can be fatal to the pod; only
// the app's exit code is the pod's.

type RoleField = keyof RawProcess;

const ROLE_FIELDS: Partial<Record<RoleField, readonly Role[]>> = {
  readiness: ['sidecar'],
  liveness: ['sidecar', 'app'],
  fatal: ['sidecar'],
  postStart: ['sidecar', 'app'],
  preStop: ['sidecar', 'app'],
  successCodes: ['app'],
};

const WHO: Readonly<Record<string, string>> = {
  sidecar: 'only sidecars have',
  'sidecar,app': 'only sidecars and the app have',
  app: 'only the app has',
};

/** Whether a process of `role` may have `field`; reports at the field when not. An unreadable role allows everything. */
export function checkRoleField(field: RoleField, role: Role | undefined, origin: Origin, report: Report): boolean {
  const roles = ROLE_FIELDS[field];
  if (roles === undefined || role === undefined || roles.includes(role)) return true;
  report(at(origin, field), `${WHO[roles.join(',')] ?? `only ${roles.join(', ')} have`} ${field}; this process has role ${role}`);
  return false;
}
