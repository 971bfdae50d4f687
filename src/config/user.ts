import { readFileSync } from 'node:fs';
import * as z from 'zod';
import type { FlagConfig } from './flags.ts';
import type { ProcessUser } from '../plan/plan.ts';
import type { Entry } from './process.ts';
import { at, type Report } from './problem.ts';
import { closestMatch, fail, ok, quote, type Result } from './result.ts';
import { parsedWith } from './schema-fields.ts';

// Who a process runs as: `user: nobody`, `user: "1000:1000"`, `group: app`,
// `--user NAME=USER[:GROUP]`. Names are resolved here, before anything starts,
// through /etc/passwd and /etc/group as the image has them (no NSS: a container
// has no other source), so a typo is a config error with its position rather
// than a process that fails at its turn. An init step that needs root (iptables
// for a mesh) and an app that must not have it are the point: the plan says
// per process, sidecar-init stays root and drops privileges in each child.

/** uid_t and gid_t are 32-bit; (uid_t)-1 means "unchanged" to setuid(2), so it is no id. */
const MAX_ID = 2 ** 32 - 2;

const PASSWD_FILE = '/etc/passwd';
const GROUP_FILE = '/etc/group';

const USER_HINT = 'give a user name from /etc/passwd or a numeric uid, optionally with :GROUP, e.g. "nobody", "1000" or "1000:1000"';
const GROUP_HINT = 'give a group name from /etc/group or a numeric gid, e.g. "nogroup" or "1000"';

/** One line of /etc/passwd or /etc/group, the fields that matter here. */
interface Account {
  readonly name: string;
  readonly id: number;
  /** passwd only: the primary group and the home directory. */
  readonly gid?: number | undefined;
  readonly home?: string | undefined;
}

/**
 * The accounts of one of the two files. Read at each lookup: a config resolves
 * a handful of names once per start, and /etc/passwd is a few kilobytes. A
 * missing file (a distroless or scratch image) has no names, only numbers.
 */
function readAccounts(file: string): readonly Account[] | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  return text.split('\n').flatMap((line) => {
    const fields = line.split(':');
    const [name = '', , id = '', gid = '', , home = ''] = fields;
    if (name === '' || name.startsWith('#') || !/^\d+$/.test(id)) return [];
    return [{ name, id: Number(id), gid: /^\d+$/.test(gid) ? Number(gid) : undefined, home: home === '' ? undefined : home }];
  });
}

type IdRef = { readonly kind: 'id'; readonly id: number } | { readonly kind: 'name'; readonly name: string };

function parseIdRef(text: string, what: 'user' | 'group', hint: string): Result<IdRef> {
  if (text === '') return fail(`the ${what} is empty; ${hint}`);
  // A number that is no id (-1, 1.5) is a mistake, not a name.
  if (/^-?[\d.]+$/.test(text)) {
    const id = Number(text);
    return /^\d+$/.test(text) && id <= MAX_ID
      ? ok({ kind: 'id', id })
      : fail(`${text} is not a ${what === 'user' ? 'uid' : 'gid'}; use a whole number from 0 to ${MAX_ID}`);
  }
  // ":" separates user and group; NUL and newlines cannot be in either file's names.
  if (/[:\s\0]/.test(text)) return fail(`${quote(text)} is not a ${what} name; ${hint}`);
  return ok({ kind: 'name', name: text });
}

function lookup(ref: IdRef, file: string, what: 'user' | 'group'): Result<Account | undefined> {
  const accounts = readAccounts(file);
  if (ref.kind === 'id') return ok(accounts?.find((account) => account.id === ref.id));
  if (accounts === undefined) {
    return fail(`no ${what} ${quote(ref.name)}: ${file} cannot be read; without it give a numeric ${what === 'user' ? 'uid' : 'gid'}`);
  }
  const found = accounts.find((account) => account.name === ref.name);
  if (found !== undefined) return ok(found);
  const suggestion = closestMatch(
    ref.name,
    accounts.map((account) => account.name),
  );
  return fail(`no ${what} ${quote(ref.name)} in ${file}${suggestion === undefined ? '' : ` (did you mean ${suggestion}?)`}`);
}

