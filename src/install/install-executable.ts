import { closeSync, constants, openSync, readSync } from 'node:fs';
import { BESIDE_SUFFIX } from '../os/embedded-addon.ts';
import { checkFolderInPlace, closeFolder, openInstallFolder, openRuntimeFolder, syncFolder } from './install-folder.ts';
import { type FillFile, type InstalledFile, placeFile } from './place-file.ts';
import type { EmbeddedRuntime } from './runtime-assets.ts';

// `sidecar-init install DIR`: the single executable copies itself into DIR
// with its addon beside it, so an image or an init container can put
// sidecar-init into a shared volume and the copy starts on a read-only root
// with no writable /tmp (it loads DIR/sidecar-init.node after checking it).
// The executable links glibc, which many app images lack (Alpine's musl,
// distroless/static, scratch): so DIR/sidecar-init is a static launcher, and
// the executable goes into DIR/sidecar-init.runtime/ with the glibc loader and
// libraries it was built against, which the launcher starts it with.

export { InstallError } from './install-error.ts';
export type { InstalledFile } from './place-file.ts';

/** The name of the installed entrypoint (the launcher); its addon is this name plus BESIDE_SUFFIX. */
export const INSTALLED_NAME = 'sidecar-init';
/** The folder beside the entrypoint holding the executable and its glibc runtime: its name plus this. */
export const RUNTIME_SUFFIX = '.runtime';
const EXECUTABLE_MODE = 0o755;
const LIBRARY_MODE = 0o644;
const ADDON_MODE = 0o644;
const COPY_CHUNK_BYTES = 1 << 20;

/**
 * Writes DIR/sidecar-init.node (the embedded addon), the runtime's files and
 * the executable (a copy of `execPath`) into DIR/sidecar-init.runtime/, and
 * DIR/sidecar-init (the launcher) last, each under a temporary name in its
 * folder, synced, checked and renamed into place (place-file.ts): a reader
 * sees the previous files or these, whole, and the entrypoint is replaced
 * only once everything it starts is in place.
 */
export function installExecutable(dir: string, execPath: string, addon: Uint8Array, runtime: EmbeddedRuntime): InstalledFile[] {
  const folder = openInstallFolder(dir);
  try {
    const installedAddon = placeFile(folder, `${INSTALLED_NAME}${BESIDE_SUFFIX}`, ADDON_MODE, (write) => write(addon));
    const runtimeName = `${INSTALLED_NAME}${RUNTIME_SUFFIX}`;
    const runtimeFolder = openRuntimeFolder(folder, runtimeName);
    const installedRuntime: InstalledFile[] = [];
    try {
      for (const file of runtime.files) {
        const mode = file.executable ? EXECUTABLE_MODE : LIBRARY_MODE;
        installedRuntime.push(placeFile(runtimeFolder, file.name, mode, (write) => write(file.bytes)));
      }
      installedRuntime.push(placeFile(runtimeFolder, INSTALLED_NAME, EXECUTABLE_MODE, copyOf(execPath)));
      syncFolder(runtimeFolder);
      // Before the entrypoint is placed, so it never starts a neighbour's folder; and after, since the
      // folder could be swapped meanwhile: only then are the files told as installed.
      checkFolderInPlace(folder, runtimeName, runtimeFolder);
      const installedLauncher = placeFile(folder, INSTALLED_NAME, EXECUTABLE_MODE, (write) => write(runtime.launcher));
      syncFolder(folder);
      checkFolderInPlace(folder, runtimeName, runtimeFolder);
      return [installedLauncher, installedAddon, ...installedRuntime];
    } finally {
      closeFolder(runtimeFolder);
    }
  } finally {
    closeFolder(folder);
  }
}

/** The bytes of `file`, read once, in chunks: what is hashed is what is written. */
function copyOf(file: string): FillFile {
  return (write) => {
    const fd = openSync(file, constants.O_RDONLY);
    try {
      const buffer = Buffer.alloc(COPY_CHUNK_BYTES);
      for (;;) {
        const count = readSync(fd, buffer, 0, buffer.length, null);
        if (count === 0) break;
        write(buffer.subarray(0, count));
      }
    } finally {
      closeSync(fd);
    }
  };
}
