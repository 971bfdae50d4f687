// Which status-server connection answers next. Connections with a request
// ready wait in one queue and answer one request per turn in it, round-robin,
// so a client that pipelines many requests waits behind a probe's one, not
// the other way round. The whole server gives at most answersPerTurn answers
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
  /** Queues a connection that has a request ready; a queued one keeps its place. */
  enqueue(turn: AnswerTurn): void;
  /** Takes a connection out of the queue (it closed). */
  remove(turn: AnswerTurn): void;
  /** Stops answering (the server closes). */
  stop(): void;
}

/** How many answers may be given at once after a quiet spell: a tenth of a second's worth. */
const BURST_SECONDS = 0.1;

export function createAnswerScheduler(limits: SchedulerLimits): AnswerScheduler {
  // Oldest first: a Set iterates in insertion order.
  const waiting = new Set<AnswerTurn>();
  const burst = Math.max(1, limits.answersPerSecond * BURST_SECONDS);
  let tokens = burst;
  let refilledAt = performance.now();
  let immediate: NodeJS.Immediate | undefined;
  let timer: NodeJS.Timeout | undefined;

  const refill = () => {
    const now = performance.now();
    tokens = Math.min(burst, tokens + ((now - refilledAt) / 1000) * limits.answersPerSecond);
    refilledAt = now;
  };

  const run = () => {
    immediate = undefined;
    timer = undefined;
    refill();
    for (let given = 0; given < limits.answersPerTurn && tokens >= 1 && waiting.size > 0; given += 1) {
      const turn = waiting.values().next().value!;
      waiting.delete(turn);
      tokens -= 1;
      if (turn()) waiting.add(turn);
    }
    schedule();
  };

  const schedule = () => {
    if (immediate !== undefined || timer !== undefined || waiting.size === 0) return;
    if (tokens >= 1) immediate = setImmediate(run);
    else timer = setTimeout(run, Math.ceil(((1 - tokens) / limits.answersPerSecond) * 1000)).unref();
  };

  return {
    enqueue(turn) {
      if (waiting.has(turn)) return;
      waiting.add(turn);
      refill();
      schedule();
    },
    remove: (turn) => waiting.delete(turn),
    stop() {
      waiting.clear();
      clearImmediate(immediate);
      clearTimeout(timer);
      immediate = undefined;
      timer = undefined;
    },
  };
}
