import { CommanderError } from 'commander';
import type { CliInput } from '../config/cli-input.ts';
import type { CliCommand } from './cli-command.ts';
import { CONFIG_ENV, createCollectedFlags, createProgram, HELP_HINT, VALIDATE_COMMAND } from './create-program.ts';
import { EXIT_SUCCESS, EXIT_USAGE } from './exit-codes.ts';
import { describeBuild } from './version.ts';

export type { CliCommand } from './cli-command.ts';

/** Commander's values for the options that are not repeatable. */
interface ProgramOptions {
  readonly config?: string;
  readonly grace?: string;
  readonly logLevel?: string;
  readonly drain?: string;
  readonly singleChild?: boolean;
}

/**
 * The command line (without node and the script: process.argv.slice(2)) as a
 * command. `validate` is a command only as the very first argument, so an app
 * named validate runs as `sidecar-init -- validate`. Commander's own subcommand
 * dispatch would take it even after `--`, so the mode is chosen here.
 */
export function parseArgs(argv: readonly string[], env: NodeJS.ProcessEnv): CliCommand {
  if (argv.length === 2 && argv.includes('--verbose') && (argv.includes('--version') || argv.includes('-V'))) {
    return { kind: 'exit', code: EXIT_SUCCESS, output: describeBuild() };
  }
  const mode = argv[0] === VALIDATE_COMMAND ? VALIDATE_COMMAND : 'run';
  const collected = createCollectedFlags();
  const output = { text: '' };
  const program = createProgram(mode, collected, output);
  try {
    program.parse(mode === 'run' ? [...argv] : argv.slice(1), { from: 'user' });
  } catch (error) {
    if (!(error instanceof CommanderError)) throw error;
    // Help and version exit 0; every usage error is 2, as for a bad config.
    return { kind: 'exit', code: error.exitCode === 0 ? EXIT_SUCCESS : EXIT_USAGE, output: output.text };
  }
  const options = program.opts<ProgramOptions>();
  const cli: CliInput = {
    ...collected,
    drain: options.drain,
    singleChild: options.singleChild === true,
    grace: options.grace,
    logLevel: options.logLevel,
    app: [...program.args],
  };
  const configFile = options.config ?? (env[CONFIG_ENV] || undefined);
  if (mode === 'run') return { kind: 'run', cli, configFile };
  if (configFile === undefined) {
    const message = `error: ${VALIDATE_COMMAND} needs a config file: -c FILE, or $${CONFIG_ENV}\n${HELP_HINT}\n`;
    return { kind: 'exit', code: EXIT_USAGE, output: message };
  }
  return { kind: 'validate', cli, configFile };
}
