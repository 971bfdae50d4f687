import type { Readable } from 'node:stream';
import type { ReadinessChannel } from './readiness-channel.ts';

// s6's readiness notification (https://skarnet.org/software/s6/notifywhenup.html):
// the process gets the write end of a pipe at descriptor N (notification-fd)
// and is ready once it writes a newline there. What comes before the newline
// is ignored and never stored; the pipe is closed once the newline is read, as
// s6-supervise does. A pipe closed without a newline means "not ready".

export function openFdChannel(fd: number): ReadinessChannel {
  let ready = false;
  let pipe: Readable | undefined;
  const listeners = new Set<() => void>();
  const release = (): void => {
    pipe?.removeAllListeners('data');
    pipe?.destroy();
    pipe = undefined;
  };
  return {
    env: {},
    fd,
    attach(_pid, readable) {
      if (readable === undefined) return;
      pipe = readable;
      readable.on('error', () => {});
      readable.on('data', (chunk: Buffer) => {
        if (ready || !chunk.includes(0x0a)) return;
        ready = true;
        release();
        for (const listener of [...listeners]) listener();
      });
    },
    get ready() {
      return ready;
    },
    status: undefined,
    onReady(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    close() {
      listeners.clear();
      release();
    },
  };
}
