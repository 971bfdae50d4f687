// Kept here rather than read from package.json at run time, which the bundle
// does not carry; a test keeps the two equal.
export const VERSION = '0.1.0';

/** What a build says it was made from (`sidecar-init version`). */
export interface BuildStamp {
  /** The commit built, 40 hex digits, or UNKNOWN. */
  readonly commit: string;
  /** That commit's time (or $SOURCE_DATE_EPOCH), ISO 8601 in UTC, or UNKNOWN: never the time of the build, so a rebuild gives the same bytes. */
  readonly time: string;
}

export const UNKNOWN = 'unknown';

// Replaced by scripts/build.mjs (esbuild's define) with the stamp of the
// commit it bundles. Sources run unbundled (the unit tests) are no build.
declare const __SIDECAR_INIT_BUILD__: BuildStamp | undefined;

export const BUILD_STAMP: BuildStamp =
  typeof __SIDECAR_INIT_BUILD__ === 'undefined' ? { commit: UNKNOWN, time: UNKNOWN } : __SIDECAR_INIT_BUILD__;
