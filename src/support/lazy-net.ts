import { createRequire } from 'node:module';

// node:net, required on first use rather than imported: with its streams it is
// about twenty-five modules compiled from source at every start under
// --jitless (the executable's flag), and a plain run needs none of them (its
// log is written through node:fs, its control socket listens through the
// addon). The control socket's first connection, the first TCP probe attempt
// and a webhook's piped log each call this once.

let loaded: typeof import('node:net') | undefined;

export function lazyNet(): typeof import('node:net') {
  loaded ??= createRequire(import.meta.url)('node:net') as typeof import('node:net');
  return loaded;
}
