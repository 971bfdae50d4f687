import { checkAfter } from './after.ts';
import { DEFAULTS } from '../plan/plan.ts';
import { checkFlagTargets } from './target-flags.ts';
import type { AppArgs, FlagConfig } from './flags.ts';
import { createProcessDraft, type Entry, validateName } from './process.ts';
import { at, type Origin, type Report } from './config-error.ts';
import { quote } from '../support/message-text.ts';

// The processes of the file and of the flags as one list, and the rules that
// hold across it, all in one place and run once every entry is known: names
// unique and valid, one app, `after` names that exist and make no cycle,
// flags that name a process they suit, and (for a run) users sidecar-init may
// switch to. Each field of one process has already been checked by its schema.

/** The app given as operands is named like the file's app it replaces, or this. */

export interface MergedEntries {
  /** The plan's entries in list order. */
  readonly entries: readonly Entry[];
  /** The file's apps that the app given as operands replaced. */
  readonly replaced: readonly Entry[];
}

/**
 * One list: the file's entries in file order, then --init/--sidecar in
 * command-line order ("flags add to the file"). An app given as operands
 * replaces the file's app and takes its name (when valid), so logs and
 * references stay the same whether the app comes from the file or from the
 * Dockerfile's CMD. Nothing else of the file's app is kept.
 */
export function mergeEntries(fileEntries: readonly Entry[], flagEntries: readonly Entry[], app: AppArgs | undefined): MergedEntries {
  if (app === undefined) return { entries: [...fileEntries, ...flagEntries], replaced: [] };
  const replaced = fileEntries.filter((entry) => entry.role === 'app');
  const fileName = replaced.length === 1 ? replaced[0]!.name : undefined;
  const name = fileName !== undefined && validateName(fileName) === undefined ? fileName : DEFAULTS.appName;
  const { command, origin } = app;
  const draft = command === undefined ? undefined : createProcessDraft(name, 'app', command);
  const appEntry: Entry = { name, role: 'app', origin, after: undefined, draft };
  return { entries: [...fileEntries.filter((entry) => entry.role !== 'app'), ...flagEntries, appEntry], replaced };
}

export interface EntryRulesInput extends MergedEntries {
  /** The file's own entries, for its apps. */
  readonly fileEntries: readonly Entry[];
  readonly flags: FlagConfig;
  /** Where "no app" is reported: the file's processes, or the command line. */
  readonly noAppOrigin: Origin;
  /** sidecar-init's own ids, for a run; undefined for validate and plan. */
  readonly identity: Identity | undefined;
}

export function checkEntryRules(input: EntryRulesInput, report: Report): void {
  const { entries, replaced, flags } = input;
  checkNames(entries, replaced, report);
  checkApps(input.fileEntries, entries, input.noAppOrigin, report);
  checkAfter(entries, replaced, report);
  checkFlagTargets(flags.targets, entries, report);
  if (input.identity !== undefined) checkPrivileges(entries, flags, input.identity, report);
}

/**
 * Every name is a DNS label, the file's replaced app included (the file is
 * still wrong), and names are unique across the file and the flags.
 */
function checkNames(entries: readonly Entry[], replaced: readonly Entry[], report: Report): void {
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

/** The file has at most one app, and the merged list has one (from the file or the operands). */
function checkApps(fileEntries: readonly Entry[], entries: readonly Entry[], noAppOrigin: Origin, report: Report): void {
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

/** sidecar-init's own ids, for the privilege check of a run. */
export interface Identity {
  readonly uid: number;
  readonly gid: number;
}

/**
 * Only root can start a process as another user or group: anyone else would
 * see each such spawn fail at its turn (setgid/setuid: EPERM), after the
 * processes before it had started. Refused before anything starts instead, at
 * the --user flag or the file's field that asked for it.
 */
function checkPrivileges(entries: readonly Entry[], flags: FlagConfig, identity: Identity, report: Report): void {
  if (identity.uid === 0) return;
  for (const { name, draft, origin } of entries) {
    if (name === undefined || draft === undefined) continue;
    const flag = flags.targets.user.find((given) => given.name === name);
    const user = flag === undefined ? draft.user : flag.value?.apply(draft).user;
    if (user === undefined) continue;
    const uid = user.uid ?? identity.uid;
    if (uid === identity.uid && user.gid === identity.gid) continue;
    report(
      flag?.origin ?? at(origin, user.uid === undefined ? 'group' : 'user'),
      `sidecar-init runs as uid ${identity.uid} gid ${identity.gid}, not as root, so it cannot start ${quote(name)} as ` +
        `uid ${uid} gid ${user.gid}; run sidecar-init as root (each process then drops to its own user), ` +
        `or leave out the user and group of ${quote(name)}`,
    );
  }
}
