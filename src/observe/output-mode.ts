import type { OutputMode } from '../config/plan.ts';

/** The output modes whose lines pass through sidecar-init (inherit hands the descriptors over). */
export type LineOutputMode = Exclude<OutputMode, 'inherit'>;

export type OutputStreamName = 'stdout' | 'stderr';
