import type { LogFormat, LogLevel, OutputMode, ProbeSpec, RestartPolicy, Role } from './plan.ts';

// Runtime lists of the string-literal unions in plan.ts, for validation and help.

export const ROLES = ['init', 'sidecar', 'app', 'external'] as const satisfies readonly Role[];
export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const satisfies readonly LogLevel[];
export const RESTART_POLICIES = ['always', 'on-failure', 'never'] as const satisfies readonly RestartPolicy[];
export const LOG_FORMATS = ['json', 'text'] as const satisfies readonly LogFormat[];
export const OUTPUT_MODES = ['inherit', 'prefix', 'json'] as const satisfies readonly OutputMode[];
/** The keys of a probe's object form, one per kind users write ('process' and 'announced' are made by sidecar-init for externals). */
export const PROBE_KINDS = ['tcp', 'http', 'exec', 'log', 'file', 'grpc', 'notify', 'fd'] as const satisfies readonly ProbeSpec['kind'][];
/** The methods an http hook may use (HookSpec['method'] is their upper-case name). */
export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD'] as const;

// Compile-time checks that the lists cover the unions in plan.ts: adding a
// role or a level there without listing it here fails to compile.
type Covers<Union, List extends readonly unknown[]> = [Exclude<Union, List[number]>] extends [never] ? true : false;
const rolesCovered: Covers<Role, typeof ROLES> = true;
const logLevelsCovered: Covers<LogLevel, typeof LOG_LEVELS> = true;
const policiesCovered: Covers<RestartPolicy, typeof RESTART_POLICIES> = true;
const probeKindsCovered: Covers<Exclude<ProbeSpec['kind'], 'process' | 'announced'>, typeof PROBE_KINDS> = true;
const logFormatsCovered: Covers<LogFormat, typeof LOG_FORMATS> = true;
const outputModesCovered: Covers<OutputMode, typeof OUTPUT_MODES> = true;
void [rolesCovered, logLevelsCovered, policiesCovered, probeKindsCovered, logFormatsCovered, outputModesCovered];

export function isRestartPolicy(value: unknown): value is RestartPolicy {
  return (RESTART_POLICIES as readonly unknown[]).includes(value);
}

export function isLogLevel(value: unknown): value is LogLevel {
  return (LOG_LEVELS as readonly unknown[]).includes(value);
}
