import * as z from 'zod';
import { fail, ok, type Result } from '../support/result.ts';
import { parsedWith } from './schema-fields.ts';
import { builtOnFirstUse } from '../support/built-on-first-use.ts';

/** A command to run: the program first. Never run through a shell. */
export type Argv = readonly [string, ...string[]];

const COMMAND_HINT = 'give the program and its arguments, e.g. "envoy -c /etc/envoy.yaml"';

/** A command string (split like a shell) or list, as argv. */
export function parseCommand(command: string | readonly string[]): Result<Argv> {
  const words = typeof command === 'string' ? splitCommand(command) : ok(command);
  if (!words.ok) return words;
  const [program, ...args] = words.value;
  if (program === undefined || program === '') {
    return fail(`${program === undefined ? 'the command' : 'the program name'} is empty; ${COMMAND_HINT}`);
  }
  return checkNoNul([program, ...args]);
}

/**
 * Arguments reach execve as C strings, so a NUL would cut one short (Node
 * refuses it when spawning, after the sidecars have started): refuse it first.
 */
export function checkNoNul<Words extends readonly string[]>(words: Words, prefix = ''): Result<Words> {
  const index = words.findIndex((word) => word.includes('\0'));
  if (index < 0) return ok(words);
  return fail(`${prefix}${index === 0 ? 'the program name' : `argument ${index}`} has a NUL character, which no command line can hold`);
}

export const CommandSchema = builtOnFirstUse(() =>
  parsedWith(
    z.union([z.string(), z.array(z.string()).min(1)]).meta({
      description: 'A string split into words like a shell does (quotes honoured, no shell run), or the argv as a list.',
    }),
    parseCommand,
  ),
);
// Splits a command string into argv the way a POSIX shell splits words, without
// running a shell: no variables, globs, tildes, comments or operators, so `$HOME`
// and `a|b` stay literal. What a shell would do with quotes is honoured:
// - whitespace separates words; adjacent quoted and unquoted parts join (a"b c"d → `ab cd`);
// - '…' is literal, with no escapes at all;
// - "…" is literal except \" \\ \$ \` (the backslash is dropped) and backslash-newline (removed);
// - outside quotes a backslash makes the next character literal; backslash-newline is removed.
// https://pubs.opengroup.org/onlinepubs/9799919799/utilities/V3_chap02.html#tag_19_02

const WHITESPACE = new Set([' ', '\t', '\n', '\r']);
const ESCAPABLE_IN_DOUBLE_QUOTES = new Set(['"', '\\', '$', '`']);

export function splitCommand(text: string): Result<string[]> {
  const words: string[] = [];
  let word: string | undefined;
  let i = 0;
  while (i < text.length) {
    const char = text[i]!;
    if (WHITESPACE.has(char)) {
      if (word !== undefined) words.push(word);
      word = undefined;
      i += 1;
    } else if (char === '\\' && text[i + 1] === '\n') {
      i += 2;
    } else if (char === '\\') {
      if (i + 1 >= text.length) {
        return fail(`a trailing backslash at character ${i + 1} escapes nothing; write \\\\ for a literal backslash`);
      }
      word = (word ?? '') + text[i + 1];
      i += 2;
    } else if (char === "'") {
      const end = text.indexOf("'", i + 1);
      if (end < 0) return fail(unclosed("'", i, text));
      word = (word ?? '') + text.slice(i + 1, end);
      i = end + 1;
    } else if (char === '"') {
      const quoted = readDoubleQuoted(text, i + 1);
      if (quoted === undefined) return fail(unclosed('"', i, text));
      word = (word ?? '') + quoted.value;
      i = quoted.end;
    } else {
      word = (word ?? '') + char;
      i += 1;
    }
  }
  if (word !== undefined) words.push(word);
  return ok(words);
}

function readDoubleQuoted(text: string, start: number): { value: string; end: number } | undefined {
  let value = '';
  let i = start;
  while (i < text.length) {
    const char = text[i]!;
    const next = text[i + 1];
    if (char === '"') return { value, end: i + 1 };
    if (char === '\\' && next !== undefined && ESCAPABLE_IN_DOUBLE_QUOTES.has(next)) {
      value += next;
      i += 2;
    } else if (char === '\\' && next === '\n') {
      i += 2;
    } else {
      value += char;
      i += 1;
    }
  }
  return undefined;
}

function unclosed(quoteChar: string, index: number, text: string): string {
  return `unbalanced quote: the ${quoteChar} at character ${index + 1} is never closed in: ${text}`;
}

/** argv as a shell would need it typed: plain words as they are, others quoted (double quotes when that reads better). */
export function describeCommand(command: readonly string[]): string {
  return command.map(quoteWord).join(' ');
}

function quoteWord(word: string): string {
  if (/^[\w@%+=:,./-]+$/.test(word)) return word;
  if (word.includes("'") && !/[$`"\\!]/.test(word)) return `"${word}"`;
  return `'${word.replaceAll("'", "'\\''")}'`;
}
