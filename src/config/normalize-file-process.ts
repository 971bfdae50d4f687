import type { Entry, ProcessDraft } from './entry.ts';
import { normalizeCommand } from './normalize-command.ts';
import { normalizeDuration } from './normalize-duration.ts';
import { normalizeEnv } from './normalize-env.ts';
import { normalizeHook } from './normalize-hook.ts';
import { normalizeLiveness } from './normalize-liveness.ts';
import { normalizeReadiness } from './normalize-readiness.ts';
import { normalizeRestart } from './normalize-restart.ts';
import { parseSignal } from './parse-signal.ts';
import type { SignalTarget } from './plan.ts';
import { at, fileOrigin, valueOrReport, type Origin, type Report } from './problem.ts';
import { checkRoleField } from './role-fields.ts';
import type { CheckedProcess } from './validate-schema.ts';
import { checkWholeNumber, EXIT_CODE_RANGE } from './whole-number.ts';

type Fields = CheckedProcess['fields'];

/** processes[index] of the file as an Entry; its draft is undefined when it has any problem. */
export function normalizeFileProcess(checked: CheckedProcess, index: number, report: Report): Entry {
  const { fields } = checked;
  const { name, role, cwd } = fields;
  const origin = fileOrigin('processes', index);
  let failed = !checked.valid;
  const track: Report = (...problem) => {
    failed = true;
    report(...problem);
  };
  /** The normalized field when given and allowed for the role (else reported); undefined otherwise. */
  const ifGiven = <Key extends keyof Fields, Value>(
    key: Key,
    normalize: (raw: NonNullable<Fields[Key]>, fieldOrigin: Origin) => Value | undefined,
  ): Value | undefined => {
    const raw = fields[key];
    if (raw === undefined || raw === null || !checkRoleField(key, role, origin, track)) return undefined;
    return normalize(raw, at(origin, key));
  };

  const command = ifGiven('command', (raw, where) => normalizeCommand(raw, where, track));
  const env = normalizeEnv(fields.env ?? {}, at(origin, 'env'), track);
  if (cwd === '') track(at(origin, 'cwd'), 'is empty; leave cwd out to use the working directory of sidecar-init');
  const readiness = ifGiven('readiness', (raw, where) => normalizeReadiness(raw, where, track));
  const liveness = ifGiven('liveness', (raw, where) => normalizeLiveness(raw, where, track));
  const restart = normalizeRestart(fields, role, origin, track);
  const fatal = ifGiven('fatal', (raw) => raw) ?? false;
  const postStart = ifGiven('postStart', (raw, where) => normalizeHook(raw, where, track));
  const preStop = ifGiven('preStop', (raw, where) => normalizeHook(raw, where, track));
  const stopSignal = ifGiven('stopSignal', (raw, where) => valueOrReport(parseSignal(raw), where, track));
  const graceMs = normalizeDuration(fields.grace, undefined, at(origin, 'grace'), track);
  const signalTarget = ifGiven('signalGroup', (raw): SignalTarget => (raw ? 'group' : 'process'));
  const successCodes = ifGiven('successCodes', (raw, where) =>
    raw.map((code, item) => valueOrReport(checkWholeNumber(code, EXIT_CODE_RANGE), at(where, item), track)),
  );

  if (failed || name === undefined || role === undefined || command === undefined || restart === undefined) {
    return { name, role, origin, after: fields.after, draft: undefined };
  }
  const draft: ProcessDraft = {
    name,
    role,
    command,
    env,
    cwd,
    readiness,
    liveness,
    restart,
    fatal,
    postStart,
    preStop,
    stopSignal,
    graceMs,
    signalTarget,
    successCodes: (successCodes ?? []) as number[],
    after: fields.after,
  };
  return { name, role, origin, after: fields.after, draft };
}
