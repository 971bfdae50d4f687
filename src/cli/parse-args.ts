import { CommanderError } from 'commander';
import type { CliInput } from '../config/flags.ts';
import { GLOBAL_OPTION_NAMES, type GivenOptions, type GlobalOption, optionVariable } from '../config/global-options.ts';
import type { CliCommand } from './cli-command.ts';
import {
  createCollectedFlags,
  createProgram,
  HELP_HINT,
  INSTALL_COMMAND,
  INSTALL_HELP,
  PLAN_COMMAND,
  PROGRAM_NAME,
  type ProgramMode,
  VALIDATE_COMMAND,
  VERSION_COMMAND,
  SCHEMA_HELP,
  VERSION_HELP,
} from './create-program.ts';
import { COMMAND_NAMES, SCHEMA_COMMAND } from './command-names.ts';
import { ERROR_PREFIX } from './error-line.ts';
import { CONFIG_ENV, readEnvOptions } from './env-options.ts';
import { EXIT_SUCCESS, EXIT_USAGE } from './exit-codes.ts';
import { CTL_COMMAND, parseCtlArgs } from './parse-ctl.ts';
import { parseWebhookArgs, WEBHOOK_COMMAND } from './webhook-args.ts';

export type { CliCommand } from './cli-command.ts';

/** Commander's values: -c, --json, --programs, and each global option under its own name. */
type ProgramOptions = { readonly config?: readonly string[]; readonly json?: boolean; readonly programs?: boolean } & GivenOptions;

/**
 * The command line (without node and the script: process.argv.slice(2)) as a
 * command. Each name of command-names.ts (validate, plan, ctl, webhook, …) is
 * a command only as the very first argument, so an app named validate runs as
 * `sidecar-init -- validate`. Commander's own subcommand dispatch would take it
 * even after `--`, so the mode is chosen here.
 */
export function parseArgs(argv: readonly string[], env: NodeJS.ProcessEnv): CliCommand {
  if (argv.length === 2 && argv.includes('--verbose') && (argv.includes('--version') || argv.includes('-V'))) {
    return { kind: 'version', json: false };
  }
  if (argv[0] === VERSION_COMMAND) return parseVersion(argv.slice(1));
  if (argv[0] === INSTALL_COMMAND) return parseInstall(argv.slice(1));
  if (argv[0] === SCHEMA_COMMAND) return parseSchema(argv.slice(1));
  if (argv[0] === CTL_COMMAND) return parseCtlArgs(argv.slice(1), env);
  if (argv[0] === WEBHOOK_COMMAND) return parseWebhookArgs(argv.slice(1));
  const mode: ProgramMode = argv[0] === VALIDATE_COMMAND || argv[0] === PLAN_COMMAND ? argv[0] : 'run';
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
  const fromEnv = readEnvOptions(env);
  if (!fromEnv.ok) {
    return {
      kind: 'exit',
      code: EXIT_USAGE,
      output: `${fromEnv.problems.map((problem) => `${ERROR_PREFIX} ${problem}\n`).join('')}${HELP_HINT}\n`,
    };
  }
  const options = program.opts<ProgramOptions>();
  // Flags win over the environment: a variable is used only where its flag was not given.
  const given: Partial<Record<GlobalOption, unknown>> = {};
  const sources: Partial<Record<GlobalOption, string>> = {};
  for (const option of GLOBAL_OPTION_NAMES) {
    if (options[option] !== undefined) {
      given[option] = options[option];
    } else if (fromEnv.options[option] !== undefined) {
      given[option] = fromEnv.options[option];
      sources[option] = optionVariable(option);
    }
  }
  const cli: CliInput = { ...collected, options: given as GivenOptions, sources, app: [...program.args] };
  const files = options.config ?? [];
  if (files.length > 1) return configGivenTwice(files);
  const configFile = files[0] ?? (env[CONFIG_ENV] || undefined);
  switch (mode) {
    case 'run': {
      return isCommandTakenAsApp(argv, cli.app)
        ? commandAfterOptions(argv, argv.length - cli.app.length)
        : { kind: 'run', cli, configFile };
    }
    case PLAN_COMMAND:
      return { kind: 'plan', cli, configFile, json: options.json === true };
    case VALIDATE_COMMAND:
      // Without a file, the flags alone: the command line of a manifest or of the webhook.
      return { kind: 'validate', cli, configFile, programsAreErrors: options.programs === true };
  }
}

/**
 * Whether a run would take a command as its app: the first operand is a
 * command's name and no "--" came before it. `sidecar-init -c job.yaml ctl
 * status` meant the ctl command, and running an app named ctl instead (the
 * file's app replaced, its sidecars started) would fail far from the mistake.
 */
