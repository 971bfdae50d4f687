import { splitCommand } from '../config/command.ts';
import { fail, ok, type Result } from '../support/result.ts';

/**
 * An annotation that holds words (sidecar-init's flags, a command): a JSON
 * array of strings when it starts with "[", else split like a shell splits
 * words (quotes and backslashes, no expansion), as --init NAME=CMD is.
 */
export function splitAnnotation(key: string, text: string): Result<string[]> {
  if (text.trimStart().startsWith('[')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      return fail(`annotation ${key} starts with "[" but is not a JSON array: ${(error as Error).message}`);
    }
    if (!Array.isArray(parsed) || !parsed.every((word) => typeof word === 'string')) {
      return fail(`annotation ${key} must be a JSON array of strings, or words split like a shell splits them`);
    }
    return ok(parsed);
  }
  const words = splitCommand(text);
  return words.ok ? words : fail(`annotation ${key}: ${words.message}`);
}
