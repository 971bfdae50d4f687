import { ConfigError, formatConfigError } from '../config/config-error.ts';
import { loadPlan } from '../config/load-plan.ts';
import { parseArgs } from './parse-args.ts';

export type ArgsVerdict = { readonly ok: true } | { readonly ok: false; readonly message: string };

/**
 * How `sidecar-init validate` judges the command line the webhook is about to
 * give a container: the same parser and the same checks, with the container's
 * SIDECAR_INIT_* variables as its environment. A config file (-c) lives in the
 * pod, not here: its flags are checked, the file when the container starts.
 */
export function checkInjectedArgs(argv: readonly string[], env: Readonly<Record<string, string>>): ArgsVerdict {
  const command = parseArgs(argv, env);
  switch (command.kind) {
    case 'exit':
      return { ok: false, message: command.code === 0 ? 'the flags ask for help or the version, not a run' : command.output.trim() };
    case 'run':
      if (command.configFile !== undefined) return { ok: true };
      try {
        loadPlan({ cli: command.cli });
        return { ok: true };
      } catch (error) {
        if (!(error instanceof ConfigError)) throw error;
        return { ok: false, message: formatConfigError(error).trim() };
      }
    case 'version':
      return { ok: false, message: 'the flags ask for the version, not a run' };
    case 'validate':
    case 'plan':
    case 'webhook':
    case 'install':
    case 'ctl':
      return { ok: false, message: `the flags start with the ${command.kind} command, not a run` };
  }
}
