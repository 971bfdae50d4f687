import type { OutputListener, OutputStream } from '../process/child.ts';
import { createLineSplitter } from '../output/line-splitter.ts';
import type { LineSplitter } from '../output/line-splitter.ts';
import { compileLinearPattern, LOG_PATTERN } from '../plan/linear-pattern.ts';

// Watches a process's output for the line that says it is ready ("listening on
// :8080"). Its feed is the SpawnRequest's onOutput (stdio 'tee', so the output
// still reaches the container log unchanged); its match wakes the log probe.
// Per-line work is one UTF-8 decode and one RegExp test with the RegExp
// compiled once (for V8's linear-time engine: see src/plan/linear-pattern.ts), and it stops
// at the first match: a chatty sidecar pays nothing per line once it is ready.
// Only whole lines are tested: a line longer than MAX_LINE_BYTES reaches the
// log unchanged but never matches, because a piece of it could match where the
// whole line would not.

export interface LogMatcher {
  /** The pattern as written, for descriptions and messages. */
  readonly pattern: string;
  /** Plug into SpawnRequest.onOutput. Does nothing once matched. */
  readonly feed: OutputListener;
  /** True once a complete line of stdout or stderr has matched, until reset(). */
  readonly matched: boolean;
  /** Calls listener at the moment of the match (not for one that already happened: read matched). Returns the unsubscribe. */
  onMatch(listener: () => void): () => void;
  /** Forgets the match and any partial line: the process restarted, and its new output must match anew. */
  reset(): void;
}

export function createLogMatcher(pattern: string): LogMatcher {
  const regex = compilePattern(pattern);
  const listeners = new Set<() => void>();
  let matched = false;

  const handleLine = (line: Buffer, whole: boolean): void => {
    if (matched || !whole) return; // later lines of the chunk that matched, or a piece of an overlong line
    // A CRLF line ends in \r, which would defeat a pattern anchored with `$`.
    const end = line.length > 0 && line[line.length - 1] === CARRIAGE_RETURN ? line.length - 1 : line.length;
    if (!regex.test(line.toString('utf8', 0, end))) return;
    matched = true;
    // The splitters' partial lines are of no further use.
    splitters = undefined;
    for (const listener of [...listeners]) listener();
  };
  // One splitter per stream: stdout and stderr chunks interleave, and a line
  // must not be glued to the other stream's partial line.
  const createSplitters = (): Record<OutputStream, LineSplitter> => ({
    stdout: createLineSplitter(handleLine),
    stderr: createLineSplitter(handleLine),
  });
  let splitters: Record<OutputStream, LineSplitter> | undefined = createSplitters();

  return {
    pattern,
    feed: (chunk, stream) => {
      if (matched) return;
      splitters?.[stream].push(chunk);
    },
    get matched() {
      return matched;
    },
    onMatch(listener) {
      // A wrapper, so the same function subscribed twice is two subscriptions.
      const entry = (): void => listener();
      listeners.add(entry);
      return () => {
        listeners.delete(entry);
      };
    },
    reset() {
      matched = false;
      splitters = createSplitters();
    },
  };
}

const CARRIAGE_RETURN = 0x0d;

/** Plan validation compiles the pattern the same way; a failure here is a bug upstream, but the message still names the pattern. */
function compilePattern(pattern: string): RegExp {
  const compiled = compileLinearPattern(pattern, LOG_PATTERN);
  if (!compiled.ok) throw new Error(`log probe: invalid pattern ${JSON.stringify(pattern)}: ${compiled.message}`);
  return compiled.pattern.regex;
}
