import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { isAlias, isMap, isScalar, isSeq, LineCounter, parseDocument, visit, type Document, type Node, type YAMLMap } from 'yaml';
import { errorCode } from '../support/error-code.ts';
import type { Locator, Report } from './config-error.ts';
import { explainYamlErrors } from './yaml-hints.ts';

// The config file: read with a bound, parsed as YAML with the position of every
// field kept, so that each problem can name its line and column.

export type ReadFile = (path: string) => string;

/** A config is kilobytes; anything past this is a mistake (a device, a log), refused before it costs memory. */
export const MAX_CONFIG_BYTES = 1024 * 1024;

export interface ParsedYaml {
  readonly value: unknown;
  readonly locate: Locator;
}

const READ_ERRORS: Readonly<Record<string, string>> = {
  ENOENT: 'no such file',
  EACCES: 'permission denied',
  EISDIR: 'is a directory, not a file',
  ENOTREG: 'not a regular file (a device, a pipe or a socket?); give a YAML file',
  EFBIG: `larger than ${MAX_CONFIG_BYTES / 1024 / 1024} MiB; a config is a few kilobytes`,
};

/** The parsed file; undefined (and reported) when it cannot be read or is not valid YAML. */
export function readConfigFile(file: string, readFile: ReadFile, report: Report): ParsedYaml | undefined {
  let text: string;
  try {
    text = readFile(file);
  } catch (error) {
    const reason = READ_ERRORS[errorCode(error) ?? ''] ?? (error instanceof Error ? error.message : String(error));
    report({ kind: 'file', path: [] }, `cannot read the config file: ${reason}`);
    return undefined;
  }
  return parseYaml(text, report);
}

/**
 * A regular file's text, at most MAX_CONFIG_BYTES. Opened without blocking, so
 * a FIFO with no writer is refused instead of waiting forever; read into one
 * fixed buffer, so /dev/zero or a huge file costs a megabyte, not all memory.
 */
export const readBoundedFile: ReadFile = (path) => {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const stat = fstatSync(fd);
    if (stat.isDirectory()) throw readError('EISDIR');
    if (!stat.isFile()) throw readError('ENOTREG');
    if (stat.size > MAX_CONFIG_BYTES) throw readError('EFBIG');
    // One byte more than allowed tells a file at the limit from one past it (/proc files report size 0).
    const buffer = Buffer.alloc(MAX_CONFIG_BYTES + 1);
    let length = 0;
    for (let read = -1; read !== 0 && length < buffer.length; length += read) {
      read = readSync(fd, buffer, length, buffer.length - length, null);
    }
    if (length > MAX_CONFIG_BYTES) throw readError('EFBIG');
    return buffer.toString('utf8', 0, length);
  } finally {
    closeSync(fd);
  }
};

function readError(code: string): NodeJS.ErrnoException {
  return Object.assign(new Error(code), { code });
}

const DUPLICATE_KEY = 'invalid YAML: Map keys must be unique';

/** The file's value and a way to find each field in it; undefined (and reported) on YAML errors. */
export function parseYaml(text: string, report: Report): ParsedYaml | undefined {
  const lineCounter = new LineCounter();
  // YAML 1.2 core schema (`yes` is a string), plus `<<` merge keys for shared blocks.
  // The library's own unique-key check compares every key with every other
  // (minutes for 100,000 keys), so duplicates are found here with a set.
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, merge: true, uniqueKeys: false });
  const messages = explainYamlErrors(doc.errors, (index) => lineCounter.linePos(doc.errors[index]!.pos[0]).line);
  const positions = doc.errors.map((error, index) => ({ offset: error.pos[0], message: `invalid YAML: ${messages[index]!}` }));
  if (positions.length === 0) positions.push(...duplicateKeys(doc).map((offset) => ({ offset, message: DUPLICATE_KEY })));
  for (const { offset, message } of positions) report({ kind: 'file', path: [], position: lineCounter.linePos(offset) }, message);
  if (positions.length > 0) return undefined;
  keepEnvValuesAsWritten(doc);
  try {
    return { value: doc.toJS(), locate: createLocator(doc, lineCounter) };
  } catch (error) {
    // toJS refuses, e.g., an alias count that suggests a "billion laughs" document, an
    // alias whose anchor comes later, or a merge of something that is not a mapping.
    // Its error has no position; every such refusal is about an alias or a merge key.
    const offset = offendingAliasOrMerge(doc) ?? startOf(doc.contents) ?? 0;
    report({ kind: 'file', path: [], position: lineCounter.linePos(offset) }, `invalid YAML: ${(error as Error).message}`);
    return undefined;
  }
}

