import * as z from 'zod';
import type { ProcessUser } from '../plan/plan.ts';
import { fail, ok, type Result } from '../support/result.ts';
import { quote } from '../support/message-text.ts';
import { closestMatch } from '../support/closest-match.ts';
import { readFileSync } from 'node:fs';
import { checkWholeNumber, describeRange, ID_RANGE, parsedWith } from './schema-fields.ts';
import { builtOnFirstUse } from '../support/built-on-first-use.ts';

// Who a process runs as: `user: nobody`, `user: "1000:1000"`, `group: app`,
// `--user NAME=USER[:GROUP]`. Names are resolved here, before anything starts,
// through the image's /etc/passwd and /etc/group (readAccountFiles below, read
// by the caller), so a typo is a config error with its position rather
// than a process that fails at its turn. An init step that needs root (iptables
// for a mesh) and an app that must not have it are the point: the plan says
// per process, sidecar-init stays root and drops privileges in each child.

const USER_HINT = 'give a user name from /etc/passwd or a numeric uid, optionally with :GROUP, e.g. "nobody", "1000" or "1000:1000"';
const GROUP_HINT = 'give a group name from /etc/group or a numeric gid, e.g. "nogroup" or "1000"';

type IdRef = { readonly kind: 'id'; readonly id: number } | { readonly kind: 'name'; readonly name: string };

function parseIdRef(text: string, what: 'user' | 'group', hint: string): Result<IdRef> {
  if (text === '') return fail(`the ${what} is empty; ${hint}`);
  // A number that is no id (-1, 1.5) is a mistake, not a name.
  if (/^-?[\d.]+$/.test(text)) {
    const range = { ...ID_RANGE, what: what === 'user' ? 'a uid' : 'a gid' };
    const id = checkWholeNumber(Number(text), range);
    return id.ok && /^\d+$/.test(text) ? ok({ kind: 'id', id: id.value }) : fail(`${text} is not ${range.what}; ${describeRange(range)}`);
  }
  // ":" separates user and group; NUL and newlines cannot be in either file's names.
  if (/[:\s\0]/.test(text)) return fail(`${quote(text)} is not a ${what} name; ${hint}`);
  return ok({ kind: 'name', name: text });
}

function lookup(ref: IdRef, accounts: readonly Account[] | undefined, what: 'user' | 'group'): Result<Account | undefined> {
  const file = what === 'user' ? PASSWD_FILE : GROUP_FILE;
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

function resolveGroup(ref: IdRef, accounts: Accounts): Result<number> {
  const found = lookup(ref, accounts.groups(), 'group');
  if (!found.ok) return found;
  return ok(ref.kind === 'id' ? ref.id : found.value!.id);
}

/**
 * USER[:GROUP] as the process's user. Without a group, the user's primary
 * group in /etc/passwd; for a uid that has no entry there, gid 0, as Docker
 * and Kubernetes do (runAsUser without runAsGroup). HOME is the user's home
 * directory from /etc/passwd, or "/" without an entry, as container runtimes set it.
 */
export function parseUser(value: string | number, accounts: Accounts): Result<ProcessUser> {
  const text = String(value);
  const colon = text.indexOf(':');
  const userText = colon < 0 ? text : text.slice(0, colon);
  const groupText = colon < 0 ? undefined : text.slice(colon + 1);
  const userRef = parseIdRef(userText, 'user', USER_HINT);
  if (!userRef.ok) return userRef;
  const groupRef = groupText === undefined ? undefined : parseIdRef(groupText, 'group', GROUP_HINT);
  if (groupRef !== undefined && !groupRef.ok) return groupRef;
  const account = lookup(userRef.value, accounts.users(), 'user');
  const gid = groupRef === undefined ? undefined : resolveGroup(groupRef.value, accounts);
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
export function parseGroup(value: string | number, accounts: Accounts): Result<number> {
  const ref = parseIdRef(String(value), 'group', GROUP_HINT);
  return ref.ok ? resolveGroup(ref.value, accounts) : ref;
}

// A YAML number (`user: 1000`) is as good as the string; a fraction or a negative number is refused by the parser.
const idText = builtOnFirstUse(() => z.union([z.string(), z.number()]));

/** `user:` of a process, its names resolved through `accounts`. */
export const userField = (accounts: Accounts) =>
  parsedWith(
    idText().meta({
      description:
        'Run as this user (and its exec hooks and probes): a name from /etc/passwd or a uid, optionally :GROUP. ' +
        'Supplementary groups are cleared. sidecar-init must be root to use it.',
      examples: ['nobody', '1000', '1000:1000', 'app:app'],
    }),
    (value) => parseUser(value, accounts),
  );

/** `group:` of a process, its name resolved through `accounts`. */
export const groupField = (accounts: Accounts) =>
  parsedWith(
    idText().meta({ description: 'Run with this group: a name from /etc/group or a gid (default: the user’s primary group).' }),
    (value) => parseGroup(value, accounts),
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

// The image's /etc/passwd and /etc/group, the only source of user and group
// names in a container (no NSS). Reading them is its own step with its own
// input: the schema resolves names through an Accounts it is given, so tests
// give their own and `validate` reads the machine's it runs on.

const PASSWD_FILE = '/etc/passwd';
const GROUP_FILE = '/etc/group';

/** One line of /etc/passwd or /etc/group, the fields that matter here. */
export interface Account {
  readonly name: string;
  readonly id: number;
  /** passwd only: the primary group and the home directory. */
  readonly gid?: number | undefined;
  readonly home?: string | undefined;
}

/** The two files' accounts; undefined when a file cannot be read (a distroless or scratch image has numbers only). */
export interface Accounts {
  users(): readonly Account[] | undefined;
  groups(): readonly Account[] | undefined;
}

/** For the JSON Schema, which describes fields and resolves nothing. */
export const NO_ACCOUNTS: Accounts = { users: () => undefined, groups: () => undefined };

/** This machine's files, each read on first use and then kept: a config resolves a handful of names once per start. */
export function readAccountFiles(readText: (file: string) => string = (file) => readFileSync(file, 'utf8')): Accounts {
  const cache = new Map<string, readonly Account[] | undefined>();
  const accountsOf = (file: string) => {
    if (!cache.has(file)) cache.set(file, readAccounts(file, readText));
    return cache.get(file);
  };
  return { users: () => accountsOf(PASSWD_FILE), groups: () => accountsOf(GROUP_FILE) };
}

function readAccounts(file: string, readText: (file: string) => string): readonly Account[] | undefined {
  let text: string;
  try {
    text = readText(file);
  } catch {
    return undefined;
  }
  return text.split('\n').flatMap((line) => {
    const [name = '', , id = '', gid = '', , home = ''] = line.split(':');
    if (name === '' || name.startsWith('#') || !/^\d+$/.test(id)) return [];
    return [{ name, id: Number(id), gid: /^\d+$/.test(gid) ? Number(gid) : undefined, home: home === '' ? undefined : home }];
  });
}
