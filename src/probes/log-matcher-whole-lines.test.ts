import { describe, expect, it } from 'vitest';
import { MAX_LINE_BYTES } from '../output/line-splitter.ts';
import { createLogMatcher } from './log-matcher.ts';

// Lines longer than the splitter's bound are cut into pieces; a piece is not a
// line, so it must never satisfy a pattern the whole line would not.

describe('createLogMatcher on lines longer than the limit', () => {
  it('does not match the tail of an overlong line as if it were a line', () => {
    const matcher = createLogMatcher('^ready$');
    // As a pipe delivers it: the line's start in one chunk, its end in the next.
    matcher.feed(Buffer.from('x'.repeat(MAX_LINE_BYTES)), 'stdout');
    matcher.feed(Buffer.from('ready\n'), 'stdout');
    expect(matcher.matched).toBe(false);
  });

  it('does not match the first piece of an unfinished overlong line', () => {
    const matcher = createLogMatcher('^x+$');
    matcher.feed(Buffer.from('x'.repeat(MAX_LINE_BYTES + 10)), 'stdout');
    matcher.feed(Buffer.from('y\n'), 'stdout');
    expect(matcher.matched).toBe(false);
  });

  it('matches the next whole line after an overlong one', () => {
    const matcher = createLogMatcher('^ready$');
    matcher.feed(Buffer.from('x'.repeat(MAX_LINE_BYTES * 2 + 1)), 'stderr');
    matcher.feed(Buffer.from('ready\nready\n'), 'stderr');
    expect(matcher.matched).toBe(true);
  });
});
