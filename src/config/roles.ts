import { isRecord } from '../support/is-record.ts';
import * as z from 'zod';
import { CommandSchema } from './command.ts';
import { ROLES } from '../plan/literals.ts';
import type { Role } from '../plan/plan.ts';
import { EXTERNAL_STARTED_ONLY_PROBE, isStartedOnlyProbeAsWritten, readinessField } from './probe.ts';
import { checkPolicyForRole, RestartPolicySchema } from './restart.ts';
import { describeValue, mapping, suggestFor, unknownKeyMessage } from './schema-fields.ts';
import { builtOnFirstUse } from '../support/built-on-first-use.ts';

// What a process's role decides: which fields it has, and what it needs
// beyond their own checks. A process is one mapping per role, chosen by
// `role` (process.ts makes the union), so an init step's mapping has no
// readiness and a field of another role is named as such.

export const READINESS_DESCRIPTION = 'Sidecars and externals: when it counts as started.';
export const RESTART_DESCRIPTION = 'Default: always for a sidecar, never for an init step and the app.';

/** The processes sidecar-init starts: every role but external, which is never started, so it has nothing about running a process. */
export const STARTED: readonly Role[] = ['init', 'sidecar', 'app'];

/**
 * A field of a process and the roles that have it. Every field states its
 * roles in its row (processFields, process.ts; EXTERNAL_FIELDS, external.ts),
 * so a new field does not compile until it says whose it is. An init step runs
 * to completion, so it has no readiness, liveness or hooks; only a sidecar can
 * be fatal to the pod; only the app's exit code is the pod's.
 */
export interface ProcessField<Schema extends z.ZodType = z.ZodType> {
  readonly roles: readonly Role[];
  readonly schema: Schema;
}

export function processField<Schema extends z.ZodType>(roles: readonly Role[], schema: Schema): ProcessField<Schema> {
  return { roles, schema };
}

/**
 * A field a process may leave out, with the roles that have it and what the
 * JSON Schema says of it: most rows of processFields and EXTERNAL_FIELDS.
 */
export function optionalField<Schema extends z.ZodType>(
  roles: ProcessField['roles'],
  schema: Schema,
  meta?: string | z.GlobalMeta,
): ProcessField<z.ZodOptional<Schema>> {
  const optional = schema.optional();
  return processField(roles, meta === undefined ? optional : optional.meta(typeof meta === 'string' ? { description: meta } : meta));
}

/** The fields, each with its roles. */
export type ProcessFieldRows = Readonly<Record<string, ProcessField>>;

/** The schemas of the rows, for the mapping of every field of every role. */
export type SchemasOf<Rows extends ProcessFieldRows> = { readonly [Key in keyof Rows]: Rows[Key]['schema'] };

export function schemasOf<Rows extends ProcessFieldRows>(rows: Rows): SchemasOf<Rows> {
  return Object.fromEntries(Object.entries(rows).map(([key, row]) => [key, row.schema])) as SchemasOf<Rows>;
}

/** What a role needs beyond its fields' own checks. */
interface RoleRules {
  /** Fields that are stricter for this role. */
  readonly fields?: Readonly<Record<string, z.ZodType>>;
  readonly check?: (value: Record<string, unknown>, context: z.core.$RefinementCtx<Record<string, unknown>>) => void;
}

const ROLE_RULES = builtOnFirstUse(
  (): Readonly<Partial<Record<Role, RoleRules>>> => ({
    // A process sidecar-init starts needs a command.
    init: {
      fields: {
        command: CommandSchema(),
        restart: RestartPolicySchema()
          .refine((policy) => checkPolicyForRole(policy, 'init') === undefined, {
            error: checkPolicyForRole('always', 'init'),
          })
          .optional()
          .meta({ description: RESTART_DESCRIPTION }),
      },
    },
    // A sidecar's readiness needs its probe; an external's may come from its preset.
    sidecar: {
      fields: { command: CommandSchema(), readiness: readinessField('required').optional().meta({ description: READINESS_DESCRIPTION }) },
    },
    app: { fields: { command: CommandSchema() } },
    external: {
      check: (value, context) => {
        if (isRecord(value.readiness) && isStartedOnlyProbeAsWritten(value.readiness.probe)) {
          context.addIssue({ code: 'custom', message: EXTERNAL_STARTED_ONLY_PROBE, input: value, path: ['readiness', 'probe'] });
        }
        if ('announced' in value) {
          checkAnnounced(value, context);
          return;
        }
        if ('preset' in value || 'match' in value) return;
        const message =
          'an external needs a preset, a match or announced: how to find its process, ' +
          'e.g. preset: istio, match: { comm: envoy } or announced: /handoff/proxy';
        context.addIssue({ code: 'custom', message, input: value });
      },
    },
  }),
);

