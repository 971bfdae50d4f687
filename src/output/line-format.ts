import { assertNever } from '../plan/assert-never.ts';
import { escapeControlBytes } from './escape-control.ts';
import type { LineOutputMode, OutputStreamName } from './output-mode.ts';

// How a batch of lines (one chunk of a child's output) is written out. Batches,
// not lines: everything per process is built once (the prefix bytes, the JSON
// head), the time is taken once per chunk, and a chunk becomes one buffer and
// one write, so lines of different processes never interleave mid-line.

export interface LineFormatOptions {
  readonly mode: LineOutputMode;
  /** The process's name. */
  readonly name: string;
  /** Names are right-padded to this many characters so prefixed lines align (the longest name). */
  readonly width: number;
  readonly stream: OutputStreamName;
}

/** Turns the lines of one chunk (without their newlines) into the bytes to write. */
export type LineFormat = (lines: readonly Buffer[], now: Date) => Buffer;

const NEWLINE = 0x0a;

export function createLineFormat(options: LineFormatOptions): LineFormat {
  switch (options.mode) {
    case 'prefix':
      return prefixFormat(Buffer.from(`${options.name.padEnd(options.width)} | `));
    case 'json':
      return jsonFormat(`,"proc":${JSON.stringify(options.name)},"stream":"${options.stream}","msg":`);
    default:
      return assertNever(options.mode);
  }
}

/**
 * Each line's control characters are escaped (escape-control.ts): a CR or an
 * ESC sequence could otherwise overwrite the prefix or the terminal. Other
 * bytes are copied as they are: output that is not UTF-8 passes through unchanged.
 */
function prefixFormat(prefix: Buffer): LineFormat {
  return (raw) => {
    const lines = raw.map(escapeControlBytes);
    let size = 0;
    for (const line of lines) size += prefix.length + line.length + 1;
    const out = Buffer.allocUnsafe(size);
    let at = 0;
    for (const line of lines) {
      at += prefix.copy(out, at);
      at += line.copy(out, at);
      out[at++] = NEWLINE;
    }
    return out;
  };
}

/** msg is the line decoded as UTF-8: bytes that are not UTF-8 become U+FFFD, as JSON requires text. */
function jsonFormat(middle: string): LineFormat {
  return (lines, now) => {
    const head = `{"time":"${now.toISOString()}"${middle}`;
    let text = '';
    for (const line of lines) text += `${head}${JSON.stringify(line.toString('utf8'))}}\n`;
    return Buffer.from(text);
  };
}
