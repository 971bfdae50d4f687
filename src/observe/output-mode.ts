/**
 * What happens to a process's stdout and stderr. inherit: the descriptors are
 * passed through untouched (no cost, the default). prefix: each line becomes
 * `NAME | LINE`, so four processes in one container log can be told apart.
 * json: each line becomes one JSON object {time, proc, stream, msg}.
 */
export type OutputMode = 'inherit' | 'prefix' | 'json';

export const OUTPUT_MODES: readonly OutputMode[] = ['inherit', 'prefix', 'json'];

/** The modes whose lines pass through sidecar-init. */
export type LineOutputMode = Exclude<OutputMode, 'inherit'>;

export type OutputStreamName = 'stdout' | 'stderr';
