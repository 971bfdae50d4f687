import { isAlias, isMap, isScalar, isSeq, type Document, type LineCounter } from 'yaml';
import type { PathSegment } from './problem.ts';

export interface Position {
  /** 1-based. */
  readonly line: number;
  /** 1-based. */
  readonly col: number;
}

/** Where a field path is in the file. */
export type Locator = (path: readonly PathSegment[]) => Position;

/**
 * A key's position for a mapping entry (where `period:` is written), an item's
 * for a list entry. A path that leaves the document (a missing key) resolves to
 * its deepest existing part, e.g. the process that lacks `command`.
 */
export function createLocator(doc: Document, lineCounter: LineCounter): Locator {
  return (path) => {
    let node: unknown = doc.contents;
    let offset = startOf(node) ?? 0;
    for (const segment of path) {
      if (isAlias(node)) node = node.resolve(doc);
      if (isMap(node)) {
        const pair = node.items.find((item) => isScalar(item.key) && String(item.key.value) === String(segment));
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

function startOf(node: unknown): number | undefined {
  if (typeof node !== 'object' || node === null || !('range' in node)) return undefined;
  const range = (node as { range?: readonly number[] | null }).range;
  return range?.[0];
}
