import { isSea } from 'node:sea';

// Kept here rather than read from package.json at run time, which the bundle
// does not carry; a test keeps the two equal.
export const VERSION = '0.1.0';

/** `--version --verbose`: what to pin and what runs, for a bug report or a checksum check. */
export function describeBuild(): string {
  const runtime = isSea()
    ? `single executable (${process.execPath}) with Node ${process.version}`
    : `Node ${process.version} (${process.execPath})`;
  return `sidecar-init ${VERSION}\nplatform: ${process.platform}-${process.arch} (${describeLibc()})\nruntime: ${runtime}\n`;
}

function describeLibc(): string {
  const header = (process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined)?.header;
  return header?.glibcVersionRuntime === undefined ? 'not glibc' : `glibc ${header.glibcVersionRuntime}`;
}
