import { getAsset } from 'node:sea';

// The single executable carries what lets it start in an image without glibc
// (scripts/build-runtime.mjs): the static launcher that install writes as
// DIR/sidecar-init, and the glibc loader and libraries it writes into
// DIR/sidecar-init.runtime/ beside the executable itself. Embedded, so any copy
// of the executable installs the same bytes, checked as they are written.

/** The launcher's asset, and the index naming the runtime's files (scripts/build-binary.mjs). */
const LAUNCHER_ASSET = 'launcher';
const RUNTIME_INDEX_ASSET = 'runtime.json';
const RUNTIME_ASSET_PREFIX = 'runtime/';

export interface RuntimeFile {
  readonly name: string;
  readonly bytes: Uint8Array;
  /** The loader is run (execve); the libraries are only mapped. */
  readonly executable: boolean;
}

export interface EmbeddedRuntime {
  readonly launcher: Uint8Array;
  /** The file name of the loader among `files`; /proc/self/exe names it when the launcher started this process. */
  readonly loader: string;
  readonly files: readonly RuntimeFile[];
}

interface RuntimeIndex {
  readonly loader: string;
  readonly files: readonly string[];
}

export function embeddedRuntime(): EmbeddedRuntime {
  const index = JSON.parse(getAsset(RUNTIME_INDEX_ASSET, 'utf8')) as RuntimeIndex;
  return {
    launcher: new Uint8Array(getAsset(LAUNCHER_ASSET)),
    loader: index.loader,
    files: index.files.map((name) => ({
      name,
      bytes: new Uint8Array(getAsset(`${RUNTIME_ASSET_PREFIX}${name}`)),
      executable: name === index.loader,
    })),
  };
}
