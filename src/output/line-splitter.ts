/**
 * Lines longer than this are cut and delivered in pieces, so one endless line
 * cannot grow memory without bound. Each piece of a cut line is delivered with
 * `whole` false, up to and including the piece its newline ends.
 */
export const MAX_LINE_BYTES = 64 * 1024;
const NEWLINE = 0x0a;

/**
 * Splits a byte stream into lines (without their "\n"), carrying a partial
 * line across chunks. One tight loop over Buffers and indexOf, no per-line
 * stream transform: docs/architecture.md records 568 MiB/s for this shape against
 * 108 MiB/s for readline and 57 MiB/s for a per-line transform.
 */
/** `whole` is false for a piece of a line longer than MAX_LINE_BYTES. */
export type LineListener = (line: Buffer, whole: boolean) => void;

export interface LineSplitter {
  push(chunk: Buffer): void;
  /** Delivers what is left of an unterminated last line. */
  end(): void;
}

export function createLineSplitter(onLine: LineListener): LineSplitter {
  let partial: Buffer | undefined;
  // Set once a piece of the current line has been delivered without its end.
  let cut = false;
  return {
    push(chunk) {
      let start = 0;
      for (let newline = chunk.indexOf(NEWLINE); newline !== -1; newline = chunk.indexOf(NEWLINE, start)) {
        const piece = chunk.subarray(start, newline);
        onLine(partial === undefined ? piece : Buffer.concat([partial, piece]), !cut);
        partial = undefined;
        cut = false;
        start = newline + 1;
      }
      if (start === chunk.length) return;
      const rest = chunk.subarray(start);
      partial = partial === undefined ? Buffer.from(rest) : Buffer.concat([partial, rest]);
      if (partial.length >= MAX_LINE_BYTES) {
        onLine(partial, false);
        partial = undefined;
        cut = true;
      }
    },
    end() {
      // The stream ended: an unterminated last line is whole unless it was cut.
      if (partial !== undefined && partial.length > 0) onLine(partial, !cut);
      partial = undefined;
      cut = false;
    },
  };
}
