import type { OutputMode } from '../plan/plan.ts';

/** The output modes whose lines pass through sidecar-init (inherit hands the descriptors over). */
export type LineOutputMode = Exclude<OutputMode, 'inherit'>;

export type OutputStreamName = 'stdout' | 'stderr';
