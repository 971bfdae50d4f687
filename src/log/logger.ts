import pino from 'pino';
import type { Logger } from 'pino';
import type { LogFormat, LogLevel } from '../plan/plan.ts';
import { escapeRawInJson } from '../output/escape-control.ts';
import { outputSink } from '../output/output-sink.ts';
import { countNoun } from '../support/count-noun.ts';
import { renderTextLogLine } from './text-log-line.ts';

const STDERR_FD = 2;
/**
 * How much of our own output may wait for a slow log reader. Beyond it lines
 * are dropped and counted, never waited for: a few hundred lines is far more
 * than a healthy reader ever lets pile up.
 */
const MAX_QUEUED_BYTES = 64 * 1024;

let pendingWrites = 0;
let flushed: (() => void) | undefined;

/**
 * The supervisor's own events: pino JSON lines on stderr. They go through the
 * same sink as the output of processes with a log probe (output-sink.ts), so a
 * stalled log reader (a full stderr pipe) never blocks the event loop: PID 1
 * keeps handling signals, exits and timers while its lines wait in a bounded
 * queue. When the queue is full a line is dropped and counted, and the count is
 * logged once the reader has caught up. flushLog() gives the last lines a
 * deadline at exit. Children's output never passes through here unless it is
 * watched; it is inherited and reaches the container log unchanged.
 */
export function createLogger(level: LogLevel, format: LogFormat = 'json'): Logger {
  const sink = outputSink(STDERR_FD);
  let dropped = 0;
  // Every line written so far has reached the pipe: the reader is back.
  const written = (): void => {
    pendingWrites -= 1;
    if (pendingWrites > 0) return;
    if (dropped > 0) {
      const count = dropped;
      dropped = 0;
      logger.warn({ event: 'log-lines-dropped', count }, `dropped ${countNoun(count, 'log line')} while the log reader was not reading`);
      return;
    }
    flushed?.();
  };
  const logger = pino(
    {
      level,
      // No pid/hostname in the base: `pid` is a child's pid in every line that has one.
      base: { name: 'sidecar-init' },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      // --log-format text: each JSON line rendered for a person just before it is written.
      hooks: format === 'text' ? { streamWrite: renderTextLogLine } : {},
    },
    {
      write: (rendered: string) => {
        // Text lines are escaped as they are rendered; JSON ones here, for what JSON.stringify leaves raw.
        const line = format === 'json' ? escapeRawInJson(rendered) : rendered;
        if (sink.writableLength + line.length > MAX_QUEUED_BYTES) {
          dropped += 1;
          return;
        }
        pendingWrites += 1;
        sink.write(line, written);
      },
    },
  );
  return logger;
}

/**
 * Resolves once every line logged so far has reached stderr, or after
 * deadlineMs, whichever comes first: called before exiting, so the last lines
 * are written when the reader reads, and a reader that never does cannot hold
 * the exit.
 */
export function flushLog(deadlineMs: number): Promise<void> {
  if (pendingWrites === 0) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(done, deadlineMs);
    function done(): void {
      clearTimeout(timer);
      flushed = undefined;
      resolve();
    }
    flushed = done;
  });
}
