import {
  asPid1,
  CONTENDERS,
  costOfRun,
  NODE,
  NODE_EXECUTABLE_FLOOR,
  nodeFloorContender,
  reportSpread,
  SIDECAR_INIT_BINARY,
  sampleInterleaved,
  spreadOf,
} from './measure.ts';
import type { Contender, RunCost } from './measure.ts';
import { statSync } from 'node:fs';
import { plainFigure, ratioFigure, recordFigure } from './summary.ts';

// The cost a Job pays per container: start the init, run a trivial app, exit;
// as PID 1 of a new PID namespace (as in a container) and as an ordinary
// process. `node -e 0` on the same Node is the floor a Node program starts
// from; a single executable of the same Node with the executable's V8 options
// that only runs `true` and exits with its code (NODE_EXECUTABLE_FLOOR) is what
// Node itself costs for the executable's work. Wall time and CPU time (the run's rusage, which a loaded machine
// disturbs least), medians with the middle half of the samples.
const RUNS = Number(process.env.STARTUP_RUNS ?? 30);
export const NODE_FLOOR = 'node -e 0';
const FLOOR: Contender = { name: NODE_FLOOR, argv: () => [NODE, '-e', '0'] };
const VERSION = 'executable --version';
const START_GOAL = 1.5;
const MIB = 1024 * 1024;

export async function run(): Promise<void> {
  const binary = SIDECAR_INIT_BINARY;
  // What an image that COPYs it carries: the Node it is built from (stripped), the bundle, its assets, the addon, the glibc runtime.
  if (binary !== undefined) {
    const size = statSync(binary).size;
    const node = statSync(NODE).size;
    const mib = (bytes: number) => `${(bytes / MIB).toFixed(1)} MiB`;
    console.log(`\nthe executable's size: ${mib(size)} (the Node it is built from, unstripped: ${mib(node)})`);
    recordFigure(plainFigure("`dist/sidecar-init`'s size", mib(size), `the project's Node, unstripped, ${mib(node)}`, size / node));
  }
  const version: Contender[] = binary === undefined ? [] : [{ name: VERSION, argv: () => [binary, '--version'] }];
  const contenders = [...CONTENDERS, FLOOR, await nodeFloorContender(), ...version];
  for (const pid1 of [true, false]) {
    const where = pid1 ? 'as PID 1 of a new PID namespace' : 'as an ordinary process';
    const samples = sampleInterleaved(RUNS, contenders, (contender) => {
      const argv = contender.argv(['true']);
      return costOfRun(pid1 ? asPid1(argv) : argv);
    });
    const spreads = (part: keyof RunCost) =>
      new Map([...samples].map(([name, costs]) => [name, spreadOf(costs.map((cost) => cost[part]))]));
    const wall = spreads('wallMs');
    const cpu = spreads('cpuMs');
    reportSpread(`start, run \`true\`, exit, ${where}: wall time (median of ${RUNS}, middle half)`, 'ms', wall, NODE_FLOOR);
    reportSpread(`the same: CPU time of the run (user + system, with its children)`, 'ms', cpu, NODE_FLOOR);
    reportSpread('the same: page faults', '   ', spreads('faults'), NODE_FLOOR, 0);
    for (const name of ['sidecar-init executable', 'sidecar-init'] as const) {
      const ours = wall.get(name);
      const floor = wall.get(NODE_FLOOR);
      if (ours === undefined || floor === undefined) continue;
      const what = name === 'sidecar-init' ? '`bin/sidecar-init -- true` (bundle on Node)' : '`dist/sidecar-init -- true`';
      const cpuOurs = cpu.get(name)!.median;
      const cpuFloor = cpu.get(NODE_FLOOR)!.median;
      const as = `${what} ${pid1 ? 'as PID 1' : '(not PID 1)'}`;
      const reference = (ms: number) => `\`node -e 0\` ${ms.toFixed(1)} ms`;
      recordFigure(
        ratioFigure(
          `${as}, wall`,
          `${ours.median.toFixed(1)} ms`,
          reference(floor.median),
          ours.median / floor.median,
          START_GOAL,
          NODE_FLOOR,
        ),
      );
      recordFigure(ratioFigure(`${as}, CPU`, `${cpuOurs.toFixed(1)} ms`, reference(cpuFloor), cpuOurs / cpuFloor, START_GOAL, NODE_FLOOR));
      if (name !== 'sidecar-init executable') continue;
      // Node's own share: the floor executable against the same `node -e 0`.
      const nodeWall = wall.get(NODE_EXECUTABLE_FLOOR)!.median;
      const nodeCpu = cpu.get(NODE_EXECUTABLE_FLOOR)!.median;
      const where = pid1 ? 'as PID 1' : '(not PID 1)';
      recordFigure(
        plainFigure(
          `a Node single executable that only runs \`true\` ${where}, wall / CPU`,
          `${nodeWall.toFixed(1)} / ${nodeCpu.toFixed(1)} ms`,
          reference(floor.median),
          nodeWall / floor.median,
        ),
      );
    }
  }
}

if (import.meta.main) run();
