// `npm run bench`: every scenario, each against tini, dumb-init and a bare
// Node in the same run, then the summary table README.md shows.
//
//   npm run bench [-- --only startup,memory,...] [--markdown] [--readme]
//
// --only runs the named scenarios; --markdown prints the summary as the
// Markdown table of README.md's "Size and speed"; --readme writes it there.
import { describeMachine, missingTools } from './measure.ts';
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
import * as signalForward from './signal-forward.ts';
import * as startupExit from './startup-exit.ts';
import * as startupGraph from './startup-graph.ts';
import * as installForms from './install-forms.ts';
import * as anyImage from './any-image.ts';
import * as webhookHostile from './webhook-hostile.ts';
import * as webhookReviews from './webhook-reviews.ts';
import { printSummary, writeSummaryIntoReadme } from './summary.ts';

const SCENARIOS: Readonly<Record<string, () => unknown>> = {
  startup: startupExit.run,
  signals: signalForward.run,
  'reap-orphans': reapOrphans.run,
  'reap-storm': reapStorm.run,
  memory: idleMemory.run,
  churn: churnMemory.run,
  readiness: readinessLatency.run,
  graph: startupGraph.run,
  'log-readiness': logReadinessLatency.run,
  'log-probe': logProbeLatency.run,
  wake: readinessWake.run,
  output: outputPrefix.run,
  status: statusMemory.run,
  'status-flood': statusFlood.run,
  notify: notifyLatency.run,
  grpc: grpcProbe.run,
  webhook: webhookReviews.run,
  'webhook-hostile': webhookHostile.run,
  'probe-idle': probeIdleCost.run,
  execa: execaLoad.run,
  'plan-scale': planScale.run,
  'install-forms': installForms.run,
  'any-image': anyImage.run,
};

const missing = missingTools();
if (missing.length > 0) {
  console.error(`bench needs ${missing.join(', ')}: apt-get install -y tini dumb-init util-linux python3`);
  process.exit(2);
}
const onlyIndex = process.argv.indexOf('--only');
// Played in real pods (root and podman), or in a chroot with musl-gcc's help: only when named.
const ON_REQUEST = ['install-forms', 'any-image'];
const only =
  onlyIndex < 0 ? Object.keys(SCENARIOS).filter((name) => !ON_REQUEST.includes(name)) : (process.argv[onlyIndex + 1] ?? '').split(',');
const unknown = only.filter((name) => !(name in SCENARIOS));
if (unknown.length > 0) {
  console.error(`bench: no scenario ${unknown.join(', ')}; choose from ${Object.keys(SCENARIOS).join(', ')}`);
  process.exit(2);
}
const machine = describeMachine();
console.log(`sidecar-init benchmarks on ${machine}`);
for (const name of only) await SCENARIOS[name]!();
printSummary(machine);
if (process.argv.includes('--readme')) writeSummaryIntoReadme(machine);
