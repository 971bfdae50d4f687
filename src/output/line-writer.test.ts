import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLineFormat } from './line-format.ts';
import type { LineFormatOptions } from './line-format.ts';
import { MAX_LINE_BYTES } from './line-splitter.ts';
import { createLineWriter } from './line-writer.ts';

async function write(chunks: readonly (string | Buffer)[], options: Partial<LineFormatOptions> = {}): Promise<Buffer> {
  const format = createLineFormat({ mode: 'prefix', name: 'web', width: 5, stream: 'stdout', ...options });
  const writer = Readable.from(chunks.map((chunk) => Buffer.from(chunk))).pipe(createLineWriter(format));
  const out: Buffer[] = [];
  for await (const chunk of writer) out.push(chunk as Buffer);
  return Buffer.concat(out);
}

describe('createLineWriter with prefix', () => {
  it('prefixes every line with the name padded to the width, joining lines cut across chunks', async () => {
    expect((await write(['one\ntw', 'o\n\nthree\n'])).toString()).toBe('web   | one\nweb   | two\nweb   | \nweb   | three\n');
  });

  it('writes a last line without a newline, with one', async () => {
    expect((await write(['done\nno newline'])).toString()).toBe('web   | done\nweb   | no newline\n');
  });

  it('splits a very long line into prefixed pieces instead of dropping it', async () => {
    const long = 'x'.repeat(MAX_LINE_BYTES * 2 + 10);
    const lines = (await write([long.slice(0, 1000), long.slice(1000), '\n'])).toString().split('\n').slice(0, -1);
    expect(lines.length).toBeGreaterThan(1);
    expect(lines.every((line) => line.startsWith('web   | '))).toBe(true);
    expect(lines.map((line) => line.slice('web   | '.length)).join('')).toBe(long);
  });

  it('passes bytes that are not UTF-8 through unchanged', async () => {
    const raw = Buffer.from([0xff, 0xfe, 0x80, 0x41, 0xc3]);
    const out = await write([Buffer.concat([raw, Buffer.from('\n')])]);
    expect(out).toEqual(Buffer.concat([Buffer.from('web   | '), raw, Buffer.from('\n')]));
  });

  it('writes nothing for no output', async () => {
    expect((await write([])).length).toBe(0);
  });
});

describe('createLineWriter with json', () => {
  it('writes one JSON object per line with time, proc, stream and msg, in order', async () => {
    const before = Date.now();
    const out = await write(['{"a": 1}\nquote " and \\ back', 'slash\n'], { mode: 'json', stream: 'stderr' });
    const records = out
      .toString()
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(records.map(({ proc, stream, msg }) => ({ proc, stream, msg }))).toEqual([
      { proc: 'web', stream: 'stderr', msg: '{"a": 1}' },
      { proc: 'web', stream: 'stderr', msg: 'quote " and \\ backslash' },
    ]);
    expect(Object.keys(records[0])).toEqual(['time', 'proc', 'stream', 'msg']);
    expect(Date.parse(records[0].time)).toBeGreaterThanOrEqual(before - 1000);
  });

  it('replaces bytes that are not UTF-8 so every line stays valid JSON', async () => {
    const out = await write([Buffer.from([0x61, 0xff, 0x62, 0x0a])], { mode: 'json' });
    expect(JSON.parse(out.toString()).msg).toBe('a\ufffdb');
  });
});
