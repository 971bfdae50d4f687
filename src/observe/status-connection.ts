import type { Socket } from 'node:net';
import { formatHttpResponse, rejection } from './http-response.ts';
import { readRequestHead } from './http-request-head.ts';
import type { StatusResponse } from './status-routes.ts';
import { assertNever } from '../util/assert-never.ts';

// One client of the status server, answered one request at a time. What a
// connection may cost PID 1 is bounded here:
// - memory: at most maxQueuedBytes of requests wait for their answers (a client
//   that sends more ahead is shut out: neither read nor answered any more, and
//   closed at its answer deadline), and once answers back up (the client does
//   not read them) nothing more is read or answered until they drain, so
//   unread answers stay within the socket's high-water mark plus one answer;
// - time: at most answersPerTurn answers per turn of the event loop, so a
//   client pipelining requests cannot hold the loop that handles signals;
// - the slot: a deadline for every wait (a first request head, the next one
//   on a kept-alive connection, an answer the client does not take), enforced
//   by the server's sweep whatever the client trickles.

export interface ConnectionLimits {
  /** Largest request head; a longer one is answered 431. */
  readonly maxHeadBytes: number;
  /** Request bytes a client may send ahead of their answers before it is closed. */
  readonly maxQueuedBytes: number;
  /** Answers per turn of the event loop, per connection. */
  readonly answersPerTurn: number;
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
  /** Closes it at once, unanswered (the server is full or closing). */
  destroy(): void;
}

export interface ConnectionOptions {
  readonly limits: ConnectionLimits;
  /** The answer to one request; never throws. */
  readonly answer: (method: string, target: string) => StatusResponse;
  readonly onClose: () => void;
}

const EMPTY = Buffer.alloc(0);

/** The answer to a request that could not be read; its connection closes after it. */
function rejected(status: 400 | 431, reason: string): Buffer {
  return formatHttpResponse(rejection(status, reason), { omitBody: false, keepAlive: false });
}

export function openStatusConnection(socket: Socket, options: ConnectionOptions): StatusConnection {
  const { limits, answer } = options;
  let pending: Buffer = EMPTY;
  let deadline = performance.now() + limits.headTimeoutMs;
  let closing = false;
  let waitingForDrain = false;
  let peerEnded = false;
  let nextTurn: NodeJS.Immediate | undefined;

  // After the last answer, whatever the client still sends is read and dropped:
  // closing a socket with unread bytes resets it, and the reset can overtake
  // the answer before the client has read it.
  const finish = (bytes?: Buffer) => {
    closing = true;
    pending = EMPTY;
    deadline = performance.now() + limits.answerTimeoutMs;
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
    deadline = performance.now() + limits.answerTimeoutMs;
    socket.pause();
    socket.end();
  };

  const pump = () => {
    nextTurn = undefined;
    for (let answered = 0; !closing && !waitingForDrain && !socket.destroyed; answered += 1) {
      if (answered === limits.answersPerTurn) {
        // The rest of this client's requests wait for the next turn, after every other callback (signals included).
        socket.pause();
        nextTurn = setImmediate(pump);
        return;
      }
      const head = readRequestHead(pending, limits.maxHeadBytes);
      switch (head.kind) {
        case 'incomplete':
          if (peerEnded) finish();
          else socket.resume();
          return;
        case 'too-large':
          finish(rejected(431, `request head larger than ${limits.maxHeadBytes} bytes`));
          return;
        case 'bad':
          finish(rejected(400, head.reason));
          return;
        case 'request': {
          // Dropping the buffer once it is all read lets its memory go.
          pending = head.length === pending.length ? EMPTY : pending.subarray(head.length);
          const keepAlive = head.keepAlive && !head.hasBody;
          const bytes = formatHttpResponse(answer(head.method, head.target), { omitBody: head.method === 'HEAD', keepAlive });
          if (!keepAlive) {
            finish(bytes);
            return;
          }
          deadline = performance.now() + limits.idleTimeoutMs;
          if (!socket.write(bytes)) {
            // The client is not reading: read nothing more until it takes what it was sent.
            waitingForDrain = true;
            deadline = performance.now() + limits.answerTimeoutMs;
            socket.pause();
          }
          break;
        }
        default:
          return assertNever(head);
      }
    }
  };

  socket.on('data', (chunk: Buffer) => {
    if (closing) return;
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    // While paused (answers wait for a turn or to drain), bytes read before the
    // pause took hold are only kept, within the bound below.
    if (nextTurn === undefined && !waitingForDrain) pump();
    if (!closing && pending.length > limits.maxQueuedBytes) shutOut();
  });
  socket.on('drain', () => {
    if (closing || !waitingForDrain) return;
    waitingForDrain = false;
    deadline = performance.now() + limits.idleTimeoutMs;
    pump();
  });
  socket.on('end', () => {
    peerEnded = true;
    if (nextTurn === undefined && !waitingForDrain && !closing) pump();
  });
  socket.on('error', () => socket.destroy());
  socket.on('close', () => {
    if (nextTurn !== undefined) clearImmediate(nextTurn);
    options.onClose();
  });

  return {
    expireIfDue(now) {
      if (now > deadline) socket.destroy();
    },
    destroy: () => socket.destroy(),
  };
}
