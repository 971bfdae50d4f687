// The folder rules of sidecar-init, checked by `npm run lint:deps` (part of
// `npm test`). Each rule says why it exists; test/architecture.test.ts shows
// that each one fails on a violating import. One rule more, no-folder-cycles
// (no folder of src/ imports a folder that imports it), is about folders, which
// dependency-cruiser's rules cannot see: lint:deps reports it through
// scripts/folder-cycles-reporter.mjs, beside the errors of these.

/** Tests may reach across folders (fixtures, support code); the rules are about the product. */
const TEST_FILE = '\\.test\\.ts$';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'plan-imports-nothing',
      comment:
        'src/plan/ holds what every other folder shares: the Plan types, the start/stop graph, signal sets, exit-status ' +
        'rules, the linear-time pattern compiler, the presets. Everything may import it, so it may import nothing from ' +
        'another folder of src/: a definition that needed an effect would drag that effect into the reducer and the config. ' +
        'Helpers that touch the process or the clock (monotonicMs, errorCode, redactUrl, …) live in src/support/.',
      severity: 'error',
      from: { path: '^src/plan/', pathNot: TEST_FILE },
      to: { path: '^src/', pathNot: '^src/plan/' },
    },
    {
      name: 'support-imports-nothing',
      comment:
        'src/support/ holds small helpers every edge, the runner and the config share (the monotonic clock, errorCode, ' +
        'isRecord, formatAddress, redactUrl). It sits below all of them, so it imports nothing else of src/.',
      severity: 'error',
      from: { path: '^src/support/', pathNot: TEST_FILE },
      to: { path: '^src/', pathNot: '^src/support/' },
    },
    {
      name: 'os-sits-below-the-edges',
      comment:
        'src/os/ holds what faces the kernel: the native addon (C sources and its loader), the /proc reader, pidfds, ' +
        'Unix sockets, the memory trim. Every edge (processes, output, the log, the control socket, install) uses it, so ' +
        'it imports only src/plan/ and src/support/: an import from it back into an edge would make a folder cycle.',
      severity: 'error',
      from: { path: '^src/os/', pathNot: TEST_FILE },
      to: { path: '^src/', pathNot: '^src/(os|plan|support)/' },
    },
    {
      name: 'the-reducer-reads-no-clock',
      comment:
        'The reducer decides from the state and the event alone: the time it needs comes in the event (`at`), ' +
        'computed by the runner. So neither src/lifecycle/ nor src/plan/ (all the reducer may reach) imports ' +
        'src/support/ (where the clock is) or a clock or timer of Node.',
      severity: 'error',
      from: { path: '^src/(lifecycle|plan)/', pathNot: TEST_FILE },
      to: { path: ['^src/support/', '^(node:)?(perf_hooks|timers|timers/promises)$'] },
    },
    {
      name: 'the-reducer-imports-only-plan',
      comment:
        'src/lifecycle/ is the pure reducer: (state, event) → (state, effects), no I/O, no clock. It may import src/plan/ ' +
        'and nothing else of src/, not even types: what it decides about must be said in plan/ or in its own events.',
      severity: 'error',
      from: { path: '^src/lifecycle/', pathNot: TEST_FILE },
      to: { path: '^src/', pathNot: '^src/(lifecycle|plan)/' },
    },
    {
      name: 'config-reads-only',
      comment:
        'src/config/ turns flags, variables and YAML into a Plan; it shares definitions through src/plan/ and never ' +
        'reaches into the code that runs one (the runner, the reducer or an edge).',
      severity: 'error',
      from: { path: '^src/config/', pathNot: TEST_FILE },
      to: { path: '^src/', pathNot: '^src/(config|plan|support)/' },
    },
    {
      name: 'the-runner-uses-edges-through-ports',
      comment:
        "src/runner/ performs the reducer's effects through the ports main.ts hands it (ports.ts, every kit an interface): it may import the " +
        'reducer, src/plan/ and src/support/, and only the types of the edges, so that an edge is swapped or faked without the runner.',
      severity: 'error',
      from: { path: '^src/runner/', pathNot: TEST_FILE },
      to: { path: '^src/', pathNot: '^src/(runner|lifecycle|plan|support)/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'edges-never-import-the-core',
      comment:
        'The edges (processes, probes, hooks, externals, HTTP, output, the log, the status server, the control socket, ' +
        'announcements) are called by the runner; they may use the types of its ports and events, never the code of ' +
        'the config, the reducer or the runner, so no decision is ever taken at an edge.',
      severity: 'error',
      from: {
        path: '^src/(process|probes|hooks|externals|http|attempt|output|log|status|control|announce|install)/',
        pathNot: TEST_FILE,
      },
      to: { path: '^src/(config|lifecycle|runner)/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'edges-see-the-runner-only-through-its-ports',
      comment:
        'The runner declares what it needs of each edge, and what it offers the servers, in src/runner/ports.ts; an edge ' +
        "implements its port or reads its source from there and never names the runner's own modules (supervise.ts, the " +
        'effect handlers), not even as types: the runner changes behind its ports without touching an edge.',
      severity: 'error',
      from: {
        path: '^src/(process|probes|hooks|externals|http|attempt|output|log|status|control|announce|install)/',
        pathNot: TEST_FILE,
      },
      to: { path: '^src/runner/', pathNot: '^src/runner/ports\\.ts$' },
    },
    {
      name: 'edges-never-read-config',
      comment: 'An edge gets what it needs from the Plan (src/plan/), never from the config that built it.',
      severity: 'error',
      from: {
        path: '^src/(process|probes|hooks|externals|http|attempt|output|log|status|control|announce|install)/',
        pathNot: TEST_FILE,
      },
      to: { path: '^src/config/' },
    },
    {
      name: 'the-webhook-is-a-command',
      comment:
        'src/webhook/ is a program of its own in the same executable (sidecar-init webhook): it reads pods, splits the ' +
        "command an annotation gives with the config's splitter, and checks the flags it writes with validate's check, " +
        'which main.ts hands it; it never runs a supervision, so it never imports the reducer or the runner.',
      severity: 'error',
      from: { path: '^src/webhook/', pathNot: TEST_FILE },
      to: { path: '^src/(lifecycle|runner)/' },
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
        'No source file starts a process with node:child_process: the addon forks every long-lived child (src/process/spawn.ts), ' +
        'piped output and fd:N pipes included, and registers it in nativeChildren (child-registry.ts) before any SIGCHLD is handled, ' +
        'so one reaper owns them all; bounded commands go through execa (the rule below). Another spawn would escape both registries, ' +
        'and loading child_process brings net, dgram and the streams at start.',
      severity: 'error',
      from: { path: '^src/', pathNot: TEST_FILE },
      to: { path: '^(node:)?child_process$' },
    },
    {
      name: 'only-bounded-commands-use-execa',
      comment:
        'execa runs bounded commands (exec probes and hooks) in src/attempt/run-command.ts, which adds each PID to the ' +
        'registry of libuv’s children in the same tick execa spawned it, and loads execa on first use. Anywhere else, a child would ' +
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
      name: 'no-import-cycles',
      comment:
        'Each module builds on the ones below it (in config/: a field, then a process, then the file, then the rules ' +
        'across processes; in cli/: the words, then the commands, then the checks main.ts wires in). A cycle, even of ' +
        'types or through a lazy import(), means a rule or a wire sits in the wrong module.',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^src/', circular: true },
    },
    {
      name: 'requests-go-through-the-http-client',
      comment:
        'Probes, hooks and stop endpoints send HTTP requests through src/http/, the one client: its own socket per request, ' +
        'a timeout, a bounded body read, URLs redacted in every result, node:http loaded on first use. The admission webhook ' +
        'is a server (node:https); the status server speaks HTTP over node:net itself.',
      severity: 'error',
      from: { path: '^src/', pathNot: ['^src/http/', '^src/webhook/serve-webhook\\.ts$', TEST_FILE] },
      to: { path: '^(node:)?https?$', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'the-http-client-stays-below-its-users',
      comment:
        'src/http/ serves probes, hooks and externals alike, so it may use only what they all may: src/attempt/, src/plan/ and src/support/. ' +
        'Reaching into one of its users would tie the others to it (and hooks and probes must not import each other).',
      severity: 'error',
      from: { path: '^src/http/', pathNot: TEST_FILE },
      to: { path: '^src/', pathNot: '^src/(http|attempt|plan|support)/' },
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
