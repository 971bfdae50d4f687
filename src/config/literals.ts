import type { LogLevel, Role } from './plan.ts';

// Runtime lists of the string-literal unions in plan.ts, for validation and help.

export const ROLES = ['init', 'sidecar', 'app'] as const satisfies readonly Role[];
export const LOG_LEVELS = [
  'trace',
  'debug',
  'info',
  'warn',
  'error',
  'fatal',
  'silent',
] as const satisfies readonly LogLevel[];

// Compile-time checks that the lists cover the unions in plan.ts: adding a
// role or a level there without listing it here fails to compile.
type Covers<Union, List extends readonly unknown[]> = [Exclude<Union, List[number]>] extends [never] ? true : false;
const rolesCovered: Covers<Role, typeof ROLES> = true;
const logLevelsCovered: Covers<LogLevel, typeof LOG_LEVELS> = true;
void [rolesCovered, logLevelsCovered];

export function isRole(value: unknown): value is Role {
  return (ROLES as readonly unknown[]).includes(value);
}

export function isLogLevel(value: unknown): value is LogLevel {
  return (LOG_LEVELS as readonly unknown[]).includes(value);
}
