import { describe, expect, it } from 'vitest';
import { renderTextLogLine } from './text-log-line.ts';

describe('renderTextLogLine', () => {
  it('renders time, level, the process, its message and the other fields as key=value: the process and the message read as one sentence', () => {
    const line =
      '{"level":"info","time":"2026-11-29T20:08:45.221Z","name":"sidecar-init","event":"ready","proc":"proxy","role":"sidecar","pid":17697,"msg":"ready once started (no readiness probe)"}\n';
    expect(renderTextLogLine(line)).toBe(
      '2026-11-29T20:08:45.221Z INFO  proxy        ready once started (no readiness probe) role=sidecar pid=17697\n',
    );
  });

  it('leaves the event name to JSON: the message says it in words', () => {
    const line = '{"level":"info","time":"t","name":"sidecar-init","event":"exit","exitCode":0,"msg":"exiting with code 0"}';
    expect(renderTextLogLine(line)).toBe('t INFO  sidecar-init exiting with code 0 exitCode=0\n');
  });

  it('shows the event where a line has no message', () => {
    expect(renderTextLogLine('{"level":"info","time":"t","event":"reaped","count":2}')).toBe('t INFO  sidecar-init reaped count=2\n');
  });

  it('names sidecar-init for its own lines, also one naming the process at fault, which goes among the fields', () => {
    const line =
      '{"level":"warn","time":"2026-11-29T20:08:46.000Z","name":"sidecar-init","event":"teardown","reason":"fatal-sidecar","graceMs":25000,"proc":"db","msg":"fatal sidecar db is down (exit 1)"}';
    expect(renderTextLogLine(line)).toBe(
      '2026-11-29T20:08:46.000Z WARN  sidecar-init fatal sidecar db is down (exit 1) reason=fatal-sidecar graceMs=25000 proc=db\n',
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
    expect(renderTextLogLine(line)).toBe('t FATAL sidecar-init failed err="boom here" path="/a b" killed=2\n');
  });

  it('passes a line that is not JSON through', () => {
    expect(renderTextLogLine('plain words')).toBe('plain words\n');
  });
});
