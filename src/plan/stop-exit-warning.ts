import type { ExternalSpec, Plan } from './plan.ts';
import type { ExternalPreset } from './presets.ts';
import { isPresetName, PRESETS } from './presets.ts';

// A pod succeeds only if every container exits 0, so a proxy of another
// container that exits non-zero once sidecar-init stops it fails the pod (a
// Job too, after its work succeeded). One sentence says so, with the fix, the
// same wherever it is said: the log before the signal, `plan`, `validate`, the
// webhook's admission warning.

/** Flag values Go's flag packages read as true (strconv.ParseBool). */
const TRUE_VALUES: ReadonlySet<string> = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);

/**
 * Why SIGTERM to this proxy fails the pod and how to avoid it, or undefined
 * when it exits 0 on SIGTERM or `args` (its command line, when known) already
 * enables the quit endpoint or a zero exit on SIGTERM.
 */
export function describeSigtermExit(preset: ExternalPreset, args?: readonly string[]): string | undefined {
  const { sigterm, sigtermZeroFlag } = preset.exits;
  if (sigterm === 0) return undefined;
  const fixes = [preset.quitFlag, sigtermZeroFlag].filter((flag) => flag !== undefined);
  if (args !== undefined && fixes.some((flag) => enablesFlag(args, flag))) return undefined;
  const fix = fixes.length === 0 ? '' : `: run it with ${fixes.join(' or ')}`;
  return `${preset.name} exits ${sigterm} on SIGTERM, which fails this pod${fix}`;
}

/**
 * The preset an external is: the one it names, or, without one, the preset
 * whose process name (comm) it matches, so a hand-written matcher for
 * cloud-sql-proxy is known as well.
 */
export function presetOfExternal(external: ExternalSpec): ExternalPreset | undefined {
  if (external.preset !== undefined) return isPresetName(external.preset) ? PRESETS[external.preset] : undefined;
  const { comm } = external.match;
  if (comm === undefined) return undefined;
  return Object.values(PRESETS).find((preset) => preset.match.comm === comm);
}

/** Whether the external's stop sends SIGTERM: its own signal, or the fallback when no stop endpoint (or a failing one). */
export function stopMaySendSigterm(external: ExternalSpec): boolean {
  const { stop } = external;
  if (stop.kind === 'none' || external.announced !== undefined) return false;
  return (stop.signal ?? 'SIGTERM') === 'SIGTERM';
}

/**
 * Each external whose stop can only be a signal (no stop endpoint at all) and
 * that exits non-zero on it, with the sentence: what `validate` warns of.
 */
export function findSignalOnlyStopsThatFail(plan: Plan): { readonly name: string; readonly warning: string }[] {
  return plan.processes.flatMap((spec) => {
    const external = spec.external;
    if (external === undefined || external.stop.kind === 'none' || external.stop.http !== undefined) return [];
    if (!stopMaySendSigterm(external)) return [];
    const preset = presetOfExternal(external);
    const warning = preset === undefined ? undefined : describeSigtermExit(preset);
    return warning === undefined ? [] : [{ name: spec.name, warning }];
  });
}

/** `--flag` or `--flag=true` (and `-flag`, as Go's flag package also reads it); the last one written wins. */
function enablesFlag(args: readonly string[], flag: string): boolean {
  const name = flag.replace(/^-+/, '');
  let enabled = false;
  for (const arg of args) {
    const match = /^--?([^=]+)(?:=(.*))?$/.exec(arg);
    if (match === null || match[1] !== name) continue;
    enabled = match[2] === undefined || TRUE_VALUES.has(match[2]);
  }
  return enabled;
}
