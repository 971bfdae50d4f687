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
        'It may use the types of other folders, never their code: what the reducer needs lives in src/lifecycle/ ' +
        '(or src/util/, or src/plan/ when `sidecar-init plan` shares it).',
      severity: 'error',
      from: { path: '^src/lifecycle/', pathNot: TEST_FILE },
      to: { pathNot: '^src/(lifecycle|util|plan)/', dependencyTypesNot: ['type-only', 'core'] },
    },
    {
      name: 'plan-is-pure',
      comment:
        'src/plan/ holds pure definitions that a run and `sidecar-init plan` share (the process graph, its waves, the ' +
        'linear-time pattern compiler and the process matcher config compiles into the plan), so the two cannot drift ' +
        'apart and config and the effects import it without climbing into each other. It uses the types of other ' +
        'folders and Node built-ins, nothing else, so anything may import it.',
      severity: 'error',
      from: { path: '^src/plan/', pathNot: TEST_FILE },
      to: { pathNot: '^src/plan/', dependencyTypesNot: ['type-only', 'core'] },
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
        'Only src/process/spawn.ts starts processes: it records each child in the owned-PID registry before any SIGCHLD ' +
        'is handled, so the reaper never reaps a child libuv owns. Another spawn would escape that registry.',
      severity: 'error',
      from: { path: '^src/', pathNot: ['^src/process/spawn\\.ts$', TEST_FILE] },
      to: { path: ['^(node:)?child_process$', 'node_modules/execa/'] },
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
      name: 'config-has-no-cycles',
      comment:
        'Each config module builds on the ones below it (a field, then a process, then the file, then the rules across ' +
        'processes); a cycle, even of types, means a rule sits in the wrong module.',
      severity: 'error',
      from: { path: '^src/config/' },
      to: { path: '^src/config/', circular: true },
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
