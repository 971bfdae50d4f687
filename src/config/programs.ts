import type { DrainSpec, HookSpec, ProbeSpec, ProcessSpec } from '../plan/plan.ts';
import { at, type Origin, type Report } from './config-error.ts';
import type { Entry, ProcessDraft } from './process.ts';
import type { TargetFlags } from './target-flags.ts';

// Whether each command a run would start can be found here: a process's own,
// its exec probes and hooks (which run in its env and cwd), and the drain (in
// the app's). The check itself is the run's (a port, ProgramCheck: main.ts
// gives it prepareSpawn, which resolves PATH and the execute bit as the spawn
// will), so `validate` cannot say "found" for a program the run refuses with
// 127 or 126. What it finds missing may be there in the image the config is
// meant for, so it is a warning unless `validate --programs` asks for errors.

/** Why `command` could not be started with this env and cwd, or undefined when it could. */
export type ProgramCheck = (command: readonly [string, ...string[]], where: Pick<ProcessSpec, 'env' | 'cwd'>) => string | undefined;

/** One command a run would start, where it was written. */
interface PlannedCommand {
  readonly command: readonly [string, ...string[]];
  readonly where: Pick<ProcessSpec, 'env' | 'cwd'>;
  readonly origin: Origin;
}

export interface ProgramsInput {
  /** Each entry's draft as written, and with the flags that name it applied. */
  readonly processes: readonly { readonly entry: Entry; readonly written: ProcessDraft; readonly draft: ProcessDraft }[];
  readonly targets: TargetFlags;
  readonly drain: { readonly spec: DrainSpec | undefined; readonly origin: Origin };
}

export function checkPrograms(input: ProgramsInput, check: ProgramCheck, report: Report): void {
  for (const { command, where, origin } of plannedCommands(input)) {
    const problem = check(command, where);
    if (problem !== undefined) report(origin, problem);
  }
}

function plannedCommands({ processes, targets, drain }: ProgramsInput): PlannedCommand[] {
  const commands: PlannedCommand[] = [];
  for (const { entry, draft: spec, written } of processes) {
    const where = { env: spec.env, cwd: spec.cwd };
    const add = (command: readonly [string, ...string[]] | undefined, origin: Origin) => {
      if (command !== undefined) commands.push({ command, where, origin });
    };
    // An external's command is only its name in the log: it is never started.
    if (spec.role !== 'external') add(spec.command, at(entry.origin, 'command'));
    // A probe replaced by --ready is the flag's, not the file's.
    const readyFlag = targets.ready.find((flag) => flag.name === spec.name);
    const readinessOrigin =
      readyFlag !== undefined && spec.readiness?.probe !== written.readiness?.probe
        ? readyFlag.origin
        : at(entry.origin, 'readiness', 'probe');
    add(execOfProbe(spec.readiness?.probe), readinessOrigin);
    add(execOfProbe(spec.liveness?.probe), at(entry.origin, 'liveness', 'probe'));
    add(execOfHook(spec.postStart), at(entry.origin, 'postStart'));
    add(execOfHook(spec.preStop), at(entry.origin, 'preStop'));
    // The drain runs "inside" the app, with its env and cwd.
    if (spec.role === 'app' && drain.spec?.kind === 'hook') add(execOfHook(drain.spec.hook), drain.origin);
  }
  return commands;
}

function execOfProbe(probe: ProbeSpec | undefined): readonly [string, ...string[]] | undefined {
  if (probe?.kind !== 'exec') return undefined;
  const [program, ...args] = probe.command;
  return program === undefined ? undefined : [program, ...args];
}

function execOfHook(hook: HookSpec | undefined): readonly [string, ...string[]] | undefined {
  return hook?.kind === 'exec' ? hook.command : undefined;
}
