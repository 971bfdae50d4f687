import { monotonicMs } from '../support/monotonic-clock.ts';
// Which status-server connection answers next. Connections with a request
// ready wait in a queue and answer one request per turn in it, round-robin.
// The queue is kept per peer (the client's address) and the peers take turns,
// so a flood from one address, however many connections and requests it
// sends, cannot hold back another address's probe: the kubelet probes from
// the node's address, never from one inside the pod. Within a peer, a
// connection that pipelines many requests waits behind a probe's one, and a
// connection's first request goes ahead of every later one, since a probe is
// the first (and only) request of a fresh connection. The whole server gives at
// most answersPerTurn answers per turn of the event loop (signals and
// supervision run in between) and answersPerSecond overall, which bounds the
// CPU and the garbage a flood of requests can cost, whatever number of
// connections and addresses it uses.

export interface SchedulerLimits {
  readonly answersPerTurn: number;
  readonly answersPerSecond: number;
}

/** Answers one request; true when the connection has another one ready. */
export type AnswerTurn = () => boolean;

export interface AnswerScheduler {
  /** Queues a connection of `peer` that has a request ready (`first`: its first); a queued one keeps its place. */
  enqueue(turn: AnswerTurn, first: boolean, peer?: string): void;
  /** Takes a connection out of the queue (it closed). */
  remove(turn: AnswerTurn): void;
  /** Stops answering (the server closes). */
  stop(): void;
}

/** How many answers may be given at once after a quiet spell: a tenth of a second's worth. */
const BURST_SECONDS = 0.1;

/** One peer's connections with a request ready, oldest first (a Set iterates in insertion order). */
interface PeerQueue {
  readonly firsts: Set<AnswerTurn>;
  readonly waiting: Set<AnswerTurn>;
}

export function createAnswerScheduler(limits: SchedulerLimits): AnswerScheduler {
  const queues = new Map<string, PeerQueue>();
  const peerOf = new Map<AnswerTurn, string>();
  // Peers with a request ready, the next to answer first; one answered goes to the end.
  const rotation = new Set<string>();
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

  const add = (turn: AnswerTurn, first: boolean, peer: string) => {
    let queue = queues.get(peer);
    if (queue === undefined) {
      queue = { firsts: new Set(), waiting: new Set() };
      queues.set(peer, queue);
    }
    (first ? queue.firsts : queue.waiting).add(turn);
    peerOf.set(turn, peer);
    if (!rotation.has(peer)) rotation.add(peer);
  };

  const take = (turn: AnswerTurn) => {
    const peer = peerOf.get(turn);
    if (peer === undefined) return;
    peerOf.delete(turn);
    const queue = queues.get(peer);
    if (queue === undefined) return;
    queue.firsts.delete(turn);
    queue.waiting.delete(turn);
    if (queue.firsts.size + queue.waiting.size === 0) {
      queues.delete(peer);
      rotation.delete(peer);
    }
  };

  const run = () => {
    immediate = undefined;
    timer = undefined;
    refill();
    for (let given = 0; given < limits.answersPerTurn && tokens >= 1 && rotation.size > 0; given += 1) {
      const peer = rotation.values().next().value!;
      const queue = queues.get(peer)!;
      const turn = (queue.firsts.size > 0 ? queue.firsts : queue.waiting).values().next().value!;
      take(turn);
      // This peer has had its answer: the others go before its next one.
      if (rotation.delete(peer)) rotation.add(peer);
      tokens -= 1;
      if (turn()) add(turn, false, peer);
    }
    schedule();
  };

  const schedule = () => {
    if (immediate !== undefined || timer !== undefined || rotation.size === 0) return;
    if (tokens >= 1) immediate = setImmediate(run);
    else timer = setTimeout(run, Math.ceil(((1 - tokens) / limits.answersPerSecond) * 1000)).unref();
  };

  return {
    enqueue(turn, first, peer = '') {
      if (peerOf.has(turn)) return;
      add(turn, first, peer);
      refill();
      schedule();
    },
    remove: take,
    stop() {
      queues.clear();
      peerOf.clear();
      rotation.clear();
      clearImmediate(immediate);
      clearTimeout(timer);
      immediate = undefined;
      timer = undefined;
    },
  };
}
