import type { Entry } from './entry.ts';
import type { ReadyFlag } from './normalize-flags.ts';
import type { Report } from './problem.ts';
import { quote } from './result.ts';

/** Each --ready names a sidecar, once. */
export function checkReadyFlags(ready: readonly ReadyFlag[], entries: readonly Entry[], report: Report): void {
  const seen = new Map<string, ReadyFlag>();
  for (const flag of ready) {
    const earlier = seen.get(flag.name);
    if (earlier !== undefined) {
      report(flag.origin, `--ready was already given for ${quote(flag.name)}`, earlier.origin);
      continue;
    }
    seen.set(flag.name, flag);
    const target = entries.find((entry) => entry.name === flag.name);
    if (target === undefined) {
      report(flag.origin, `no process is named ${quote(flag.name)}; ${describeSidecars(entries)}`);
    } else if (target.role !== undefined && target.role !== 'sidecar') {
      const what = target.role === 'app' ? 'the app' : 'an init step';
      report(flag.origin, `${quote(flag.name)} is ${what}; --ready applies only to sidecars`);
    }
  }
}

function describeSidecars(entries: readonly Entry[]): string {
  const names = entries.flatMap((entry) => (entry.role === 'sidecar' && entry.name !== undefined ? [entry.name] : []));
  return names.length === 0 ? 'there are no sidecars' : `the sidecars are ${names.join(', ')}`;
}