function resolveGroup(ref: IdRef): Result<number> {
  const found = lookup(ref, GROUP_FILE, 'group');
  if (!found.ok) return found;
  return ok(ref.kind === 'id' ? ref.id : found.value!.id);
}

/**
 * USER[:GROUP] as the process's user. Without a group, the user's primary
 * group in /etc/passwd; for a uid that has no entry there, gid 0, as Docker
 * and Kubernetes do (runAsUser without runAsGroup). HOME is the user's home
 * directory from /etc/passwd, or "/" without an entry, as container runtimes set it.
 */
export function parseUser(value: string | number): Result<ProcessUser> {
  const text = String(value);
  const colon = text.indexOf(':');
  const userText = colon < 0 ? text : text.slice(0, colon);
  const groupText = colon < 0 ? undefined : text.slice(colon + 1);
  const userRef = parseIdRef(userText, 'user', USER_HINT);
  if (!userRef.ok) return userRef;
  const groupRef = groupText === undefined ? undefined : parseIdRef(groupText, 'group', GROUP_HINT);
  if (groupRef !== undefined && !groupRef.ok) return groupRef;
  const account = lookup(userRef.value, PASSWD_FILE, 'user');
  const gid = groupRef === undefined ? undefined : resolveGroup(groupRef.value);
  // Both names are looked up, so one run reports both typos.
  if (!account.ok || (gid !== undefined && !gid.ok)) {
    return fail([account, gid].flatMap((result) => (result === undefined || result.ok ? [] : [result.message])).join('; '));
  }
  const entry = account.value;
  return ok({
    uid: userRef.value.kind === 'id' ? userRef.value.id : entry!.id,
    gid: gid?.value ?? entry?.gid ?? 0,
    home: entry?.home ?? '/',
  });
}

/** A group alone: the process keeps sidecar-init's uid, with this gid and no supplementary groups. */
export function parseGroup(value: string | number): Result<number> {
  const ref = parseIdRef(String(value), 'group', GROUP_HINT);
  return ref.ok ? resolveGroup(ref.value) : ref;
}

// A YAML number (`user: 1000`) is as good as the string; a fraction or a negative number is refused by the parser.
const idText = z.union([z.string(), z.number()]);

export const UserSchema = parsedWith(
  idText.meta({
    description:
      'Run as this user (and its exec hooks and probes): a name from /etc/passwd or a uid, optionally :GROUP. ' +
      'Supplementary groups are cleared. sidecar-init must be root to use it.',
    examples: ['nobody', '1000', '1000:1000', 'app:app'],
  }),
  parseUser,
);

export const GroupSchema = parsedWith(
  idText.meta({ description: 'Run with this group: a name from /etc/group or a gid (default: the user’s primary group).' }),
  parseGroup,
);

/** `user` and `group` of one process, both optional, as one ProcessUser. */
export function combineUser(user: ProcessUser | undefined, gid: number | undefined): ProcessUser | undefined {
  if (gid === undefined) return user;
  return user === undefined ? { uid: undefined, gid, home: undefined } : { ...user, gid };
}

/** The group given twice: in `user: "a:b"` and in `group:`. */
export function checkUserAndGroup(user: unknown, group: unknown): string | undefined {
  if (group === undefined || group === null || typeof user !== 'string' || !user.includes(':')) return undefined;
  return `the group is already given in user (${quote(user)}); give it in one place`;
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
export function checkPrivileges(entries: readonly Entry[], flags: FlagConfig, identity: Identity, report: Report): void {
  if (identity.uid === 0) return;
  for (const { name, draft, origin } of entries) {
    if (name === undefined || draft === undefined) continue;
    const flag = flags.user.find((given) => given.name === name);
    const user = flag === undefined ? draft.user : flag.value;
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
