import { createHash } from 'node:crypto';
import type { ArgsVerdict, CheckArgs, InjectedCommand } from './plan-injection.ts';

// The checker, answering a command line it has judged before from memory:
// checking one (the CLI parser, then the plan's rules) is most of a review's
// own cost (bench/webhook-reviews.ts). The pods of one Job or ReplicaSet carry
// the same command line, so a scale-up asks the same question hundreds of
// times. A verdict depends only on the words and the variables, so it is
// reused as is; the oldest is forgotten first.
//
// Bounded in bytes, not only in entries: a pod's author chooses the size of
// its command line (up to the review's 3 MiB), and 256 command lines kept as
// keys could hold hundreds of MiB. So the key is a digest of the words, and
// what is kept of a verdict (its message) is counted.

export interface VerdictMemoryLimits {
  readonly maxEntries: number;
  /** Every entry together: keys, messages and what each costs beyond them. */
  readonly maxBytes: number;
  /** A verdict costing more (a long list of problems) is not kept; it is judged again when asked again. */
  readonly maxEntryBytes: number;
}

export const VERDICT_MEMORY_LIMITS = {
  maxEntries: 256,
  maxBytes: 1024 * 1024,
  maxEntryBytes: 16 * 1024,
} as const satisfies VerdictMemoryLimits;

/** An entry's cost beside its key and message: the verdict object and the Map's slot, generously. */
const ENTRY_OVERHEAD_BYTES = 256;

export interface VerdictMemory {
  readonly check: CheckArgs;
  /** What the entries kept cost, by the count above. */
  bytes(): number;
  /** How many verdicts are kept. */
  size(): number;
}

interface Remembered {
  readonly verdict: ArgsVerdict;
  readonly bytes: number;
}

export function rememberVerdicts(check: CheckArgs, limits: VerdictMemoryLimits = VERDICT_MEMORY_LIMITS): VerdictMemory {
  const remembered = new Map<string, Remembered>();
  let total = 0;
  const forgetOldest = () => {
    const [key, entry] = remembered.entries().next().value as [string, Remembered];
    remembered.delete(key);
    total -= entry.bytes;
  };
  return {
    check: (command, env) => {
      const key = digest(command, env);
      const known = remembered.get(key);
      if (known !== undefined) return known.verdict;
      const verdict = check(command, env);
      const kept = copied(verdict);
      const bytes =
        ENTRY_OVERHEAD_BYTES + key.length + (kept.ok ? 0 : Buffer.byteLength(kept.message) + Buffer.byteLength(kept.operand ?? ''));
      if (bytes > limits.maxEntryBytes) return verdict;
      while (remembered.size > 0 && (remembered.size >= limits.maxEntries || total + bytes > limits.maxBytes)) forgetOldest();
      remembered.set(key, { verdict: kept, bytes });
      total += bytes;
      return kept;
    },
    bytes: () => total,
    size: () => remembered.size,
  };
}

/** SHA-256 of the words and variables, each prefixed with its length so no two inputs share a digest's input. */
function digest(command: InjectedCommand, env: Readonly<Record<string, string>>): string {
  const hash = createHash('sha256');
  const add = (word: string) => hash.update(`${Buffer.byteLength(word)}:`).update(word);
  for (const words of [command.flags, command.app, Object.entries(env).flat()]) {
    hash.update(`${words.length};`);
    for (const word of words) add(word);
  }
  return hash.digest('base64url');
}

/**
 * The verdict with its strings copied: a message may be a slice of, or refer
 * to, a larger string (the formatted output it was trimmed from, a word of
 * the command line), which V8 would keep alive with it.
 */
function copied(verdict: ArgsVerdict): ArgsVerdict {
  if (verdict.ok) return verdict;
  const message = Buffer.from(verdict.message).toString();
  return verdict.operand === undefined ? { ok: false, message } : { ok: false, message, operand: Buffer.from(verdict.operand).toString() };
}
