import type { CliInput } from '../config/flags.ts';
import type { ControlRequest } from '../control/protocol.ts';
import type { WebhookSettings } from '../webhook/serve-webhook.ts';

/** What the command line asks for; the caller (main.ts) acts on it and sets the exit code. */
export type CliCommand =
  /** Supervise: build the plan from the file and the flags (loadPlan takes this as is), then run it. */
  | { readonly kind: 'run'; readonly cli: CliInput; readonly configFile: string | undefined }
  /** Print what a run with the same inputs would do, as text or JSON, without starting anything. */
  | { readonly kind: 'plan'; readonly cli: CliInput; readonly configFile: string | undefined; readonly json: boolean }
  /** Check the same inputs a run would use, without starting anything. */
  | {
      readonly kind: 'validate';
      readonly cli: CliInput;
      readonly configFile: string | undefined;
      /** --programs: a command whose program is not found or not executable here is an error, not a warning. */
      readonly programsAreErrors: boolean;
    }
  /** Copy the single executable and its addon into `dir` (`sidecar-init install DIR`). */
  | { readonly kind: 'install'; readonly dir: string }
  /** `sidecar-init ctl`: one request to a running sidecar-init's control socket. */
  | {
      readonly kind: 'ctl';
      readonly path: string;
      /** The default socket's folder, checked to be this uid's own before the socket in it is trusted; none for --control PATH. */
      readonly trustedDir: string | undefined;
      readonly request: ControlRequest;
      readonly json: boolean;
      /** restart --wait: until the process is ready again, for at most this long. */
      readonly waitMs: number | undefined;
    }
  /** `sidecar-init schema`: print the JSON Schema of the config file, for an editor. */
  | { readonly kind: 'schema' }
  /** `sidecar-init version [--json]` (and `--version --verbose`): the build, the runtime and the addon loaded. */
  | { readonly kind: 'version'; readonly json: boolean }
  /**
   * Serve the mutating admission webhook that injects sidecar-init into annotated pods;
   * main.ts adds how the flags it writes are checked (loadCheckArgs).
   */
  | ({ readonly kind: 'webhook' } & Omit<WebhookSettings, 'loadCheckArgs'>)
  /**
   * Help, version or a usage error: write `output` (to stdout when `code` is 0,
   * else to stderr) and exit with `code`.
   */
  | { readonly kind: 'exit'; readonly code: number; readonly output: string };
