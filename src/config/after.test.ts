import { describe, expect, it } from 'vitest';
import { problemsOf } from '../../test/support/config.ts';
import { UNDER_MUTATION } from '../../test/support/mutation.ts';

describe('after', () => {
  it('reports unknown names (with a suggestion), the process itself, the app and repeats, at the item', () => {
    const yaml = `
      processes:
        - name: setup
          role: init
          command: setup
        - name: proxy
          role: sidecar
          command: envoy
          after: [setpu, proxy, job, setup, setup]
        - name: job
          role: app
          command: job
    `;
    expect(problemsOf({ yaml })).toEqual([
      'demo.yaml:8:13 processes[1].after[0]: no process is named "setpu" (did you mean setup?); it can wait for setup',
      'demo.yaml:8:20 processes[1].after[1]: "proxy" is this process; a process cannot wait for itself',
      'demo.yaml:8:27 processes[1].after[2]: "job" is the app, which starts after everything else; nothing can wait for it',
      'demo.yaml:8:39 processes[1].after[4]: "setup" is already listed',
    ]);
  });

  it('resolves names across the file and the flags, and the app after -- is still the app', () => {
    const yaml = `
      processes:
        - { name: proxy, role: sidecar, command: envoy, after: [migrate, app, nowhere] }
    `;
    const cli = { processes: [{ flag: '--init', value: 'migrate=./migrate' }] as const, app: ['job'] };
    expect(problemsOf({ yaml, cli })).toEqual([
      'demo.yaml:2:68 processes[0].after[1]: "app" is the app, which starts after everything else; nothing can wait for it',
      'demo.yaml:2:73 processes[0].after[2]: no process is named "nowhere"; it can wait for migrate',
    ]);
  });

  it('names each cycle once, from its first process in list order, at the item that closes it', () => {
    const yaml = `
      processes:
        - { name: a, role: init, command: a, after: [c] }
        - { name: b, role: sidecar, command: b, after: [a] }
        - { name: c, role: sidecar, command: c, after: [b] }
        - { name: d, role: sidecar, command: d, after: [e] }
        - { name: e, role: sidecar, command: e, after: [d] }
        - { name: f, role: sidecar, command: f, after: [a, e] }
        - { name: job, role: app, command: job, after: [f] }
    `;
    expect(problemsOf({ yaml })).toEqual([
      'demo.yaml:2:48 processes[0].after[0]: these processes wait for each other in a cycle, so none would start: a -> c -> b -> a',
      'demo.yaml:5:51 processes[3].after[0]: these processes wait for each other in a cycle, so none would start: d -> e -> d',
    ]);
  });

  it('says when there is nothing to wait for', () => {
    const yaml = `
      processes:
        - { name: proxy, role: sidecar, command: envoy, after: [db] }
        - { name: job, role: app, command: job }
    `;
    expect(problemsOf({ yaml })).toEqual([
      'demo.yaml:2:59 processes[0].after[0]: no process is named "db"; there is no other init step or sidecar to wait for',
    ]);
  });

  it('must be a list of names', () => {
    const yaml = `
      processes:
        - { name: proxy, role: sidecar, command: envoy, after: db }
        - { name: job, role: app, command: job, after: [1] }
    `;
    expect(problemsOf({ yaml })).toEqual([
      'demo.yaml:2:51 processes[0].after: expected a list, got "db"',
      'demo.yaml:3:51 processes[1].after[0]: expected a string, got 1',
    ]);
  });

  it('names at most ten candidates, and how many more there are', () => {
    const lines = ['processes:'];
    for (let index = 0; index < 12; index += 1) lines.push(`  - { name: s${index}, role: sidecar, command: x }`);
    lines.push('  - { name: job, role: app, command: job, after: [x0] }');
    expect(problemsOf({ yaml: `\n${lines.join('\n')}` })).toEqual([
      'demo.yaml:14:51 processes[12].after[0]: no process is named "x0" (did you mean s0?); it can wait for s0, s1, s2, s3, s4, s5, s6, s7, s8, s9 and 2 more',
    ]);
  });

  it('never suggests the process itself, and counts an unnamed process among none of the candidates', () => {
    const yaml = `
      processes:
        - { name: proxy, role: sidecar, command: envoy, after: [proxi] }
        - { role: sidecar, command: db, after: [proxi] }
        - { name: job, role: app, command: job }
    `;
    expect(problemsOf({ yaml }).filter((line) => line.includes('.after'))).toEqual([
      'demo.yaml:2:59 processes[0].after[0]: no process is named "proxi"; there is no other init step or sidecar to wait for',
      'demo.yaml:3:43 processes[1].after[0]: no process is named "proxi" (did you mean proxy?); it can wait for proxy',
    ]);
  });

  it('leaves the app out of cycles: it is reported as the app, not as part of a cycle', () => {
    const yaml = `
      processes:
        - { name: proxy, role: sidecar, command: envoy, after: [job] }
        - { name: job, role: app, command: job, after: [proxy] }
    `;
    expect(problemsOf({ yaml })).toEqual([
      'demo.yaml:2:59 processes[0].after[0]: "job" is the app, which starts after everything else; nothing can wait for it',
    ]);
  });

  it('names a cycle reached from outside it by its own processes, from the first listed', () => {
    const yaml = `
      processes:
        - { name: x, role: sidecar, command: x, after: [c] }
        - { name: a, role: sidecar, command: a, after: [c] }
        - { name: c, role: sidecar, command: c, after: [a] }
        - { name: job, role: app, command: job }
    `;
    expect(problemsOf({ yaml })).toEqual([
      'demo.yaml:3:51 processes[1].after[0]: these processes wait for each other in a cycle, so none would start: a -> c -> a',
    ]);
  });

  it('names a cycle that closes through a second after item, without the process waited for before it', () => {
    // The walk from a goes to x first and leaves it (x waits for nothing) before it goes to b: x is not in the cycle.
    const yaml = `
      processes:
        - { name: a, role: sidecar, command: a, after: [x, b] }
        - { name: b, role: sidecar, command: b, after: [a] }
        - { name: x, role: sidecar, command: x }
        - { name: job, role: app, command: job }
    `;
    expect(problemsOf({ yaml })).toEqual([
      'demo.yaml:2:54 processes[0].after[1]: these processes wait for each other in a cycle, so none would start: a -> b -> a',
    ]);
  });

  it('names a cycle once, even when a name closing it is listed twice', () => {
    const yaml = `
      processes:
        - { name: a, role: sidecar, command: a, after: [b] }
        - { name: b, role: sidecar, command: b, after: [a, a] }
        - { name: job, role: app, command: job }
    `;
    expect(problemsOf({ yaml })).toEqual([
      'demo.yaml:2:51 processes[0].after[0]: these processes wait for each other in a cycle, so none would start: a -> b -> a',
      'demo.yaml:3:54 processes[1].after[1]: "a" is already listed',
    ]);
  });

  it('names each wait that closes a cycle once, not every way round to it', () => {
    // y -> x -> y is found first; y -> z -> x -> y closes with the same wait (x's on y), and x is not walked again.
    const yaml = `
      processes:
        - { name: y, role: sidecar, command: y, after: [x, z] }
        - { name: z, role: sidecar, command: z, after: [x] }
        - { name: x, role: sidecar, command: x, after: [y] }
        - { name: job, role: app, command: job }
    `;
    expect(problemsOf({ yaml })).toEqual([
      'demo.yaml:2:51 processes[0].after[0]: these processes wait for each other in a cycle, so none would start: y -> x -> y',
    ]);
  });

  it('suggests a name for the first 50 unknown names in the order checked: the file, then the app that -- replaced', () => {
    const sidecars = Array.from({ length: 50 }, (_, index) => `  - { name: s${index}, role: sidecar, command: x, after: [s${index}x] }`);
    const app = '  - { name: job, role: app, command: job, after: [s0x] }';
    const cli = { app: ['job'] };
    const appLast = problemsOf({ yaml: `\n${['processes:', ...sidecars, app].join('\n')}`, cli });
    expect(appLast).toHaveLength(50);
    expect(appLast.filter((line) => line.includes('(did you mean'))).toHaveLength(50);
    // Written first, the replaced app's name is listed first, but it was checked 51st.
    const appFirst = problemsOf({ yaml: `\n${['processes:', app, ...sidecars].join('\n')}`, cli });
    expect(appFirst[0]).toBe(
      'demo.yaml:2:51 processes[0].after[0]: no process is named "s0x"; it can wait for s0, s1, s2, s3, s4, s5, s6, s7, s8, s9 and 40 more',
    );
    expect(appFirst.slice(1).filter((line) => line.includes('(did you mean'))).toHaveLength(49);
  });

  it.skipIf(UNDER_MUTATION)('names at most ten candidates and stays linear with thousands of unknown names', () => {
    // A did-you-mean and the whole candidate list per unknown name took 16 s and 500 MB for 5,000 typos.
    const lines = ['processes:'];
    for (let index = 0; index < 5_000; index += 1) lines.push(`  - { name: s${index}, role: sidecar, command: x, after: [x${index}] }`);
    lines.push('  - { name: job, role: app, command: job }');
    const started = performance.now();
    const problems = problemsOf({ yaml: `\n${lines.join('\n')}` });
    expect(performance.now() - started).toBeLessThan(20_000);
    expect(problems[0]).toBe(
      'demo.yaml:2:52 processes[0].after[0]: no process is named "x0"; it can wait for s1, s2, s3, s4, s5, s6, s7, s8, s9, s10 and 4989 more',
    );
    expect(problems).toHaveLength(50);
  });
});
