import { LineCounter, parseDocument } from 'yaml';
import { keepEnvValuesAsWritten } from './env-as-written.ts';
import { createLocator, type Locator } from './locate.ts';
import type { Report } from './problem.ts';

export interface ParsedYaml {
  readonly value: unknown;
  readonly locate: Locator;
}

/** The file's value and a way to find each field in it; undefined (and reported) on YAML errors. */
export function parseYaml(text: string, report: Report): ParsedYaml | undefined {
  const lineCounter = new LineCounter();
  // YAML 1.2 core schema (`yes` is a string), plus `<<` merge keys for shared blocks.
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, merge: true, uniqueKeys: true });
  for (const error of doc.errors) {
    const position = lineCounter.linePos(error.pos[0]);
    report({ kind: 'file', path: [], position }, `invalid YAML: ${error.message}`);
  }
  if (doc.errors.length > 0) return undefined;
  keepEnvValuesAsWritten(doc);
  try {
    return { value: doc.toJS(), locate: createLocator(doc, lineCounter) };
  } catch (error) {
    // toJS refuses, e.g., an alias count that suggests a "billion laughs" document.
    report({ kind: 'file', path: [] }, `invalid YAML: ${(error as Error).message}`);
    return undefined;
  }
}
