import { ConfigError, formatConfigError } from '../config/config-error.ts';
import { loadPlan } from '../config/load-plan.ts';
import type { ArgsVerdict, InjectedCommand } from '../webhook/plan-injection.ts';
import { parseArgs } from './parse-args.ts';

/**
 * How `sidecar-init validate` judges the command line the webhook is about to
 * give a container: the same parser and the same checks, with the container's
 * SIDECAR_INIT_* variables as its environment. A config file (-c) lives in the
 * pod, not here: its flags are checked, the file when the container starts.
 */
export function checkInjectedArgs(command: InjectedCommand, env: Readonly<Record<string, string>>): ArgsVerdict {
  const parsed = parseArgs([...command.flags, '--', ...command.app], env);
  switch (parsed.kind) {
    case 'exit':
      return { ok: false, message: parsed.code === 0 ? 'the flags ask for help or the version, not a run' : parsed.output.trim() };
    case 'run': {
      // An operand among the flags ("/bin/sh -c 'echo pwned'") would become the
      // app, and the container's own command its arguments: only options may
      // come before "--".
      const operand = operandAmongFlags(parsed.cli.app, command.app);
      if (operand !== undefined) {
        return {
          ok: false,
          operand,
          message: `the flags hold an operand, ${JSON.stringify(operand)}, which sidecar-init would run as the app`,
        };
      }
      if (parsed.configFile !== undefined) return { ok: true };
      try {
        loadPlan({ cli: parsed.cli });
        return { ok: true };
      } catch (error) {
        if (!(error instanceof ConfigError)) throw error;
        return { ok: false, message: formatConfigError(error, 'injected').trim() };
      }
    }
    case 'version':
      return { ok: false, message: 'the flags ask for the version, not a run' };
    case 'validate':
    case 'plan':
    case 'webhook':
    case 'install':
    case 'schema':
    case 'ctl':
      return { ok: false, message: `the flags start with the ${parsed.kind} command, not a run` };
  }
}

/** The first word sidecar-init would run that is not the app's: the parsed app is longer than the one given after "--". */
function operandAmongFlags(parsed: readonly string[], app: readonly string[]): string | undefined {
  if (parsed.length === app.length && parsed.every((word, index) => word === app[index])) return undefined;
  return parsed.length > app.length ? parsed[0] : (parsed[0] ?? '');
}
