import { Command } from 'commander';
import type { ProcessFlag } from '../config/flags.ts';
import { GLOBAL_OPTION_NAMES, GLOBAL_OPTIONS, type OptionSpec, optionFlag } from '../config/global-options.ts';
import { createTargetFlagTexts, TARGET_FLAG_NAMES, TARGET_FLAGS, type TargetFlagName } from '../config/target-flags.ts';
import { INSTALL_COMMAND, listCommandNames, PLAN_COMMAND, SCHEMA_COMMAND, VALIDATE_COMMAND, VERSION_COMMAND } from './command-names.ts';
import { CONFIG_ENV } from './env-options.ts';
import { withErrorPrefix } from './error-line.ts';
import { VERSION } from './version.ts';

export const PROGRAM_NAME = 'sidecar-init';
export { INSTALL_COMMAND, PLAN_COMMAND, VALIDATE_COMMAND, VERSION_COMMAND } from './command-names.ts';

export type ProgramMode = 'run' | typeof VALIDATE_COMMAND | typeof PLAN_COMMAND;

/** What commander collects beyond its own option values: the repeatable flags about named processes, in command-line order. */
export type CollectedFlags = { readonly processes: ProcessFlag[] } & { readonly [Name in TargetFlagName]: string[] };

export function createCollectedFlags(): CollectedFlags {
  return { processes: [], ...createTargetFlagTexts() };
}

/** Everything commander writes: help and version (exit 0) or a usage error (exit 2), never both. */
export interface ProgramOutput {
  text: string;
}

export const HELP_HINT = `(${PROGRAM_NAME} --help shows the usage)`;

const USAGE: Record<ProgramMode, string> = {
  run: '[-c FILE] [--init NAME=CMD]... [--sidecar NAME=CMD]... [--external NAME=SPEC]... [--ready NAME=PROBE]... [OPTIONS] [--] APP [ARGS...]',
  validate: '[--programs] [-c FILE] [OPTIONS] [-- APP [ARGS...]]',
  plan: '[--json] [-c FILE] [OPTIONS] [-- APP [ARGS...]]',
};

const DESCRIPTION: Record<ProgramMode, string> = {
  run: 'Runs init steps and sidecars in order, then the app; stops the sidecars in reverse when the app exits.',
  validate: 'Checks a configuration (the file, and any flags and app given; or the flags and app alone) without starting anything.',
  plan: 'Prints what a run with these options would do (start and stop order, probes, restarts, signals, hooks, the grace budget) without starting anything.',
};

const EXTERNAL_HELP =
  'a process of another container (shareProcessNamespace), waited for and stopped in its turn: a preset (istio, linkerd, cloud-sql-proxy, ...) or comm:NAME, cmdline:REGEX, uid:N (repeatable)';
/** Shown by `install --help` and in the run help's list of commands. */
export const INSTALL_HELP = `      copy this single executable, its native addon and the glibc runtime it was built against into DIR (an
      existing directory this user can write): DIR/${PROGRAM_NAME} (the launcher), DIR/${PROGRAM_NAME}.node and
      DIR/${PROGRAM_NAME}.runtime/, e.g. from an init container into a shared volume`;

/** Shown by `schema --help` and in the run help's list of commands. */
export const SCHEMA_HELP = `      print the JSON Schema of the config file, for an editor: ${PROGRAM_NAME} schema > sidecar-init.schema.json,
      then # yaml-language-server: $schema=sidecar-init.schema.json on the first line of the YAML file`;

/** Shown by `version --help` and in the run help's list of commands. */
export const VERSION_HELP = `      print the version, the commit and its time, Node, the platform and the native addon loaded (with its sha256),
      what a bug report needs; --json prints them as one JSON object`;

