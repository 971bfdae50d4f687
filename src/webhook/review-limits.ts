// How much of a pod one review may make the webhook work through. The API
// server sends any pod that matches the webhook, and whoever may create a pod
// in a matching namespace writes it. Checking a command line (the CLI parser,
// then the plan's rules) takes time in proportion to its words, and more for
// each external or init step: a pod of 65,000 proxy containers held the event
// loop, and every review sent meanwhile, for seconds (bench/webhook-reviews.ts).
// Past a limit the pod is denied with the limit named, before anything is
// built or checked; real pods are far below each one.

export const REVIEW_LIMITS = {
  /** Of containers, and of initContainers, each. Kubernetes sets none; a pod with a mesh and a few sidecars has about ten. */
  maxContainers: 64,
  /** Externals on sidecar-init's command line: those added for the proxies found, and those in the args annotation. */
  maxExternals: 16,
  /** Words of the args annotation: sidecar-init's own options. */
  maxFlagWords: 256,
  /** Words of the command wrapped (the container's command and args). */
  maxCommandWords: 4_096,
  /**
   * Bytes of the whole command line. exec(2) takes at most a quarter of the
   * stack limit for the arguments and the environment together (2 MiB under
   * the usual 8 MiB), so a command line past 1 MiB is one no container runs.
   */
  maxCommandLineBytes: 1024 * 1024,
} as const;

export type ReviewLimits = typeof REVIEW_LIMITS;

/** Why the pod's own flags and command are past the limits, or undefined when they are within them. */
export function commandLineOverLimit(flags: readonly string[], app: readonly string[], limits: ReviewLimits): string | undefined {
  if (flags.length > limits.maxFlagWords) return `${flags.length} words of flags; at most ${limits.maxFlagWords} are reviewed`;
  if (app.length > limits.maxCommandWords) return `a command of ${app.length} words; at most ${limits.maxCommandWords} are reviewed`;
  let bytes = 0;
  for (const words of [flags, app]) for (const word of words) bytes += Buffer.byteLength(word) + 1;
  if (bytes > limits.maxCommandLineBytes) return `a command line of ${bytes} bytes; at most ${limits.maxCommandLineBytes} are reviewed`;
  return undefined;
}

/** Why the flags, with the externals added, hold too many externals, or undefined. */
export function externalsOverLimit(flags: readonly string[], limits: ReviewLimits): string | undefined {
  const externals = flags.filter((flag) => flag === '--external' || flag.startsWith('--external=')).length;
  return externals > limits.maxExternals ? `${externals} externals; at most ${limits.maxExternals} are reviewed` : undefined;
}
