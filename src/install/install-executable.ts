import { closeSync, constants, openSync, readSync } from 'node:fs';
import { BESIDE_SUFFIX } from '../process/embedded-addon.ts';
import { closeFolder, openInstallFolder, syncFolder } from './install-folder.ts';
import { type FillFile, type InstalledFile, placeFile } from './place-file.ts';

// `sidecar-init install DIR`: the single executable copies itself into DIR
// with its addon beside it, so an image or an init container can put
// sidecar-init into a shared volume and the copy starts on a read-only root
// with no writable /tmp (it loads DIR/sidecar-init.node after checking it).

export { InstallError } from './install-error.ts';
export type { InstalledFile } from './place-file.ts';

/** The name of the installed executable; its addon is this name plus BESIDE_SUFFIX. */
export const INSTALLED_NAME = 'sidecar-init';
const EXECUTABLE_MODE = 0o755;
const ADDON_MODE = 0o644;
const COPY_CHUNK_BYTES = 1 << 20;

/**
 * Writes DIR/sidecar-init.node (the embedded addon) and then DIR/sidecar-init
 * (a copy of `execPath`), each under a temporary name in DIR, synced, checked
 * and renamed into place (place-file.ts): a reader of DIR sees the previous
 * files or these, whole, and the executable never without its addon.
 */
export function installExecutable(dir: string, execPath: string, addon: Uint8Array): InstalledFile[] {
  const folder = openInstallFolder(dir);
  try {
    const installedAddon = placeFile(folder, `${INSTALLED_NAME}${BESIDE_SUFFIX}`, ADDON_MODE, (write) => write(addon));
    const installedExecutable = placeFile(folder, INSTALLED_NAME, EXECUTABLE_MODE, copyOf(execPath));
    syncFolder(folder);
    return [installedExecutable, installedAddon];
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
