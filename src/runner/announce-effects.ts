import type { UntilSpec } from '../plan/plan.ts';
import { hasReached } from '../plan/announced-state.ts';
import type { AnnounceKit } from './ports.ts';
import type { Runner } from './runner.ts';

const UNTIL_KEY = 'until';

/**
 * `--until FILE[=STATE]`: watches another container's announce file from the
 * start; once it says STATE (or a later state) the lifecycle hears
 * 'until-reached', once. Stops watching when the run finishes.
 */
export function watchUntil(runner: Runner, kit: AnnounceKit, until: UntilSpec): void {
  const signal = runner.aborts.open(UNTIL_KEY);
  kit.watch(
    until.file,
    (announcement) => {
      if (announcement === undefined || !hasReached(announcement.state, until.state)) return;
      // Heard once: the watch ends here.
      runner.aborts.abort(UNTIL_KEY);
      runner.log.pod.info(
        { event: 'until-reached', file: until.file, state: announcement.state },
        `${until.file} announced ${announcement.state}`,
      );
      runner.dispatch({ type: 'until-reached', file: until.file, state: announcement.state });
    },
    signal,
  );
}
