import { Command, CommanderError } from 'commander';
import { isLogLevel, LOG_LEVELS } from '../plan/literals.ts';
import { DEFAULTS } from '../plan/plan.ts';
import { listAlternatives, quote } from '../support/message-text.ts';
import { parseStatusAddress } from '../config/status-address.ts';
import { INJECT } from '../webhook/annotations.ts';
import { INSTALL_MODES, isInstallMode } from '../webhook/install-mode.ts';
import type { CliCommand } from './cli-command.ts';
import { WEBHOOK_COMMAND } from './command-names.ts';
import { captureOutput, HELP_HINT, PROGRAM_NAME, type ProgramOutput } from './create-program.ts';
import { ERROR_PREFIX } from './error-line.ts';
import { EXIT_SUCCESS, EXIT_USAGE } from './exit-codes.ts';

export { WEBHOOK_COMMAND } from './command-names.ts';

const WEBHOOK_HELP = `
The API server sends it only the pods its MutatingWebhookConfiguration selects: the example's
objectSelector is the label ${INJECT}: "true", so a pod needs that label to be reviewed at all,
and the annotation of the same name to be injected.
For a pod annotated ${INJECT}: "true" it answers with a JSON patch that adds an init
container running "${PROGRAM_NAME} install /opt/sidecar-init" from IMAGE, an emptyDir, and wraps the
container's command as /opt/sidecar-init/sidecar-init [sidecar-init.io/args] -- COMMAND ARGS.
With --install-mode image-volume (or the pod's annotation sidecar-init.io/install: image-volume) it
mounts VOLUME_IMAGE read-only at /opt/sidecar-init as an image volume instead: no init container, no
emptyDir (Kubernetes 1.35+, or 1.33+ with the ImageVolume feature gate).
Reviews are POSTed to /mutate; /healthz answers 200 while it serves.`;

/** Without --addr and --install-mode: every interface on the webhook's usual port, and the init container's copy. */
const DEFAULT_WEBHOOK_ADDR = ':8443';
const DEFAULT_INSTALL_MODE = 'copy';

interface WebhookFlags {
  readonly addr?: string;
  readonly cert?: string;
  readonly key?: string;
  readonly image?: string;
  readonly installMode?: string;
  readonly volumeImage?: string;
  readonly logLevel?: string;
}

/** `sidecar-init webhook --addr :8443 --cert FILE --key FILE --image REF` (the arguments after "webhook"). */
export function parseWebhookArgs(argv: readonly string[]): CliCommand {
  const output: ProgramOutput = { text: '' };
  const program = new Command(`${PROGRAM_NAME} ${WEBHOOK_COMMAND}`)
    .usage('--cert FILE --key FILE --image REF [--addr HOST:PORT] [--log-level LEVEL]')
    .description('Serves the mutating admission webhook that injects sidecar-init into annotated pods, over HTTPS.')
    .requiredOption('--cert <file>', 'the TLS certificate (PEM), e.g. tls.crt of a cert-manager Secret; re-read when it changes')
    .requiredOption('--key <file>', 'its private key (PEM), e.g. tls.key')
    .requiredOption(
      '--image <ref>',
      'the sidecar-init image you built and pushed (docs/kubernetes.md, step 1), which the install init container runs',
    )
    .option(
      '--install-mode <mode>',
      `${INSTALL_MODES.join(' or ')}, for pods without the sidecar-init.io/install annotation`,
      DEFAULT_INSTALL_MODE,
    )
    .option('--volume-image <ref>', "the image of the Dockerfile's volume target, mounted as an image volume in image-volume mode")
    .option('--addr <host:port>', 'where to listen; :PORT for every interface', DEFAULT_WEBHOOK_ADDR)
    .option('--log-level <level>', `${LOG_LEVELS.join(', ')} (default: ${DEFAULTS.logLevel})`)
    .helpOption('-h, --help', 'show this help')
    .addHelpText('after', WEBHOOK_HELP);
  captureOutput(program, output);
  try {
    program.parse([...argv], { from: 'user' });
  } catch (error) {
    if (!(error instanceof CommanderError)) throw error;
    return { kind: 'exit', code: error.exitCode === 0 ? EXIT_SUCCESS : EXIT_USAGE, output: output.text };
  }
  const flags = program.opts<WebhookFlags>();
  const address = parseStatusAddress(flags.addr ?? DEFAULT_WEBHOOK_ADDR);
  if (!address.ok) return usageError(`--addr ${address.message}`);
  const logLevel = flags.logLevel ?? DEFAULTS.logLevel;
  if (!isLogLevel(logLevel)) return usageError(`--log-level ${quote(logLevel)} is not one of ${listAlternatives(LOG_LEVELS)}`);
  const installMode = flags.installMode ?? DEFAULT_INSTALL_MODE;
  if (!isInstallMode(installMode))
    return usageError(`--install-mode ${quote(installMode)} is not one of ${listAlternatives(INSTALL_MODES)}`);
  if (installMode === 'image-volume' && flags.volumeImage === undefined)
    return usageError('--install-mode image-volume needs --volume-image REF, the image built from the Dockerfile with --target volume');
  if (program.args.length > 0) return usageError(`${WEBHOOK_COMMAND} takes no operands; got ${quote(program.args.join(' '))}`);
  return {
    kind: 'webhook',
    host: address.value.host,
    port: address.value.port,
    certFile: flags.cert ?? '',
    keyFile: flags.key ?? '',
    image: flags.image ?? '',
    installMode,
    ...(flags.volumeImage === undefined ? {} : { volumeImage: flags.volumeImage }),
    logLevel,
  };
}

function usageError(message: string): CliCommand {
  return { kind: 'exit', code: EXIT_USAGE, output: `${ERROR_PREFIX} ${message}\n${HELP_HINT}\n` };
}
