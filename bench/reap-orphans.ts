import { compare, report, timeRun } from './measure.ts';

// As real PID 1: the app leaves ORPHANS orphans that exit at once; the init
// must reap them all before the namespace ends. Measures the whole run.
const ORPHANS = 1_000;
const RUNS = 5;
const MAKE_ORPHANS = `i=0; while [ $i -lt ${ORPHANS} ]; do (sh -c 'exit 0' &); i=$((i+1)); done`;

export function run(): void {
  const medians = compare(RUNS, (contender) =>
    timeRun(['unshare', '--pid', '--fork', '--mount-proc', ...contender.argv(['sh', '-c', MAKE_ORPHANS])]),
  );
  report(`as PID 1, ${ORPHANS} orphans made and reaped (median of ${RUNS})`, 'ms', medians);
}