const RUN_HELP = `
The app is the first operand and everything after it, its own options included:
  ${PROGRAM_NAME} --sidecar proxy="envoy -c /etc/envoy.yaml" --ready proxy=tcp://127.0.0.1:15000 python -u job.py
Put -- before an app whose name starts with "-" or is ${listCommandNames((name) => `"${name}"`)}.

Commands:
  ${PROGRAM_NAME} ${VALIDATE_COMMAND} [--programs] [-c FILE] [OPTIONS] [-- APP [ARGS...]]
      check a configuration (a file, or a command line alone) without starting anything; exit 0, or 2 listing every problem;
      a program not found or not executable here is a warning, an error with --programs (in the image itself)
  ${PROGRAM_NAME} ${PLAN_COMMAND} [--json] [-c FILE] [OPTIONS] [-- APP [ARGS...]]
      print the start and stop order, probes, restarts, signals and hooks without starting anything
  ${PROGRAM_NAME} ${INSTALL_COMMAND} DIR
${INSTALL_HELP}
  ${PROGRAM_NAME} ${VERSION_COMMAND} [--json]
${VERSION_HELP}
  ${PROGRAM_NAME} ${SCHEMA_COMMAND}
${SCHEMA_HELP}
  ${PROGRAM_NAME} ctl [--control PATH] [--json] status|restart [--wait] NAME|stop NAME|start NAME|signal NAME SIGNAL
      talk to a running sidecar-init through its control socket (see ${PROGRAM_NAME} ctl --help)
  ${PROGRAM_NAME} webhook --cert FILE --key FILE --image REF [--addr HOST:PORT]
      serve the admission webhook that injects sidecar-init into annotated pods (webhook --help)

Every option that is not about one named process can also be set as SIDECAR_INIT_<OPTION>
(SIDECAR_INIT_GRACE=10s, SIDECAR_INIT_STATUS_ADDR=:9797, SIDECAR_INIT_REWRITE=SIGTERM:SIGQUIT,SIGHUP:none);
a flag wins over its variable, a variable over the config file.

Exit codes: the app's; 128+N when signal N killed it; an init step's when it failed;
1 when a sidecar or external never got ready (or a sidecar's own code when it exited first),
or when sidecar-init itself failed (everything it started is killed); 127 not found; 126 not executable;
69 when a fatal sidecar went down; 2 for a usage or configuration error, or a --status-addr that
cannot be listened on (nothing is started); 70 for a bug in sidecar-init (one line names it).`;

/**
 * A fresh commander program (commander keeps parsed values on the instance).
 * It never exits the process and writes only into `output`.
 */
export function createProgram(mode: ProgramMode, collected: CollectedFlags, output: ProgramOutput): Command {
  const program = new Command(mode === 'run' ? PROGRAM_NAME : `${PROGRAM_NAME} ${mode}`)
    .usage(USAGE[mode])
    .description(DESCRIPTION[mode])
    .argument('[app...]', 'the app and its arguments')
    // Every -c is kept, so that a second one is refused rather than silently replacing the first (parse-args.ts).
    .option('-c, --config <file>', `YAML config file (default: $${CONFIG_ENV})`, (file: string, files: string[] = []) => [...files, file])
    .option('--init <name=cmd>', 'an init step, run to completion in turn (repeatable)', collectProcess('--init', collected))
    .option('--sidecar <name=cmd>', 'a sidecar, kept running from its turn on (repeatable)', collectProcess('--sidecar', collected))
    .option('--external <name=spec>', EXTERNAL_HELP, collectProcess('--external', collected));
  for (const name of TARGET_FLAG_NAMES) {
    const spec = TARGET_FLAGS[name];
    program.option(`${spec.flag} ${spec.argument}`, spec.help, collect(collected[name]));
  }
  // Commander keeps each under its camel-cased name: --log-level as logLevel, the option's own name.
  for (const option of GLOBAL_OPTION_NAMES) {
    const spec: OptionSpec = GLOBAL_OPTIONS[option];
    const flag = `${optionFlag(option)}${spec.argument === undefined ? '' : ` ${spec.argument}`}`;
    if (spec.form === 'list') program.option(flag, spec.help, (value: string, previous: string[] = []) => [...previous, value]);
    else program.option(flag, spec.help);
  }
  program
    .helpOption('-h, --help', 'show this help')
    // Options after the first operand are the app's: `sidecar-init python -u job.py`.
    .passThroughOptions();
  captureOutput(program, output);
  if (mode === PLAN_COMMAND) program.option('--json', 'print the plan as JSON');
  if (mode === VALIDATE_COMMAND)
    program.option(
      '--programs',
      'a program not found or not executable on this machine is an error (exit 2), not a warning: for CI in the image itself',
    );
  if (mode === 'run')
    program.version(VERSION, '-V, --version', 'show the version (with --verbose: what `version` prints)').addHelpText('after', RUN_HELP);
  return program;
}

/**
 * Commander as sidecar-init's parsers use it (the run's, and the webhook's in
 * webhook-args.ts): it throws a CommanderError instead of exiting, and its
 * help, version and errors (prefixed like every error line, with the hint to
 * --help) are written into `output` for the caller to print.
 */
export function captureOutput(program: Command, output: ProgramOutput): Command {
  return program
    .exitOverride()
    .showHelpAfterError(HELP_HINT)
    .configureOutput({
      writeOut: (text) => {
        output.text += text;
      },
      writeErr: (text) => {
        output.text += text;
      },
      outputError: (text, write) => write(withErrorPrefix(text)),
    });
}

/** Commander's option handler for a repeatable flag: keeps every value, in command-line order. */
function collect(values: string[]): (value: string) => string {
  return (value) => {
    values.push(value);
    return value;
  };
}

function collectProcess(flag: ProcessFlag['flag'], collected: CollectedFlags): (value: string) => string {
  return (value) => {
    collected.processes.push({ flag, value });
    return value;
  };
}
