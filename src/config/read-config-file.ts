import { readFileSync } from 'node:fs';
import { parseYaml, type ParsedYaml } from './parse-yaml.ts';
import type { Report } from './problem.ts';

export type ReadFile = (path: string) => string;

export const readUtf8File: ReadFile = (path) => readFileSync(path, 'utf8');

const READ_ERRORS: Readonly<Record<string, string>> = {
  ENOENT: 'no such file',
  EACCES: 'permission denied',
  EISDIR: 'is a directory, not a file',
};

/** The parsed file; undefined (and reported) when it cannot be read or is not valid YAML. */
export function readConfigFile(file: string, readFile: ReadFile, report: Report): ParsedYaml | undefined {
  let text: string;
  try {
    text = readFile(file);
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    report({ kind: 'file', path: [] }, `cannot read the config file: ${READ_ERRORS[code ?? ''] ?? message}`);
    return undefined;
  }
  return parseYaml(text, report);
}
