import { readFileSync } from 'node:fs';

// The image's /etc/passwd and /etc/group, the only source of user and group
// names in a container (no NSS). Reading them is its own step with its own
// input: the schema resolves names through an Accounts it is given, so tests
// give their own and `validate` reads the machine's it runs on.

export const PASSWD_FILE = '/etc/passwd';
export const GROUP_FILE = '/etc/group';

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
