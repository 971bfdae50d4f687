import { describe, expect, it } from 'vitest';
import { createProbe } from './create-probe.ts';
import { createLogMatcher } from './log-matcher.ts';
import { createLogProbe } from './latched-probe.ts';

const out = (text: string) => Buffer.from(text);

describe('createLogMatcher', () => {
  it('matches a complete line, not before its newline', () => {
    const matcher = createLogMatcher('^listening on :\\d+$');
    matcher.feed(out('starting\nlistening on :8080'), 'stdout');
    expect(matcher.matched).toBe(false);
    matcher.feed(out('\n'), 'stdout');
    expect(matcher.matched).toBe(true);
  });

  it('matches a line split across chunks', () => {
    const matcher = createLogMatcher('^listening on :8080$');
    for (const piece of ['lis', 'tening o', 'n :80', '80\nmore\n']) matcher.feed(out(piece), 'stdout');
    expect(matcher.matched).toBe(true);
  });

  it('matches a line on stderr', () => {
    const matcher = createLogMatcher('ready');
    matcher.feed(out('INFO ready to serve\n'), 'stderr');
    expect(matcher.matched).toBe(true);
  });

  it('keeps one partial line per stream, so interleaved streams are never glued together', () => {
    const matcher = createLogMatcher('^ready$');
    matcher.feed(out('rea'), 'stdout');
    matcher.feed(out('dy\n'), 'stderr');
    expect(matcher.matched).toBe(false);
    matcher.feed(out('dy\n'), 'stdout');
    expect(matcher.matched).toBe(true);
  });

  it('decodes UTF-8, even a character split across chunks', () => {
    const matcher = createLogMatcher('^prêt$');
    const bytes = out('prêt\n');
    const splitInsideE = bytes.indexOf(0xc3) + 1;
    matcher.feed(bytes.subarray(0, splitInsideE), 'stdout');
    matcher.feed(bytes.subarray(splitInsideE), 'stdout');
    expect(matcher.matched).toBe(true);
  });

  it('ignores the \\r of a CRLF line, so `$` still anchors', () => {
    const matcher = createLogMatcher('^ready$');
    matcher.feed(out('ready\r\n'), 'stdout');
    expect(matcher.matched).toBe(true);
  });

  it('tells each listener once, at the match, and stops reading after it', () => {
    const matcher = createLogMatcher('ready');
    let calls = 0;
    matcher.onMatch(() => (calls += 1));
    matcher.feed(out('ready\nready again\n'), 'stdout');
    matcher.feed(out('ready once more\n'), 'stderr');
    expect(calls).toBe(1);
    // Not even split: a chunk that would throw if anything looked at it.
    const untouchable = new Proxy(Buffer.alloc(0), {
      get: () => {
        throw new Error('read after the match');
      },
    });
    expect(() => matcher.feed(untouchable, 'stdout')).not.toThrow();
  });

  it('stops telling a listener that unsubscribed', () => {
    const matcher = createLogMatcher('ready');
    let calls = 0;
    const unsubscribe = matcher.onMatch(() => (calls += 1));
    unsubscribe();
    matcher.feed(out('ready\n'), 'stdout');
    expect(calls).toBe(0);
    expect(matcher.matched).toBe(true);
  });

  it('after reset, needs a new match and forgets the old partial line', () => {
    const matcher = createLogMatcher('^ready$');
    let calls = 0;
    matcher.onMatch(() => (calls += 1));
    matcher.feed(out('ready\n'), 'stdout');
    matcher.reset();
    expect(matcher.matched).toBe(false);
    matcher.feed(out('rea'), 'stdout');
    matcher.reset();
    matcher.feed(out('dy\n'), 'stdout');
    expect(matcher.matched).toBe(false);
    matcher.feed(out('ready\n'), 'stdout');
    expect(matcher.matched).toBe(true);
    expect(calls).toBe(2);
  });

  it('rejects an invalid pattern, naming it', () => {
    expect(() => createLogMatcher('ready(')).toThrow(/log probe: invalid pattern "ready\("/);
  });
});

describe('createLogProbe', () => {
  it('passes iff the matcher has matched, and wakes at the match', async () => {
    const matcher = createLogMatcher('ready');
    const probe = createLogProbe(matcher);
    expect(probe.description).toBe('log:ready');
    await expect(probe.check(1_000, new AbortController().signal)).resolves.toEqual({
      ok: false,
      reason: 'log:ready: no line matched yet',
    });

    const controller = new AbortController();
    let wakes = 0;
    probe.subscribe!(() => (wakes += 1), controller.signal);
    matcher.feed(out('ready\n'), 'stdout');
    expect(wakes).toBe(1);
    await expect(probe.check(1_000, new AbortController().signal)).resolves.toEqual({ ok: true });

    controller.abort();
    matcher.reset();
    matcher.feed(out('ready\n'), 'stdout');
    expect(wakes).toBe(1);
  });
});

describe('createProbe for log', () => {
  const base = { env: {}, cwd: undefined };

  it('builds on the matcher it is given', () => {
    const logMatcher = createLogMatcher('ready');
    expect(createProbe({ kind: 'log', pattern: 'ready' }, { ...base, logMatcher }).description).toBe('log:ready');
  });

  it('throws a wiring error without a matcher, or with one for another pattern', () => {
    expect(() => createProbe({ kind: 'log', pattern: 'ready' }, base)).toThrow(/no log matcher was given/);
    expect(() => createProbe({ kind: 'log', pattern: 'ready' }, { ...base, logMatcher: createLogMatcher('up') })).toThrow(
      /watches for "up"/,
    );
  });
});
