import { describe, expect, it } from 'vitest';
import { ConfigError } from './config-error.ts';
import { loadPlan } from './load-plan.ts';
import type { ProgramCheck } from './programs.ts';
import { cliInput, dedent, FILE, type LoadInput } from '../../test/support/config.ts';

// The programs of every command a run would start, checked with a fake: what
// is asked, with which env and cwd, and where a refusal is reported.

/** Each program checked, and the lines reported for those `missing` names. */
function checkWith(missing: readonly string[], input: LoadInput) {
  const asked: { program: string; env: Readonly<Record<string, string>>; cwd: string | undefined }[] = [];
  const check: ProgramCheck = ([program], where) => {
    asked.push({ program, ...where });
    return missing.includes(program) ? `${program}: not here` : undefined;
  };
  const warned: string[] = [];
  const warn = (found: ConfigError) => warned.push(...found.problems.map((problem) => problem.text));
  const load = (warnings: boolean) =>
    loadPlan({
      cli: cliInput(input.cli),
      configFile: input.yaml === undefined ? undefined : FILE,
      readFile: () => dedent(input.yaml ?? ''),
      programs: { check, warn: warnings ? warn : undefined },
    });
  load(true);
  let errors: readonly string[] = [];
  try {
    load(false);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    errors = error.problems.map((problem) => problem.text);
  }
  return { asked: asked.slice(0, asked.length / 2), warned, errors };
}

const YAML = `
  drain: { exec: drainer }
  processes:
    - name: mesh
      role: external
      preset: istio
    - name: proxy
      role: sidecar
      command: envoy -c /etc/envoy.yaml
      env: { PATH: /opt/envoy/bin }
      cwd: /srv
      readiness: { probe: "exec:ready-check" }
      postStart: { exec: [warm-up] }
      preStop: { exec: [drain-proxy] }
    - name: job
      role: app
      command: [job]
      liveness: { probe: "exec:alive-check" }
`;

describe('the programs a run would start', () => {
  it("checks each command, its probes' and hooks' with the process's env and cwd, and the drain with the app's; never an external's", () => {
    const { asked } = checkWith([], { yaml: YAML });
    const proxy = { env: { PATH: '/opt/envoy/bin' }, cwd: '/srv' };
    const job = { env: {}, cwd: undefined };
    expect(asked).toEqual([
      { program: 'envoy', ...proxy },
      { program: 'ready-check', ...proxy },
      { program: 'warm-up', ...proxy },
      { program: 'drain-proxy', ...proxy },
      { program: 'job', ...job },
      { program: 'alive-check', ...job },
      { program: 'drainer', ...job },
    ]);
  });

  it('reports each one missing at its field: as warnings, or with no warn as the problems that make the config invalid', () => {
    const missing = ['envoy', 'ready-check', 'warm-up', 'drain-proxy', 'job', 'alive-check', 'drainer'];
    const { warned, errors } = checkWith(missing, { yaml: YAML });
    const lines = [
      'demo.yaml:1:1 drain: drainer: not here',
      'demo.yaml:8:5 processes[1].command: envoy: not here',
      'demo.yaml:11:18 processes[1].readiness.probe: ready-check: not here',
      'demo.yaml:12:5 processes[1].postStart: warm-up: not here',
      'demo.yaml:13:5 processes[1].preStop: drain-proxy: not here',
      'demo.yaml:16:5 processes[2].command: job: not here',
      'demo.yaml:17:17 processes[2].liveness.probe: alive-check: not here',
    ];
    expect(warned).toEqual(lines);
    expect(errors).toEqual(lines);
  });

  it('reports a probe or a drain given by a flag at the flag, and a probe the flag only retimed at the file', () => {
    const retimed = checkWith(['ready-check'], { yaml: YAML, cli: { ready: ['proxy=deadline=2m'] } });
    expect(retimed.errors).toEqual(['demo.yaml:11:18 processes[1].readiness.probe: ready-check: not here']);
    const replaced = checkWith(['other-check', 'other-drainer'], {
      yaml: YAML,
      cli: { ready: ['proxy=exec:other-check'], drain: 'other-drainer' },
    });
    expect(replaced.errors).toEqual([
      '--ready proxy=exec:other-check: other-check: not here',
      '--drain other-drainer: other-drainer: not here',
    ]);
  });
});
