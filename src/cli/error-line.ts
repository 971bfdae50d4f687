// Every error line sidecar-init writes begins with its name, "sidecar-init:"
// ("sidecar-init ctl:" for what ctl reports), as a config error, a refusal or
// a missing addon always did: in a container log its lines mix with the app's,
// and a bare "error:" does not say whose it is. Commander's own usage errors
// ("error: unknown option '--x'") are rewritten to the same prefix.

export const ERROR_PREFIX = 'sidecar-init:';
export const CTL_ERROR_PREFIX = 'sidecar-init ctl:';

/** Commander's error text with sidecar-init's prefix in place of its "error:". */
export function withErrorPrefix(text: string, prefix: string = ERROR_PREFIX): string {
  return text.replace(/^error:/, prefix);
}
