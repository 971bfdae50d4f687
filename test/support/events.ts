import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const WAIT_FOR_EVENT_MS = 20_000;
const POLL_MS = 10;

export interface RecordedEvent {
  /** Wall-clock nanoseconds. */
  readonly ns: bigint;
  readonly name: string;
  readonly event: string;
  readonly pid: number;
}

export interface EventLog {
  readonly dir: string;
  readonly file: string;
  read(): RecordedEvent[];
  /** "name event" strings in file order, the form most assertions want. */
  sequence(): string[];
  /** Resolves once fixtures have recorded every entry ("name event"), in any order. */
  waitFor(...entries: string[]): Promise<void>;
  remove(): void;
}

/** A temporary file the fixtures append to (they find it in $EVENTS). */
export function createEventLog(): EventLog {
  const dir = mkdtempSync(join(tmpdir(), 'sidecar-init-test-'));
  const file = join(dir, 'events');
  const read = (): RecordedEvent[] => {
    let text = '';
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      return [];
    }
    return text
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => {
        const [ns = '0', name = '', event = '', pid = '0'] = line.split(' ');
        return { ns: BigInt(ns), name, event, pid: Number(pid) };
      });
  };
  const sequence = () => read().map((entry) => `${entry.name} ${entry.event}`);
  return {
    dir,
    file,
    read,
    sequence,
    async waitFor(...entries) {
      // Fixtures write from other processes; there is no event to await, so poll, bounded.
      const deadline = Date.now() + WAIT_FOR_EVENT_MS;
      const missing = () => {
        const seen = new Set(read().map((recorded) => `${recorded.name} ${recorded.event}`));
        return entries.filter((entry) => !seen.has(entry));
      };
      while (missing().length > 0) {
        if (Date.now() > deadline) throw new Error(`events ${JSON.stringify(missing())} never came; saw ${JSON.stringify(sequence())}`);
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      }
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
