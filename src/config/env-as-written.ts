import { isAlias, isMap, isScalar, isSeq, type Document, type Node, type YAMLMap } from 'yaml';

/**
 * Replaces numbers and booleans in each process's `env:` with their source
 * text, so `VERSION: 1.10` gives "1.10" and `MODE: 0x1F` gives "0x1F", as
 * written, instead of the lossy String(1.1). Mutates the document.
 */
export function keepEnvValuesAsWritten(doc: Document): void {
  const processes = resolve(doc, doc.get('processes', true));
  if (!isSeq(processes)) return;
  for (const item of processes.items) {
    const process = resolve(doc, item);
    if (isMap(process)) keepValuesAsWritten(doc, resolve(doc, process.get('env', true)));
  }
}

function keepValuesAsWritten(doc: Document, map: unknown): void {
  if (!isMap(map)) return;
  for (const pair of (map as YAMLMap).items) {
    const value = pair.value;
    if (isScalar(value) && (typeof value.value === 'number' || typeof value.value === 'boolean')) {
      value.value = value.source ?? String(value.value);
    } else if (isScalar(pair.key) && pair.key.value === '<<') {
      // A merge key (<<: *defaults) brings values written elsewhere.
      keepValuesAsWritten(doc, resolve(doc, value));
    }
  }
}

function resolve(doc: Document, node: unknown): Node | undefined {
  if (isAlias(node)) return node.resolve(doc);
  return node as Node | undefined;
}
