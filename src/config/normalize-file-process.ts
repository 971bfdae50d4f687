import type { Entry } from './entry.ts';
import { normalizeCommand } from './normalize-command.ts';
import { normalizeEnv } from './normalize-env.ts';
import { normalizeReadiness } from './normalize-readiness.ts';
import type { ReadinessSpec } from './plan.ts';
import { at, fileOrigin, type Report } from './problem.ts';
import type { CheckedProcess } from './validate-schema.ts';

/** processes[index] of the file as an Entry; its draft is undefined when it has any problem. */
export function normalizeFileProcess(checked: CheckedProcess, index: number, report: Report): Entry {
  const { name, role, command: rawCommand, env: rawEnv, cwd } = checked.fields;
  const origin = fileOrigin('processes', index);
  let failed = !checked.valid;
  const track: Report = (...problem) => {
    failed = true;
    report(...problem);
  };

  const command = rawCommand === undefined ? undefined : normalizeCommand(rawCommand, at(origin, 'command'), track);
  const env = normalizeEnv(rawEnv ?? {}, at(origin, 'env'), track);
  if (cwd === '') track(at(origin, 'cwd'), 'is empty; leave cwd out to use the working directory of sidecar-init');
  let readiness: ReadinessSpec | undefined;
  if (checked.readiness !== undefined && role !== undefined && role !== 'sidecar') {
    track(at(origin, 'readiness'), `only sidecars have readiness; this process has role ${role}`);
  } else if (checked.readiness !== undefined) {
    readiness = normalizeReadiness(checked.readiness, at(origin, 'readiness'), track);
  }

  if (failed || name === undefined || role === undefined || command === undefined) {
    return { name, role, origin, draft: undefined };
  }
  return { name, role, origin, draft: { name, role, command, env, cwd, readiness } };
}
