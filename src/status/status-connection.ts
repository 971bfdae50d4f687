import { monotonicMs } from '../support/monotonic-clock.ts';
import type { Socket } from 'node:net';
import type { AnswerScheduler, AnswerTurn } from './answer-scheduler.ts';
import { formatHttpResponse, rejection } from './http-response.ts';
import { readRequestHead } from './http-request-head.ts';
import type { RequestHead } from './http-request-head.ts';
import type { StatusResponse } from './status-routes.ts';
import { assertNever } from '../plan/assert-never.ts';

// One client of the status server, answered one request at a time. What a
// connection may cost PID 1 is bounded here:
// - memory: once a request is ready, nothing more is read until it is
//   answered; at most maxQueuedBytes of requests wait for their answers (a
//   client that sends more ahead is shut out: neither read nor answered any
//   more, and closed at its answer deadline); once answers back up (the client
//   does not read them) nothing more is read or answered until they drain, so
//   unread answers stay within the socket's high-water mark plus one answer;
// - time: a ready request waits for its turn in the server's answer scheduler
//   (answer-scheduler.ts), which bounds the answers of all connections per
//   turn of the event loop and per second;
// - the slot: a deadline for every wait (a first request head, the next one
//   on a kept-alive connection, an answer the client does not take), enforced
//   by the server's sweep whatever the client trickles.

export interface ConnectionLimits {
  /** Largest request head; a longer one is answered 431. */
  readonly maxHeadBytes: number;
  /** Request bytes a client may send ahead of their answers before it is closed. */
  readonly maxQueuedBytes: number;
  /** From connecting to a complete first request head. */
  readonly headTimeoutMs: number;
  /** From an answer to the next complete request head on a kept-alive connection. */
  readonly idleTimeoutMs: number;
  /** For the client to take an answer written to it. */
  readonly answerTimeoutMs: number;
}

export interface StatusConnection {
  /** Closes the connection if its current wait has outlasted its deadline. */
  expireIfDue(now: number): void;
  /**
   * Makes room (the server is full): stops answering it, and reads and drops
   * whatever it sends until it is destroyed, without telling the client, who
   * would reconnect at once. False when it was already closing: destroy it.
   */
  evict(): boolean;
  /** Closes it at once, unanswered (the server is closing, or an evicted one's time is up). */
  destroy(): void;
}

export interface ConnectionOptions {
  readonly limits: ConnectionLimits;
  readonly scheduler: AnswerScheduler;
  /** The client's address: the scheduler lets each address take its turn. */
  readonly peer: string;
  /** The answer to one request; never throws. */
  readonly answer: (method: string, target: string) => StatusResponse;
  readonly onClose: () => void;
}

const EMPTY = Buffer.alloc(0);

/** The answer to a request that could not be read; its connection closes after it. */
function rejected(status: 400 | 431, reason: string): Buffer {
  return formatHttpResponse(rejection(status, reason), { omitBody: false, keepAlive: false });
}

type ReadyRequest = Extract<RequestHead, { kind: 'request' }>;

export function openStatusConnection(socket: Socket, options: ConnectionOptions): StatusConnection {
  const { limits, answer, scheduler } = options;
  let pending: Buffer = EMPTY;
  let deadline = monotonicMs() + limits.headTimeoutMs;
  let closing = false;
  let waitingForDrain = false;
  let peerEnded = false;
  /** The request at the head of `pending`, waiting for its turn. */
  let ready: ReadyRequest | undefined;
  let answered = 0;

  // After the last answer, whatever the client still sends is read and dropped:
  // closing a socket with unread bytes resets it, and the reset can overtake
  // the answer before the client has read it.
  const finish = (bytes?: Buffer) => {
    closing = true;
    pending = EMPTY;
    ready = undefined;
    scheduler.remove(turn);
    deadline = monotonicMs() + limits.answerTimeoutMs;
    if (bytes === undefined) socket.end();
    else socket.end(bytes);
    socket.resume();
  };

  // A client that sends more than it may queue is answered no more, read no
  // more, and closed at the answer deadline. Not at once: a flood that reopens
  // what is closed would make sidecar-init read (and collect) a fresh 64 KiB
  // for every reopened connection, thousands a second.
  const shutOut = () => {
    closing = true;
    pending = EMPTY;
    ready = undefined;
    scheduler.remove(turn);
    deadline = monotonicMs() + limits.answerTimeoutMs;
    socket.pause();
    socket.end();
  };

  /** Looks at what was read: a request waits for its turn (reading stops), anything else is handled now. */
  const examine = (): boolean => {
    if (closing || waitingForDrain || socket.destroyed) return false;
    const head = readRequestHead(pending, limits.maxHeadBytes);
    switch (head.kind) {
      case 'request':
        ready = head;
        socket.pause();
        return true;
      case 'incomplete':
        if (peerEnded) finish();
        else socket.resume();
        return false;
      case 'too-large':
        finish(rejected(431, `request head larger than ${limits.maxHeadBytes} bytes`));
        return false;
      case 'bad':
        finish(rejected(400, head.reason));
        return false;
      default:
        return assertNever(head);
    }
  };

  /** Its turn in the scheduler: answers the ready request, and says whether another is ready. */
  const turn: AnswerTurn = () => {
    const head = ready;
    if (head === undefined || closing || socket.destroyed) return false;
    ready = undefined;
    answered += 1;
    // Dropping the buffer once it is all read lets its memory go.
    pending = head.length === pending.length ? EMPTY : pending.subarray(head.length);
    const keepAlive = head.keepAlive && !head.hasBody;
    const bytes = formatHttpResponse(answer(head.method, head.target), { omitBody: head.method === 'HEAD', keepAlive });
    if (!keepAlive) {
      finish(bytes);
      return false;
    }
    deadline = monotonicMs() + limits.idleTimeoutMs;
    if (!socket.write(bytes)) {
      // The client is not reading: read nothing more until it takes what it was sent.
      waitingForDrain = true;
      deadline = monotonicMs() + limits.answerTimeoutMs;
      socket.pause();
      return false;
    }
    return examine();
  };

  const examineAndQueue = () => {
    if (ready === undefined && examine()) scheduler.enqueue(turn, answered === 0, options.peer);
  };

  socket.on('data', (chunk: Buffer) => {
    if (closing) return;
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    // With a request waiting for its turn, bytes read before the pause took hold are only kept, within the bound below.
    examineAndQueue();
    if (!closing && pending.length > limits.maxQueuedBytes) shutOut();
  });
  socket.on('drain', () => {
    if (closing || !waitingForDrain) return;
    waitingForDrain = false;
    deadline = monotonicMs() + limits.idleTimeoutMs;
    examineAndQueue();
  });
  socket.on('end', () => {
    peerEnded = true;
    examineAndQueue();
  });
  socket.on('error', () => socket.destroy());
  socket.on('close', () => {
    scheduler.remove(turn);
    options.onClose();
  });

  return {
    expireIfDue(now) {
      if (now > deadline) socket.destroy();
    },
    evict() {
      if (closing) return false;
      closing = true;
      pending = EMPTY;
      ready = undefined;
      scheduler.remove(turn);
      socket.resume();
      return true;
    },
    destroy: () => socket.destroy(),
  };
}
