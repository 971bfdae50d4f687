import { describe, expect, it } from 'vitest';
import { renderTextLogLine } from './text-log-line.ts';

describe('renderTextLogLine', () => {
  it('renders time, level, process, event and the other fields as key=value', () => {
    const line =
      '{"level":"info","time":"2026-11-29T20:08:45.221Z","name":"sidecar-init","event":"ready","proc":"proxy","role":"sidecar","pid":17697,"msg":"ready"}\n';
    expect(renderTextLogLine(line)).toBe('2026-11-29T20:08:45.221Z INFO  proxy        ready role=sidecar pid=17697\n');
  });

  it('keeps a message that says more than the event, and names sidecar-init for its own events', () => {
    const line =
      '{"level":"warn","time":"2026-11-29T20:08:46.000Z","name":"sidecar-init","event":"teardown","reason":"fatal-sidecar","graceMs":25000,"msg":"fatal sidecar db is down (exit 1)"}';
    expect(renderTextLogLine(line)).toBe(
      '2026-11-29T20:08:46.000Z WARN  sidecar-init teardown fatal sidecar db is down (exit 1) reason=fatal-sidecar graceMs=25000\n',
    );
  });

  it('quotes values with spaces and shows an error by its message', () => {
    const line = JSON.stringify({
      level: 'fatal',
      time: 't',
      event: 'internal-error',
      err: { type: 'Error', message: 'boom here', stack: 'Error: boom here\n    at x' },
      path: '/a b',
      killed: 2,
      msg: 'failed',
    });
    expect(renderTextLogLine(line)).toBe('t FATAL sidecar-init internal-error failed err="boom here" path="/a b" killed=2\n');
  });

  it('passes a line that is not JSON through', () => {
    expect(renderTextLogLine('plain words')).toBe('plain words\n');
  });
});
