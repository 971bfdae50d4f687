import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { createGrpcProbe } from '../src/probes/grpc-probe.ts';
import { createHttpProbe } from '../src/probes/http-probe.ts';
import type { Probe } from '../src/probes/probe.ts';
import { median } from './measure.ts';

// One probe attempt, in process: the grpc probe (a fresh HTTP/2 connection, one
// Health/Check call, hand-encoded messages) against the real grpc-js health
// server of the tests, beside the http probe against a local HTTP server, so
// the cost of a grpc probe is read against a known one.
const RUNS = 200;
const TIMEOUT_MS = 5_000;

async function timeAttempts(probe: Probe): Promise<number> {
  const durations: number[] = [];
  for (let index = 0; index < RUNS; index += 1) {
    const started = performance.now();
    const outcome = await probe.check(TIMEOUT_MS, new AbortController().signal);
    durations.push(performance.now() - started);
    if (!outcome.ok) throw new Error(`bench probe failed: ${outcome.reason}`);
  }
  return median(durations);
}

export async function run(): Promise<void> {
  const fixture = fileURLToPath(new URL('../test/fixtures/grpc-health-server.mjs', import.meta.url));
  const grpcServer = spawn(process.execPath, [fixture, 'bench', '0', 'SERVING'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const grpcPort = await new Promise<number>((resolve) =>
    createInterface({ input: grpcServer.stdout }).on('line', (line) => {
      if (line.startsWith('listening ')) resolve(Number(line.slice('listening '.length)));
    }),
  );
  const httpServer = createServer((_request, response) => response.end('ok'));
  await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
  const { port: httpPort } = httpServer.address() as { port: number };
  try {
    const loadStarted = performance.now();
    const grpc = createGrpcProbe('127.0.0.1', grpcPort, '');
    await grpc.check(TIMEOUT_MS, new AbortController().signal);
    const firstMs = performance.now() - loadStarted;
    const grpcMs = await timeAttempts(grpc);
    const httpMs = await timeAttempts(createHttpProbe(`http://127.0.0.1:${httpPort}/`));
    console.log(`\none probe attempt, in process (median of ${RUNS})`);
    console.log(`  grpc probe     ${grpcMs.toFixed(3).padStart(10)} ms   (first attempt, loading node:http2: ${firstMs.toFixed(1)} ms)`);
    console.log(`  http probe     ${httpMs.toFixed(3).padStart(10)} ms`);
  } finally {
    grpcServer.kill('SIGKILL');
    httpServer.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
