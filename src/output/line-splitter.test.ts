import { describe, expect, it } from 'vitest';
import { createLineSplitter, MAX_LINE_BYTES } from './line-splitter.ts';

function split(chunks: readonly string[]): string[] {
  const lines: string[] = [];
  const splitter = createLineSplitter((line) => lines.push(line.toString()));
  for (const chunk of chunks) splitter.push(Buffer.from(chunk));
  splitter.end();
  return lines;
}

describe('createLineSplitter', () => {
  it('splits on newlines and joins lines cut across chunks', () => {
    expect(split(['a\nb', 'c\n', '\nd'])).toEqual(['a', 'bc', '', 'd']);
  });

  it('delivers nothing for a trailing newline', () => {
    expect(split(['one\ntwo\n'])).toEqual(['one', 'two']);
  });

  it('cuts a line that never ends at the bound', () => {
    const lines = split(['x'.repeat(MAX_LINE_BYTES), 'y\n']);
    expect(lines.map((line) => line.length)).toEqual([MAX_LINE_BYTES, 1]);
  });
});
