import type { AppArgs } from './flags.ts';
import { createProcessDraft, type Entry, validateName } from './process.ts';

// The processes of the file and of the flags as one list (entry-rules.ts checks it).

/** The app given as operands is named like the file's app it replaces, or this. */
export const DEFAULT_APP_NAME = 'app';

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
  const name = fileName !== undefined && validateName(fileName) === undefined ? fileName : DEFAULT_APP_NAME;
  const { command, origin } = app;
  const draft = command === undefined ? undefined : createProcessDraft(name, 'app', command);
  const appEntry: Entry = { name, role: 'app', origin, after: undefined, draft };
  return { entries: [...fileEntries.filter((entry) => entry.role !== 'app'), ...flagEntries, appEntry], replaced };
}
