import type { Probe } from './probe.ts';
import { failure, runAttempt } from '../attempt/run-attempt.ts';
import { lazyNet } from '../support/lazy-net.ts';

// Ready when a TCP connection to host:port is accepted, as Kubernetes'
// tcpSocket probe. Nothing is sent; the socket is destroyed as soon as the
// attempt ends, whatever ended it, so a fast period never accumulates sockets.
//
// node:net is required at the first attempt, not imported: every plan loads
// this module (create-probe.ts), and node:net with its streams is about
// twenty-five modules compiled from source at every start under --jitless.

export function createTcpProbe(host: string, port: number): Probe {
  // An IPv6 literal needs brackets to read as host:port.
  const description = `tcp://${host.includes(':') ? `[${host}]` : host}:${port}`;
  return {
    description,
    check: (timeoutMs, signal) =>
      runAttempt(timeoutMs, signal, (settle) => {
        const socket = lazyNet().connect({ host, port });
        socket.once('connect', () => settle({ ok: true }));
        socket.on('error', (error: NodeJS.ErrnoException) => settle(failure(`${description}: ${error.code ?? error.message}`)));
        return () => {
          socket.destroy();
        };
      }),
  };
}
