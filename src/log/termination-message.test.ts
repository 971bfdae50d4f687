import { describe, expect, it } from 'vitest';
import { formatTerminationMessage, MAX_TERMINATION_MESSAGE_BYTES } from './termination-message.ts';

describe('formatTerminationMessage', () => {
  it('is the message as one line, control characters escaped', () => {
    expect(formatTerminationMessage('exit code 3: app app exited with code 3').toString()).toBe(
      'exit code 3: app app exited with code 3\n',
    );
    expect(formatTerminationMessage('a\nb\tc\r\u001b[31md\u007f\u009b\u2028e').toString()).toBe(
      'a\\nb\\tc\\r\\x1b[31md\\x7f\\x9b\\u2028e\n',
    );
  });

  it('is cut to the kubelet’s 4 KiB, never inside a character, still one line', () => {
    const long = formatTerminationMessage(`x${'é'.repeat(3_000)}`);
    expect(long.length).toBeLessThanOrEqual(MAX_TERMINATION_MESSAGE_BYTES);
    const text = long.toString();
    expect(text).toMatch(/^xé+\.\.\.\n$/);
    expect(text).not.toContain('\ufffd');
    expect(formatTerminationMessage('\u0001'.repeat(4_000)).length).toBeLessThanOrEqual(MAX_TERMINATION_MESSAGE_BYTES);
  });
});
