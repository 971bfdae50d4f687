// The folder rules of sidecar-init, checked by `npm run lint:deps` (part of
// `npm test`). Each rule says why it exists; test/architecture.test.ts shows
// that each one fails on a violating import.

/** Tests may reach across folders (fixtures, support code); the rules are about the product. */
const TEST_FILE = '\\.test\\.ts$';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'lifecycle-imports-only-types',
      comment:
        'The lifecycle is a pure reducer plus one runner that receives everything it touches from main.ts. ' +
        'It may use the types of other folders, never their code: what the reducer needs lives in src/lifecycle/ (or src/util/).',
      severity: 'error',
      from: { path: '^src/lifecycle/', pathNot: TEST_FILE },
      to: { pathNot: '^src/(lifecycle|util)/', dependencyTypesNot: ['type-only', 'core'] },
    },
    {
      name: 'nothing-imports-the-composition-root',
      comment: 'src/main.ts is the only composition root and the only user of src/cli/: nothing else wires modules together.',
      severity: 'error',
      from: { pathNot: ['^src/main\\.ts$', '^src/cli/'] },
      to: { path: ['^src/main\\.ts$', '^src/cli/'] },
    },
    {
      name: 'only-the-spawner-spawns',
      comment:
        'Only src/process/spawn.ts starts long-lived processes with node:child_process: it records each child in the owned-PID ' +
        'registry before any SIGCHLD is handled, so the reaper never reaps a child libuv owns. Another spawn would escape that registry.',
      severity: 'error',
      from: { path: '^src/', pathNot: ['^src/process/spawn\\.ts$', TEST_FILE] },
      to: { path: '^(node:)?child_process$' },
    },
    {
      name: 'only-bounded-commands-use-execa',
      comment:
        'execa runs bounded commands (exec probes and hooks) in src/attempt/run-command.ts, which claims each PID in the ' +
        'owned-PID registry in the same tick execa spawned it, and loads execa on first use. Anywhere else, a child would ' +
        'escape that registry, or execa would load at start.',
      severity: 'error',
      from: { path: '^src/', pathNot: ['^src/attempt/run-command\\.ts$', TEST_FILE] },
      to: { path: 'node_modules/execa/' },
    },
    {
      name: 'hooks-do-not-import-probes',
      comment: 'What hooks and probes share (a bounded attempt, a bounded command) lives in src/attempt/, which belongs to neither.',
      severity: 'error',
      from: { path: '^src/hooks/' },
      to: { path: '^src/probes/' },
    },
    {
      name: 'probes-do-not-import-hooks',
      comment: 'What hooks and probes share (a bounded attempt, a bounded command) lives in src/attempt/, which belongs to neither.',
      severity: 'error',
      from: { path: '^src/probes/' },
      to: { path: '^src/hooks/' },
    },
    {
      name: 'plan-imports-nothing',
      comment:
        'src/plan/ holds the definitions config and the effects share (the linear-time pattern compiler): ' +
        'both import it without climbing into each other, so it may import nothing from another folder of src/.',
      severity: 'error',
      from: { path: '^src/plan/', pathNot: TEST_FILE },
      to: { path: '^src/', pathNot: '^src/plan/' },
    },
    {
      name: 'requests-go-through-the-http-client',
      comment:
        'Probes, hooks and stop endpoints send HTTP requests through src/http/, the one client: its own socket per request, ' +
        'a timeout, a bounded body read, URLs redacted in every result, node:http loaded on first use. The status server and the admission webhook are servers.',
      severity: 'error',
      from: { path: '^src/', pathNot: ['^src/http/', '^src/observe/status-server\\.ts$', '^src/webhook/serve-webhook\\.ts$', TEST_FILE] },
      to: { path: '^(node:)?https?$', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'the-http-client-stays-below-its-users',
      comment:
        'src/http/ serves probes, hooks and externals alike, so it may use only what they all may: src/attempt/ and src/util/. ' +
        'Reaching into one of its users would tie the others to it (and hooks and probes must not import each other).',
      severity: 'error',
      from: { path: '^src/http/', pathNot: TEST_FILE },
      to: { path: '^src/', pathNot: '^src/(http|attempt|util)/' },
    },
    {
      name: 'src-never-imports-test',
      comment: 'The product does not depend on test code; test helpers live in test/support/ and only tests import them.',
      severity: 'error',
      from: { path: '^src/', pathNot: TEST_FILE },
      to: { path: '^test/' },
    },
    {
      name: 'no-unresolvable-imports',
      comment: 'An import that resolves to nothing would fail at run time (or hide a rule violation).',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Type-only imports must be seen (as 'type-only') so the lifecycle rule can allow them.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { conditionNames: ['import', 'require', 'node', 'default', 'types'] },
  },
};
