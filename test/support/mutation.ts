// Under mutation testing (npm run test:mutation, vitest.mutation.config.ts) every
// statement of the core also records which test reached it, so the code runs
// many times slower than it does in the product: a test that bounds the time of
// thousands of entries would fail there for no fault of the code, and would cost
// every mutant it covers seconds. Such a test is skipped there only; what it
// asserts besides the time is also asserted at a small size, which does run.

/** Whether these tests run against mutants of the core (the mutation config sets it). */
export const UNDER_MUTATION = process.env.SIDECAR_INIT_UNDER_MUTATION === '1';
