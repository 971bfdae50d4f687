import { compare, report, timeRun } from './measure.ts';

// The cost a Job pays per container: start the init, run a trivial app, exit.
const RUNS = 30;

export function run(): void {
  report(
    `start, run \`true\`, exit (median of ${RUNS})`,
    'ms',
    compare(RUNS, (contender) => timeRun(contender.argv(['true']))),
  );
}