/** The offsets of keys already used in their mapping (`<<` merge keys may repeat). */
function duplicateKeys(doc: Document): number[] {
  const offsets: number[] = [];
  visit(doc, {
    Map(_, map) {
      const seen = new Set<unknown>();
      for (const { key } of map.items) {
        if (!isScalar(key) || isMergeKey(key)) continue;
        if (seen.has(key.value)) offsets.push(startOf(key) ?? 0);
        seen.add(key.value);
      }
    },
  });
  return offsets;
}

/**
 * A key's position for a mapping entry (where `period:` is written), an item's
 * for a list entry. A path that leaves the document (a missing key) resolves to
 * its deepest existing part, e.g. the process that lacks `command`. Each
 * mapping's keys are indexed once, so locating every problem stays linear.
 */
function createLocator(doc: Document, lineCounter: LineCounter): Locator {
  const indexes = new WeakMap<YAMLMap, Map<string, YAMLMap['items'][number]>>();
  const pairOf = (map: YAMLMap, key: string) => {
    let index = indexes.get(map);
    if (index === undefined) {
      index = new Map();
      for (const pair of map.items) if (isScalar(pair.key) && !index.has(String(pair.key.value))) index.set(String(pair.key.value), pair);
      indexes.set(map, index);
    }
    return index.get(key);
  };
  return (path) => {
    let node: unknown = doc.contents;
    let offset = startOf(node) ?? 0;
    for (const segment of path) {
      if (isAlias(node)) node = node.resolve(doc);
      if (isMap(node)) {
        const pair = pairOf(node as YAMLMap, String(segment));
        if (pair === undefined) break;
        offset = startOf(pair.key) ?? offset;
        node = pair.value;
      } else if (isSeq(node) && typeof segment === 'number' && segment < node.items.length) {
        node = node.items[segment];
        offset = startOf(node) ?? offset;
      } else {
        break;
      }
    }
    return lineCounter.linePos(offset);
  };
}

/**
 * Where toJS gave up: the first alias that resolves to nothing, else the first
 * merge key whose value is not a mapping (or a list of them), else the first
 * alias (too many aliases).
 */
function offendingAliasOrMerge(doc: Document): number | undefined {
  let unresolved: number | undefined;
  let badMerge: number | undefined;
  let firstAlias: number | undefined;
  const isMapping = (node: unknown): boolean => isMap(resolve(doc, node));
  visit(doc, {
    Alias(_, alias) {
      firstAlias ??= startOf(alias);
      if (unresolved === undefined && alias.resolve(doc) === undefined) unresolved = startOf(alias);
    },
    Pair(_, pair) {
      if (badMerge !== undefined || !isMergeKey(pair.key)) return;
      const value = resolve(doc, pair.value);
      if (!(isMap(value) || (isSeq(value) && value.items.every(isMapping)))) badMerge = startOf(pair.key);
    },
  });
  return unresolved ?? badMerge ?? firstAlias;
}

function startOf(node: unknown): number | undefined {
  if (typeof node !== 'object' || node === null || !('range' in node)) return undefined;
  const range = (node as { range?: readonly number[] | null }).range;
  return range?.[0];
}

/**
 * Replaces numbers and booleans in each process's `env:` with their source
 * text, so `VERSION: 1.10` gives "1.10" and `MODE: 0x1F` gives "0x1F", as
 * written, instead of the lossy String(1.1). Mutates the document.
 */
function keepEnvValuesAsWritten(doc: Document): void {
  const processes = resolve(doc, doc.get('processes', true));
  if (!isSeq(processes)) return;
  // Each mapping once: merge keys can make a cycle (&e { <<: *e }) or reach one
  // mapping by many ways (a "billion laughs" of merges); toJS refuses both next.
  const seen = new Set<YAMLMap>();
  for (const item of processes.items) {
    const process = resolve(doc, item);
    if (isMap(process)) keepValuesAsWritten(doc, resolve(doc, process.get('env', true)), seen);
  }
}

function keepValuesAsWritten(doc: Document, map: unknown, seen: Set<YAMLMap>): void {
  if (!isMap(map) || seen.has(map as YAMLMap)) return;
  seen.add(map as YAMLMap);
  for (const pair of (map as YAMLMap).items) {
    const value = pair.value;
    if (isScalar(value) && (typeof value.value === 'number' || typeof value.value === 'boolean')) {
      value.value = value.source ?? String(value.value);
    } else if (isMergeKey(pair.key)) {
      // A merge key (<<: *defaults, <<: { A: 1.10 } or a list of them) brings values written elsewhere.
      const source = resolve(doc, value);
      for (const each of isSeq(source) ? source.items : [source]) keepValuesAsWritten(doc, resolve(doc, each), seen);
    }
  }
}

/** A `<<` key: with merge on, the parser gives each one a symbol of its own for its value (never the string "<<"). */
function isMergeKey(key: unknown): boolean {
  return isScalar(key) && typeof key.value === 'symbol';
}

function resolve(doc: Document, node: unknown): Node | undefined {
  if (isAlias(node)) return node.resolve(doc);
  return node as Node | undefined;
}