function isCommandTakenAsApp(argv: readonly string[], app: readonly string[]): boolean {
  const [first] = app;
  if (first === undefined || !COMMAND_NAMES.includes(first)) return false;
  // Options end at the first operand (passThroughOptions), so the app is argv's tail; "--" before it says it is the app.
  return argv[argv.length - app.length - 1] !== '--';
}

function commandAfterOptions(argv: readonly string[], appIndex: number): CliCommand {
  const command = argv[appIndex] ?? '';
  const options = argv.slice(0, appIndex).join(' ');
  const rest = argv.slice(appIndex).join(' ');
  return {
    kind: 'exit',
    code: EXIT_USAGE,
    output:
      `${ERROR_PREFIX} "${command}" comes after options, where it would run as the app: a command is the first argument ` +
      `(${PROGRAM_NAME} ${command} ...); to run an app named ${command}, put -- before it: ${PROGRAM_NAME} ${options} -- ${rest}\n${HELP_HINT}\n`,
  };
}

/**
 * More than one -c: sidecar-init reads one file, and merging them would need
 * rules (which process list wins, whether keys add up) that a user could only
 * guess; taking the last, as before, dropped the others without a word.
 */
function configGivenTwice(files: readonly string[]): CliCommand {
  const given = files.map((file) => JSON.stringify(file)).join(', ');
  return {
    kind: 'exit',
    code: EXIT_USAGE,
    output:
      `${ERROR_PREFIX} -c/--config is given ${files.length} times (${given}); sidecar-init reads one config file and merges none: ` +
      `give one -c, and the rest as flags, which win over the file\n${HELP_HINT}\n`,
  };
}

const VERSION_USAGE = `Usage: ${PROGRAM_NAME} ${VERSION_COMMAND} [--json]\n\n${VERSION_HELP.replaceAll(/^ {6}/gm, '')}\n`;
const INSTALL_USAGE = `Usage: ${PROGRAM_NAME} ${INSTALL_COMMAND} DIR\n\n${INSTALL_HELP.replaceAll(/^ {6}/gm, '')}\n`;

/** `install DIR`: exactly one operand, no options but help. */
function parseVersion(args: readonly string[]): CliCommand {
  if (args.length === 0) return { kind: 'version', json: false };
  if (args.length === 1 && args[0] === '--json') return { kind: 'version', json: true };
  if (args.length === 1 && (args[0] === '-h' || args[0] === '--help')) return { kind: 'exit', code: EXIT_SUCCESS, output: VERSION_USAGE };
  return {
    kind: 'exit',
    code: EXIT_USAGE,
    output: `${ERROR_PREFIX} ${VERSION_COMMAND} takes only --json, got ${args.map((arg) => JSON.stringify(arg)).join(' ')}: ${PROGRAM_NAME} ${VERSION_COMMAND} [--json]\n${HELP_HINT}\n`,
  };
}

const SCHEMA_USAGE = `Usage: ${PROGRAM_NAME} ${SCHEMA_COMMAND}\n\n${SCHEMA_HELP.replaceAll(/^ {6}/gm, '')}\n`;

/** `schema`: no operands, no options but help. */
function parseSchema(args: readonly string[]): CliCommand {
  if (args.length === 0) return { kind: 'schema' };
  if (args.length === 1 && (args[0] === '-h' || args[0] === '--help')) return { kind: 'exit', code: EXIT_SUCCESS, output: SCHEMA_USAGE };
  return {
    kind: 'exit',
    code: EXIT_USAGE,
    output: `${ERROR_PREFIX} ${SCHEMA_COMMAND} takes no arguments, got ${args.map((arg) => JSON.stringify(arg)).join(' ')}: ${PROGRAM_NAME} ${SCHEMA_COMMAND} > sidecar-init.schema.json\n${HELP_HINT}\n`,
  };
}

function parseInstall(args: readonly string[]): CliCommand {
  if (args.length === 1 && (args[0] === '-h' || args[0] === '--help')) return { kind: 'exit', code: EXIT_SUCCESS, output: INSTALL_USAGE };
  const operands = args[0] === '--' ? args.slice(1) : args;
  const [dir] = operands;
  if (operands.length !== 1 || dir === undefined || dir === '' || (dir.startsWith('-') && args[0] !== '--')) {
    return {
      kind: 'exit',
      code: EXIT_USAGE,
      output: `${ERROR_PREFIX} ${INSTALL_COMMAND} takes one directory: ${PROGRAM_NAME} ${INSTALL_COMMAND} DIR\n${HELP_HINT}\n`,
    };
  }
  return { kind: 'install', dir };
}
