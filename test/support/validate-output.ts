// What `validate` writes to stderr for a valid config whose programs are not
// on this machine: one warning each, ending in this sentence (main.ts).

/** After each program validate did not find here. */
export const CHECKED_AGAIN =
  '; a run checks it again when it starts the process, so this is fine if the config is meant for another image (validate --programs there makes it an error)';

/**
 * The lines of validate's stderr other than those warnings: for a config
 * meant for an image (envoy, a job's binary) checked where they are not.
 */
export function besidesMissingPrograms(stderr: string): string[] {
  return stderr.split('\n').filter((line) => line !== '' && !(line.startsWith('sidecar-init: warning: ') && line.endsWith(CHECKED_AGAIN)));
}
