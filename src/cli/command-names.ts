// The commands sidecar-init takes as its first argument, in one table: the
// parser dispatches on them, refuses one after options (where it would become
// the app), and the help lists them as the words an app of that name needs
// "--" before. A command added here is all three at once.

export const VALIDATE_COMMAND = 'validate';
export const PLAN_COMMAND = 'plan';
export const INSTALL_COMMAND = 'install';
export const VERSION_COMMAND = 'version';
export const CTL_COMMAND = 'ctl';
export const WEBHOOK_COMMAND = 'webhook';
export const SCHEMA_COMMAND = 'schema';

export const COMMAND_NAMES: readonly string[] = [
  VALIDATE_COMMAND,
  PLAN_COMMAND,
  INSTALL_COMMAND,
  VERSION_COMMAND,
  CTL_COMMAND,
  WEBHOOK_COMMAND,
  SCHEMA_COMMAND,
];

/** `"validate", "plan", … or "webhook"`, for the help. */
export function listCommandNames(quote: (name: string) => string): string {
  const quoted = COMMAND_NAMES.map(quote);
  return `${quoted.slice(0, -1).join(', ')} or ${quoted.at(-1)}`;
}
