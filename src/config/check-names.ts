import { validateName } from './dns-label.ts';
import type { Entry } from './entry.ts';
import { at, type Report } from './problem.ts';
import { quote } from './result.ts';

/**
 * Every name is a DNS label, the file's replaced app included (the file is
 * still wrong), and names are unique across the file and the flags.
 */
export function checkNames(entries: readonly Entry[], replaced: readonly Entry[], report: Report): void {
  for (const entry of [...entries, ...replaced]) {
    const invalid = entry.name === undefined ? undefined : validateName(entry.name);
    if (invalid !== undefined) report(at(entry.origin, 'name'), invalid);
  }
  const first = new Map<string, Entry>();
  for (const entry of entries) {
    if (entry.name === undefined) continue;
    const earlier = first.get(entry.name);
    if (earlier === undefined) {
      first.set(entry.name, entry);
    } else {
      const message = `${quote(entry.name)} is already the name of another process`;
      report(at(entry.origin, 'name'), message, at(earlier.origin, 'name'));
    }
  }
}
