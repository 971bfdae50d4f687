import type { Entry } from './entry.ts';
import { at, type Origin, type Report } from './problem.ts';

/** The file has at most one app, and the merged list has one (from the file or the operands). */
export function checkApps(fileEntries: readonly Entry[], entries: readonly Entry[], noAppOrigin: Origin, report: Report): void {
  const fileApps = fileEntries.filter((entry) => entry.role === 'app');
  for (const extra of fileApps.slice(1)) {
    report(at(extra.origin, 'role'), 'a second app; only one process can have role app', at(fileApps[0]!.origin, 'role'));
  }
  // An entry whose role could not be read may be the app: saying "no app" then would mislead.
  const appMayExist = entries.some((entry) => entry.role === 'app' || entry.role === undefined);
  if (!appMayExist) {
    report(
      noAppOrigin,
      'no app to run; give it after the options (sidecar-init [OPTIONS] -- APP [ARGS...]) or as a process with role: app',
    );
  }
}
