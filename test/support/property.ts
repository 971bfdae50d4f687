import type { Parameters } from 'fast-check';

// Property tests run a fixed number of generated cases from a fresh seed each
// run. When one fails, fast-check's message carries the seed and the path to
// the smallest failing case ("Property failed after N tests { seed: S, path:
// "P", endOnFailure: true }"), and vitest prints it. To replay exactly that
// case:
//
//   FC_SEED=S FC_PATH=P npx vitest run src/lifecycle/decide.property.test.ts
//
// FC_RUNS overrides the number of cases (more for a long hunt, fewer to debug).

/** fast-check parameters for `runs` cases, or the replay FC_SEED and FC_PATH ask for. */
export function propertyParameters<T>(runs: number): Parameters<T> {
  const seed = process.env.FC_SEED;
  const path = process.env.FC_PATH;
  const override = process.env.FC_RUNS;
  return {
    numRuns: override === undefined ? runs : Number(override),
    ...(seed === undefined ? {} : { seed: Number(seed) }),
    ...(path === undefined ? {} : { path }),
    endOnFailure: path !== undefined,
  };
}
