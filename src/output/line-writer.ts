import { Transform } from 'node:stream';
import type { LineFormat } from './line-format.ts';
import { createLineSplitter } from './line-splitter.ts';

// A child's stdout or stderr on its way to the container log, line by line.
// One Transform per stream, working a whole chunk at a time (see
// line-splitter.ts for why not per line). Being a stream, it back-pressures:
// when what it wrote is not read, it stops taking input, the pipe from the
// child stays full and the child blocks in write(), so memory stays bounded by
// the streams' high-water marks whatever the child writes.

export function createLineWriter(format: LineFormat): Transform {
  let lines: Buffer[] = [];
  const splitter = createLineSplitter((line) => {
    lines.push(line);
  });
  const take = (): Buffer | undefined => {
    if (lines.length === 0) return undefined;
    const out = format(lines, new Date());
    lines = [];
    return out;
  };
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      // The splitter hands out views of `chunk`; format() copies them before the next chunk arrives.
      splitter.push(chunk);
      callback(null, take());
    },
    flush(callback) {
      // A last line without a newline is still a line: written, with one.
      splitter.end();
      callback(null, take());
    },
  });
}
