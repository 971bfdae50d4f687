import { monotonicMs } from '../plan/monotonic-clock.ts';
// Which status-server connection answers next. Connections with a request
// ready wait in a queue and answer one request per turn in it, round-robin,
// so a client that pipelines many requests waits behind a probe's one, not
// the other way round; and a connection's first request goes ahead of every
// later one, since a kubelet probe is the first (and only) request of a fresh
// connection, and must not wait out a queue of clients that keep theirs open. The whole server gives at most answersPerTurn answers
// per turn of the event loop (signals and supervision run in between) and
// answersPerSecond overall, which bounds the CPU and the garbage a flood of
// requests can cost, whatever number of connections it uses.

export interface SchedulerLimits {
  readonly answersPerTurn: number;
  readonly answersPerSecond: number;
}

/** Answers one request; true when the connection has another one ready. */
export type AnswerTurn = () => boolean;

export interface AnswerScheduler {
  /** Queues a connection that has a request ready (`first`: its first); a queued one keeps its place. */
  enqueue(turn: AnswerTurn, first: boolean): void;
  /** Takes a connection out of the queue (it closed). */
  remove(turn: AnswerTurn): void;
  /** Stops answering (the server closes). */
  stop(): void;
}

/** How many answers may be given at once after a quiet spell: a tenth of a second's worth. */
const BURST_SECONDS = 0.1;

export function createAnswerScheduler(limits: SchedulerLimits): AnswerScheduler {
  // Oldest first: a Set iterates in insertion order.
  const firsts = new Set<AnswerTurn>();
  const waiting = new Set<AnswerTurn>();
  const queued = () => firsts.size + waiting.size;
  const burst = Math.max(1, limits.answersPerSecond * BURST_SECONDS);
  let tokens = burst;
  let refilledAt = monotonicMs();
  let immediate: NodeJS.Immediate | undefined;
  let timer: NodeJS.Timeout | undefined;

  const refill = () => {
    const now = monotonicMs();
    tokens = Math.min(burst, tokens + ((now - refilledAt) / 1000) * limits.answersPerSecond);
    refilledAt = now;
  };

  const run = () => {
    immediate = undefined;
    timer = undefined;
    refill();
    for (let given = 0; given < limits.answersPerTurn && tokens >= 1 && queued() > 0; given += 1) {
      const queue = firsts.size > 0 ? firsts : waiting;
      const turn = queue.values().next().value!;
      queue.delete(turn);
      tokens -= 1;
      if (turn()) waiting.add(turn);
    }
    schedule();
  };

  const schedule = () => {
    if (immediate !== undefined || timer !== undefined || queued() === 0) return;
    if (tokens >= 1) immediate = setImmediate(run);
    else timer = setTimeout(run, Math.ceil(((1 - tokens) / limits.answersPerSecond) * 1000)).unref();
  };

  return {
    enqueue(turn, first) {
      if (firsts.has(turn) || waiting.has(turn)) return;
      (first ? firsts : waiting).add(turn);
      refill();
      schedule();
    },
    remove(turn) {
      firsts.delete(turn);
      waiting.delete(turn);
    },
    stop() {
      firsts.clear();
      waiting.clear();
      clearImmediate(immediate);
      clearTimeout(timer);
      immediate = undefined;
      timer = undefined;
    },
  };
}
