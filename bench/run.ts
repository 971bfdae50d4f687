// `npm run bench`: every scenario, each against tini and dumb-init in the same run.
import { missingTools } from './measure.ts';
import * as churnMemory from './churn-memory.ts';
import * as grpcProbe from './grpc-probe.ts';
import * as execaLoad from './execa-load.ts';
import * as idleMemory from './idle-memory.ts';
import * as logProbeLatency from './log-probe-latency.ts';
import * as logReadinessLatency from './log-readiness-latency.ts';
import * as notifyLatency from './notify-latency.ts';
import * as outputPrefix from './output-prefix.ts';
import * as planScale from './plan-scale.ts';
import * as statusFlood from './status-flood.ts';
import * as probeIdleCost from './probe-idle-cost.ts';
import * as statusMemory from './status-memory.ts';
import * as readinessLatency from './readiness-latency.ts';
import * as readinessWake from './readiness-wake.ts';
import * as reapOrphans from './reap-orphans.ts';
import * as reapStorm from './reap-storm.ts';
import * as startupExit from './startup-exit.ts';
import * as startupGraph from './startup-graph.ts';
import * as webhookReviews from './webhook-reviews.ts';

const missing = missingTools();
if (missing.length > 0) {
  console.error(`bench needs ${missing.join(', ')}: apt-get install -y tini dumb-init util-linux`);
  process.exit(2);
}
console.log(`sidecar-init benchmarks on Node ${process.version}`);
startupExit.run();
reapOrphans.run();
reapStorm.run();
await idleMemory.run();
await churnMemory.run();
await readinessLatency.run();
await startupGraph.run();
await logReadinessLatency.run();
await logProbeLatency.run();
await readinessWake.run();
await notifyLatency.run();
await grpcProbe.run();
await outputPrefix.run();
await statusMemory.run();
await statusFlood.run();
await webhookReviews.run();
await probeIdleCost.run();
await execaLoad.run();
planScale.run();
