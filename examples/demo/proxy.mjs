// A stand-in for a mesh proxy: takes a moment to become ready, answers
// /healthz/ready once it is, and drains for a moment on SIGTERM.
import { createServer } from 'node:http';

const PORT = Number(process.env.PROXY_PORT ?? 15021);
const WARMUP_MS = 300;
const DRAIN_MS = 100;

const server = createServer((request, response) => {
  response.writeHead(200, { 'content-type': 'text/plain' });
  response.end(request.url === '/healthz/ready' ? 'ready\n' : `proxied ${request.url}\n`);
});
console.log(`proxy: warming up for ${WARMUP_MS}ms`);
setTimeout(() => server.listen(PORT, '127.0.0.1', () => console.log(`proxy: listening on 127.0.0.1:${PORT}`)), WARMUP_MS);

process.on('SIGTERM', () => {
  console.log('proxy: SIGTERM received, draining');
  setTimeout(() => server.close(() => process.exit(0)), DRAIN_MS);
});