/**
 * An `announced` external is known by its file alone: nothing is looked for
 * in /proc (no preset, match or allowHost) and nothing is called or signalled
 * (a stop is only `none`, not waiting for it to say exited).
 */
function checkAnnounced(value: Record<string, unknown>, context: z.core.$RefinementCtx<Record<string, unknown>>): void {
  const found = ['preset', 'match', 'allowHost'].filter((key) => key in value);
  if (found.length > 0) {
    const message =
      `announced is instead of ${found.join(' and ')}: another container's sidecar-init is known by its file alone, ` +
      `never looked for in /proc; remove ${found.join(' and ')}`;
    context.addIssue({ code: 'custom', message, input: value, path: [found[0]!] });
  }
  if (isRecord(value.stop) && ('http' in value.stop || 'signal' in value.stop)) {
    const message =
      'an announced external is never called or signalled: at teardown it is waited for until its file says exited; ' +
      'give stop: none to not wait, or leave stop out';
    context.addIssue({ code: 'custom', message, input: value, path: ['stop'] });
  }
}

const ROLE_NAMES: Readonly<Record<Role, string>> = { init: 'an init step', sidecar: 'a sidecar', app: 'the app', external: 'an external' };
const ROLE_PLURALS: Readonly<Record<Role, string>> = { init: 'init steps', sidecar: 'sidecars', app: 'the app', external: 'externals' };

/** The roles `key` is limited to; undefined for every role's field and for a key that is no field (`constructor` included). */
function limitedTo(rows: ProcessFieldRows, key: string): readonly Role[] | undefined {
  if (!Object.hasOwn(rows, key)) return undefined;
  const { roles } = rows[key]!;
  return roles.length === ROLES.length ? undefined : roles;
}

/** Whether these are the roles of the processes sidecar-init starts: every role but external. */
export function isStartedOnly(roles: readonly Role[]): boolean {
  return roles.length === STARTED.length && STARTED.every((role) => roles.includes(role));
}

/** "a sidecar", "the app". */
export function describeRole(role: Role): string {
  return ROLE_NAMES[role];
}

/** "sidecars and externals", "the app". */
export function describeRoles(roles: readonly Role[]): string {
  return roles.map((role) => ROLE_PLURALS[role]).join(' and ');
}

/** "only sidecars and the app have", "only the app has". */
function whoHas(roles: readonly Role[]): string {
  if (isStartedOnly(roles)) return 'only processes sidecar-init starts have';
  return `only ${describeRoles(roles)} ${roles.length === 1 && roles[0] === 'app' ? 'has' : 'have'}`;
}

const ROLE_DESCRIPTIONS: Readonly<Record<Role, string>> = {
  init: 'An init step: runs to completion in its turn.',
  sidecar: 'A sidecar: keeps running, started once ready.',
  app: 'The app: the main process, started last; its exit ends the run.',
  external: 'A process of another container of the pod: waited for and stopped, never started.',
};

/** One role's mapping: the fields it has, made stricter by its ROLE_RULES. */
export function roleSchema(role: Role, rows: ProcessFieldRows) {
  const shape: Record<string, z.ZodType> = {};
  for (const [key, row] of Object.entries(rows)) if (row.roles.includes(role)) shape[key] = row.schema;
  shape.role = z.literal(role).meta({ description: ROLE_DESCRIPTIONS[role] });
  Object.assign(shape, ROLE_RULES()[role]?.fields);
  // A field of another role says whose it is; a typo is suggested the closest field of any role.
  const describeKey = (key: string) => {
    const roles = limitedTo(rows, key);
    if (roles !== undefined) return `${whoHas(roles)} ${key}; this process has role ${role}`;
    return unknownKeyMessage(key, Object.keys(shape), Object.keys(rows));
  };
  const schema = mapping(shape, describeKey);
  const check = ROLE_RULES()[role]?.check;
  // Checked on what was written, even when a field has problems of its own.
  return check === undefined ? schema : schema.check(z.superRefine(check, { when: () => true }));
}

/** The role's message when no mapping matched: it is missing or not a role. */
export function roleIssue(issue: z.core.$ZodRawIssue): string | undefined {
  if (issue.code !== 'invalid_union' || !isRecord(issue.input)) return undefined;
  const { role } = issue.input;
  return role === undefined
    ? `is required; use ${ROLES.join(', ')}`
    : `${describeValue(role)} is not accepted${suggestFor(role, ROLES)}; use ${ROLES.join(', ')}`;
}
