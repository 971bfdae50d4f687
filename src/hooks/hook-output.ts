import type { OutputStream } from '../process/child.ts';
import { createLineSplitter } from '../output/line-splitter.ts';
import type { LineSplitter } from '../output/line-splitter.ts';

// One splitter per stream: stdout and stderr are separate pipes, so a partial
// line on one must never be joined with the next chunk of the other.

export interface HookOutput {
  push(chunk: Buffer, stream: OutputStream): void;
  /** Delivers the unterminated last line of each stream; call once the process has exited. */
  end(): void;
}

export function createHookOutput(onLine: (line: string, stream: OutputStream) => void): HookOutput {
  const splitterFor = (stream: OutputStream): LineSplitter => createLineSplitter((line) => onLine(line.toString('utf8'), stream));
  const splitters: Record<OutputStream, LineSplitter> = { stdout: splitterFor('stdout'), stderr: splitterFor('stderr') };
  return {
    push: (chunk, stream) => splitters[stream].push(chunk),
    end() {
      splitters.stdout.end();
      splitters.stderr.end();
    },
  };
}
