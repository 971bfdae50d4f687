import { readlinkSync } from 'node:fs';
import { basename, join } from 'node:path';
import { isSea } from 'node:sea';
import { writeAllSync } from '../output/write-sync.ts';
import { embeddedAddon } from '../os/embedded-addon.ts';
import { INSTALLED_NAME, InstallError, installExecutable, RUNTIME_SUFFIX } from './install-executable.ts';
import { embeddedRuntime } from './runtime-assets.ts';

const STDOUT_FD = 1;
const STDERR_FD = 2;
const SELF_EXE = '/proc/self/exe';

/** `sidecar-init install DIR`: one line per file written, or one line saying why nothing was (main.ts exits 2 then). */
export function runInstall(dir: string): 'installed' | 'refused' {
  if (!isSea()) {
    writeAllSync(
      STDERR_FD,
      'sidecar-init: install copies the single executable, and this is sidecar-init run by Node (the npm package); ' +
        'run install with the single executable (a release, or dist/sidecar-init from npm run build:binary)\n',
    );
    return 'refused';
  }
  try {
    const runtime = embeddedRuntime();
    const files = installExecutable(dir, runningExecutable(runtime.loader), embeddedAddon(), runtime);
    writeAllSync(STDOUT_FD, files.map((file) => `installed ${file.path} (${file.size} bytes, sha256 ${file.sha256})\n`).join(''));
    return 'installed';
  } catch (error) {
    if (!(error instanceof InstallError)) throw error;
    writeAllSync(STDERR_FD, `sidecar-init: ${error.message}\n`);
    return 'refused';
  }
}

/**
 * The file this process runs: /proc/self/exe is its inode even when the path
 * has since been replaced (an upgrade in place), so the copy is always of
 * the executable whose addon is embedded here. Started by the launcher,
 * /proc/self/exe is the carried glibc loader, and the executable is in the
 * runtime folder beside the launcher (process.execPath).
 */
function runningExecutable(loader: string): string {
  let self: string;
  try {
    self = readlinkSync(SELF_EXE);
  } catch {
    return process.execPath;
  }
  return basename(self) === loader ? join(`${process.execPath}${RUNTIME_SUFFIX}`, INSTALLED_NAME) : SELF_EXE;
}
