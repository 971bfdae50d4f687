import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CONTROL_CHARACTERS, escapeControl, escapeControlBytes } from './escape-control.ts';
import { renderTextLogLine } from '../log/text-log-line.ts';

/** C0, DEL and C1: what may never reach a terminal raw. */
const CONTROL = new RegExp(`[${CONTROL_CHARACTERS}]`);

/** The same in UTF-8 bytes (C1 is 0xC2 followed by 0x80–0x9F). */
function hasControlByte(line: Buffer): boolean {
  return line.some((byte, index) => {
    const next = line[index + 1] ?? 0;
    return byte < 0x20 || byte === 0x7f || (byte === 0xc2 && next >= 0x80 && next <= 0x9f);
  });
}

/** Reads escapeControl's output back: \\, \t, \n, \r and \xHH, nothing else. */
function unescapeControl(text: string): string {
  return text.replace(/\\(\\|t|n|r|x[0-9a-f]{2})/g, (_, sequence: string) => {
    switch (sequence[0]) {
      case '\\':
        return '\\';
      case 't':
        return '\t';
      case 'n':
        return '\n';
      case 'r':
        return '\r';
      default:
        return String.fromCharCode(Number.parseInt(sequence.slice(1), 16));
    }
  });
}

/** Strings rich in what matters here: every control character, backslashes, escape-like text, and any code point. */
const text = fc.string({
  unit: fc.oneof(
    fc.integer({ min: 0, max: 0xa0 }).map((code) => String.fromCharCode(code)),
    fc.constantFrom('\\', '\\x1b', '\\n', 'x', '1b', '\u001b[2J', '\r\n'),
    fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
  ),
});

describe('escapeControl', () => {
  it('escapes ESC, BEL, CR, tab and newline visibly, and doubles a backslash', () => {
    expect(escapeControl('a\u001b[2J\u0007\r\tb\nFATAL forged\\x1b\u009b\u007f')).toBe(
      'a\\x1b[2J\\x07\\r\\tb\\nFATAL forged\\\\x1b\\x9b\\x7f',
    );
    expect(escapeControl('plain text, ünïcödé €')).toBe('plain text, ünïcödé €');
  });

  it('leaves no control character in any string', () => {
    fc.assert(
      fc.property(text, (input) => {
        expect(escapeControl(input)).not.toMatch(CONTROL);
      }),
    );
  });

  it('reads back to exactly the original, so no two strings escape alike', () => {
    fc.assert(
      fc.property(text, (input) => {
        expect(unescapeControl(escapeControl(input))).toBe(input);
      }),
    );
    fc.assert(
      fc.property(text, text, (a, b) => {
        fc.pre(a !== b);
        expect(escapeControl(a)).not.toBe(escapeControl(b));
      }),
    );
  });
});

describe('escapeControlBytes', () => {
  it('escapes control characters, keeps backslashes and bytes that are not UTF-8', () => {
    const line = Buffer.concat([Buffer.from('a\u001b[2J\u0007\r\t\\x \u009b é'), Buffer.from([0xff, 0x9b])]);
    expect(escapeControlBytes(line)).toEqual(Buffer.concat([Buffer.from('a\\x1b[2J\\x07\\r\\t\\x \\x9b é'), Buffer.from([0xff, 0x9b])]));
  });

  it('leaves no control character in any line, and changes a line without one not at all', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), text, (bytes, input) => {
        for (const line of [Buffer.from(bytes), Buffer.from(input)]) {
          const escaped = escapeControlBytes(line);
          expect(hasControlByte(escaped)).toBe(false);
          if (!hasControlByte(line)) expect(escaped).toBe(line);
        }
      }),
    );
  });
});

describe('renderTextLogLine', () => {
  it('writes one line without a control character, whatever the fields hold', () => {
    const value = fc.oneof(text, fc.integer(), fc.array(fc.record({ comm: text, pid: fc.nat() }), { maxLength: 2 }));
    fc.assert(
      fc.property(text, text, fc.dictionary(text, value, { maxKeys: 3 }), (proc, msg, fields) => {
        const line = renderTextLogLine(JSON.stringify({ ...fields, level: 'info', time: 't', proc, event: 'e', msg }));
        expect(line.endsWith('\n')).toBe(true);
        expect(line.slice(0, -1)).not.toMatch(CONTROL);
      }),
    );
  });

  it('shows a forged line and a terminal escape in a comm as text, on the one line', () => {
    const record = {
      level: 'info',
      time: 't',
      proc: 'mesh',
      event: 'external-found',
      processes: [{ pid: 7, comm: '\u001b[2J\u0007\r\nFATAL forged\u009b' }],
      msg: 'found \u001b[2J\u0007\r\nFATAL forged (PID 7)',
      note: 'bare\u001bvalue',
    };
    expect(renderTextLogLine(JSON.stringify(record))).toBe(
      // sidecar-init's own line about an external: sidecar-init is its subject, the process a field.
      't INFO  sidecar-init found \\x1b[2J\\x07\\r\\nFATAL forged (PID 7) proc=mesh processes=[{"pid":7,"comm":"\\u001b[2J\\u0007\\r\\nFATAL forged\\u009b"}] note="bare\\u001bvalue"\n',
    );
  });
});
