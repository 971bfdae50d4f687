import { CONTENDERS, compare, NODE, report, timeRun } from './measure.ts';
import type { Contender } from './measure.ts';

// The cost a Job pays per container: start the init, run a trivial app, exit.
// `node -e 0` on the same Node is the floor a Node program starts from.
const RUNS = 30;
export const NODE_FLOOR = 'node -e 0';
const FLOOR: Contender = { name: NODE_FLOOR, argv: () => [NODE, '-e', '0'] };

export function run(): void {
  report(
    `start, run \`true\`, exit (median of ${RUNS})`,
    'ms',
    compare(RUNS, (contender) => timeRun(contender.argv(['true'])), [...CONTENDERS, FLOOR]),
    NODE_FLOOR,
  );
}
