import type { ExternalMatch } from '../config/plan.ts';
import type { ProcessMatcher } from './find-processes.ts';

/** The plan's match (cmdline as written) as the finder uses it (cmdline compiled once). */
export function toProcessMatcher(match: ExternalMatch): ProcessMatcher {
  return {
    ...(match.comm === undefined ? {} : { comm: match.comm }),
    ...(match.cmdline === undefined ? {} : { cmdline: new RegExp(match.cmdline) }),
    ...(match.uid === undefined ? {} : { uid: match.uid }),
  };
}
