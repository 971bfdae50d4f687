// Text that sidecar-init writes for a person (the text log, prefixed output)
// carries what other processes chose: a process's comm or cmdline, a hook's or
// a child's output line, an error message. A control character in it would
// reach the terminal raw: ESC[2J clears the screen, CR returns to the start of
// the line and overwrites the prefix, a newline starts a forged line
// ("FATAL …") under sidecar-init's name. So every control character — C0
// (including tab, CR and newline), DEL and C1 (U+0080–U+009F, which some
// terminals read as ESC [ and friends) — is written as a visible escape:
// \t, \n, \r, else \xHH (the code point, two hex digits).

const NAMED: Readonly<Record<string, string>> = { '\t': '\\t', '\n': '\\n', '\r': '\\r' };
const NAMED_BYTES: Readonly<Record<number, string>> = { 9: '\\t', 10: '\\n', 13: '\\r' };

/** C0, DEL and C1, as a character class body. */
export const CONTROL_CHARACTERS = '\\u0000-\\u001f\\u007f-\\u009f';
/**
 * Unicode's line and paragraph separators (which some readers break lines at,
 * JavaScript's among them) and its bidirectional controls (an override makes
 * a line read otherwise than it is written), as a character class body.
 */
const INVISIBLE_FORMATTING = '\\u2028\\u2029\\u200e\\u200f\\u061c\\u202a-\\u202e\\u2066-\\u2069';
/** Control characters, invisible formatting, and the backslash that escapes them (see escapeControl). */
const NEEDS_ESCAPE = new RegExp(`[${CONTROL_CHARACTERS}${INVISIBLE_FORMATTING}\\\\]`);
const NEEDS_ESCAPE_ALL = new RegExp(NEEDS_ESCAPE.source, 'g');

/**
 * A field of the text log with every control character escaped. A backslash
 * becomes \\, so the escaped text reads back to exactly the original: a
 * literal "\x1b" written by a process shows as \\x1b, never as the escape an
 * ESC became.
 */
export function escapeControl(text: string): string {
  if (!NEEDS_ESCAPE.test(text)) return text;
  return text.replace(NEEDS_ESCAPE_ALL, (char) => (char === '\\' ? '\\\\' : (NAMED[char] ?? hexEscape(char.charCodeAt(0)))));
}

/** DEL, C1 and invisible formatting, which JSON.stringify leaves raw (JSON only requires C0 to be escaped). */
const RAW_IN_JSON = new RegExp(`[\\u007f-\\u009f${INVISIBLE_FORMATTING}]`, 'g');

/** JSON.stringify, with DEL, C1 and invisible formatting escaped as \uHHHH too: a quoted value of the text log. */
export function stringifyWithoutControl(value: unknown): string {
  return escapeRawInJson(JSON.stringify(value) ?? String(value));
}

/**
 * A JSON text with DEL, C1 and invisible formatting written as \uHHHH escapes:
 * the same value to a JSON parser, but nothing in it a terminal or a log
 * reader acts on. Such characters occur only inside strings, where the escape
 * is valid: a line of the JSON log from a neighbour's process name cannot
 * carry a CSI, a NEL or a right-to-left override.
 */
export function escapeRawInJson(json: string): string {
  RAW_IN_JSON.lastIndex = 0;
  if (!RAW_IN_JSON.test(json)) return json;
  return json.replace(RAW_IN_JSON, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

const DEL = 0x7f;
/** UTF-8 encodes U+0080–U+009F as 0xC2 followed by the code point's own byte. */
const C1_LEAD = 0xc2;
const C1_FIRST = 0x80;
const C1_LAST = 0x9f;

/**
 * One line of a child's or a hook's output (bytes, without its newline) with
 * its control characters escaped, for `output: prefix`. Unlike escapeControl
 * it leaves backslashes alone: the line is the process's own text, often JSON
 * with escapes of its own, and must read as it wrote it; the escapes are for
 * the terminal's safety, not for reading back. Bytes that are not UTF-8 pass
 * as they are (a UTF-8 terminal shows them as replacement characters). Returns
 * the same Buffer when there is nothing to escape, which is nearly always.
 */
export function escapeControlBytes(line: Buffer): Buffer {
  const first = findControlCandidate(line, 0);
  if (first === -1) return line;
  const parts: Buffer[] = [];
  let start = 0;
  for (let index = first; index !== -1; index = findControlCandidate(line, index + 1)) {
    if (!isControlAt(line, index)) continue;
    parts.push(line.subarray(start, index));
    const byte = line[index] as number;
    if (byte === C1_LEAD) {
      index += 1;
      parts.push(Buffer.from(hexEscape(line[index] as number)));
    } else {
      parts.push(Buffer.from(NAMED_BYTES[byte] ?? hexEscape(byte)));
    }
    start = index + 1;
  }
  if (parts.length === 0) return line;
  parts.push(line.subarray(start));
  return Buffer.concat(parts);
}

/**
 * The first byte from `from` that may start a control character, or -1: one
 * tight loop, as this runs over every byte of prefixed output (a 0xC2 of an
 * ordinary character such as "©" is a false alarm that isControlAt settles).
 */
function findControlCandidate(line: Buffer, from: number): number {
  for (let index = from; index < line.length; index += 1) {
    const byte = line[index] as number;
    if (byte < 0x20 || byte === DEL || byte === C1_LEAD) return index;
  }
  return -1;
}

function isControlAt(line: Buffer, index: number): boolean {
  const byte = line[index] as number;
  if (byte < 0x20 || byte === DEL) return true;
  if (byte !== C1_LEAD) return false;
  const next = line[index + 1];
  return next !== undefined && next >= C1_FIRST && next <= C1_LAST;
}

function hexEscape(code: number): string {
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}
