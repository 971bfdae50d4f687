// What the webhook does to a pod (src/webhook/plan-injection.ts), with the checker
// of command lines the CLI gives it: the same one `sidecar-init validate` runs.

import { Pod } from 'kubernetes-models/v1';
import { describe, expect, it } from 'vitest';
import { patched } from '../../test/support/json-patch.ts';
import { checkInjectedArgs } from './check-injected-args.ts';
import { type Injection, planInjection } from '../webhook/plan-injection.ts';

const IMAGE = 'registry.example.com/tools/sidecar-init:0.1.0';
const OPTIONS = { image: IMAGE, checkArgs: checkInjectedArgs };

interface TestPod {
  metadata: { name: string; annotations?: Record<string, string>; labels?: Record<string, string> };
  spec: Record<string, unknown> & { containers: Record<string, unknown>[] };
}

function pod(annotations: Record<string, string> | undefined, spec: Partial<TestPod['spec']> = {}): TestPod {
  return {
    metadata: { name: 'report', ...(annotations === undefined ? {} : { annotations }) },
    spec: {
      restartPolicy: 'Never',
      containers: [
        { name: 'report', image: 'registry.example.com/batch/report-job:1.0', command: ['/app/report-job'], args: ['--day', 'today'] },
      ],
      ...spec,
    },
  };
}

const ISTIO_PROXY = { name: 'istio-proxy', image: 'docker.io/istio/proxyv2:1.24.2', args: ['proxy', 'sidecar'] };

/** The pod after the injection's patch, checked against the Kubernetes API schema. */
function inject(input: TestPod): { pod: TestPod; injection: Injection & { kind: 'patch' } } {
  const injection = planInjection(structuredClone(input) as unknown as Record<string, unknown>, OPTIONS);
  if (injection.kind !== 'patch') throw new Error(`expected a patch, got ${JSON.stringify(injection)}`);
  const result = patched(input, injection.patch);
  new Pod(result as never).validate();
  return { pod: result, injection };
}

describe('planInjection', () => {
  it('leaves a pod without the annotation alone, and says what is missing when only the label is there', () => {
    expect(planInjection(pod(undefined) as never, OPTIONS)).toEqual({ kind: 'skip', warnings: [] });
    const labelled = pod(undefined);
    labelled.metadata.labels = { 'sidecar-init.io/inject': 'true' };
    const injection = planInjection(labelled as never, OPTIONS);
    expect(injection).toMatchObject({ kind: 'skip' });
    expect(injection.kind === 'skip' && injection.warnings[0]).toMatch(/label sidecar-init.io\/inject: "true" but not the annotation/);
  });

  it('adds the install init container first, the emptyDir, and wraps the first container’s command and args', () => {
    const input = pod(
      { 'sidecar-init.io/inject': 'true', 'sidecar-init.io/args': '--grace 20s' },
      { initContainers: [{ name: 'migrate', image: 'x/y:1' }] },
    );
    const { pod: result } = inject(input);
    expect(result.spec.initContainers).toMatchObject([
      {
        name: 'sidecar-init',
        image: IMAGE,
        args: ['install', '/opt/sidecar-init'],
        volumeMounts: [{ name: 'sidecar-init', mountPath: '/opt/sidecar-init' }],
      },
      { name: 'migrate' },
    ]);
    expect(result.spec.volumes).toEqual([{ name: 'sidecar-init', emptyDir: {} }]);
    expect(result.spec.containers[0]).toEqual({
      name: 'report',
      image: 'registry.example.com/batch/report-job:1.0',
      command: ['/opt/sidecar-init/sidecar-init', '--grace', '20s', '--', '/app/report-job', '--day', 'today'],
      volumeMounts: [{ name: 'sidecar-init', mountPath: '/opt/sidecar-init', readOnly: true }],
    });
    expect(result.spec.shareProcessNamespace).toBeUndefined();
    expect(result.metadata.annotations?.['sidecar-init.io/status']).toBe('injected');
  });

  it('adds an external for each proxy that is an ordinary container, and shares the process namespace', () => {
    const input = pod(
      { 'sidecar-init.io/inject': 'true' },
      {
        containers: [
          pod(undefined).spec.containers[0]!,
          ISTIO_PROXY,
          { name: 'db', image: 'gcr.io/cloud-sql-connectors/cloud-sql-proxy:2.14.1' },
        ],
      },
    );
    const { pod: result, injection } = inject(input);
    expect(injection.externals).toEqual(['istio-proxy=istio', 'db=cloud-sql-proxy']);
    expect(result.spec.containers[0]?.command).toEqual([
      '/opt/sidecar-init/sidecar-init',
      '--external',
      'istio-proxy=istio',
      '--external',
      'db=cloud-sql-proxy',
      '--',
      '/app/report-job',
      '--day',
      'today',
    ]);
    expect(result.spec.shareProcessNamespace).toBe(true);
    expect(result.metadata.annotations?.['sidecar-init.io/externals']).toBe('istio-proxy=istio,db=cloud-sql-proxy');
  });

  it('needs no external for a proxy that is a native sidecar, and says so in an annotation', () => {
    const input = pod({ 'sidecar-init.io/inject': 'true' }, { initContainers: [{ ...ISTIO_PROXY, restartPolicy: 'Always' }] });
    const { pod: result, injection } = inject(input);
    expect(injection.externals).toEqual([]);
    expect(result.spec.containers[0]?.command).toEqual(['/opt/sidecar-init/sidecar-init', '--', '/app/report-job', '--day', 'today']);
    expect(result.spec.shareProcessNamespace).toBeUndefined();
    expect(result.metadata.annotations?.['sidecar-init.io/native-sidecars']).toMatch(/^istio-proxy \(istio\): native sidecar/);
    expect((result.spec.initContainers as { name: string }[]).map((entry) => entry.name)).toEqual(['sidecar-init', 'istio-proxy']);
  });

  it('adds no second external when the flags already name the preset', () => {
    const input = pod(
      { 'sidecar-init.io/inject': 'true', 'sidecar-init.io/args': '--external mesh=istio' },
      { containers: [pod(undefined).spec.containers[0]!, ISTIO_PROXY] },
    );
    const { pod: result } = inject(input);
    expect(result.spec.containers[0]?.command).toEqual([
      '/opt/sidecar-init/sidecar-init',
      '--external',
      'mesh=istio',
      '--',
      '/app/report-job',
      '--day',
      'today',
    ]);
    expect(result.spec.shareProcessNamespace).toBe(true);
  });

  it('wraps the container the annotation names, with the command the annotation gives when it has none', () => {
    const input = pod(
      { 'sidecar-init.io/inject': 'true', 'sidecar-init.io/container': 'web', 'sidecar-init.io/command': '["/usr/bin/web", "--serve"]' },
      { containers: [ISTIO_PROXY, { name: 'web', image: 'x/web:1', args: ['--port', '80'] }] },
    );
    const { pod: result } = inject(input);
    expect(result.spec.containers[1]?.command).toEqual([
      '/opt/sidecar-init/sidecar-init',
      '--external',
      'istio-proxy=istio',
      '--',
      '/usr/bin/web',
      '--serve',
      '--port',
      '80',
    ]);
    expect(result.spec.containers[1]?.args).toBeUndefined();
  });

  it('leaves a container without a command unchanged and warns what to add', () => {
    const input = pod({ 'sidecar-init.io/inject': 'true' }, { containers: [{ name: 'report', image: 'x/y:1' }] });
    const injection = planInjection(input as never, OPTIONS);
    expect(injection.kind).toBe('skip');
    expect(injection.kind === 'skip' && injection.warnings[0]).toMatch(
      /container "report" has no command.*add command: \[\.\.\.\].*sidecar-init\.io\/command/,
    );
  });

  it('denies a pod whose flags sidecar-init validate would refuse, with its message', () => {
    const injection = planInjection(
      pod({ 'sidecar-init.io/inject': 'true', 'sidecar-init.io/args': '--grace 5x --ready nope=tcp://x:1' }) as never,
      OPTIONS,
    );
    expect(injection.kind).toBe('deny');
    const message = injection.kind === 'deny' ? injection.message : '';
    expect(message).toMatch(/^sidecar-init's command line for container "report" is not valid:/);
    expect(message).toMatch(/"5x" is not a duration/);
    expect(message).toMatch(/nope/);
  });

  it('judges the command line with the container’s SIDECAR_INIT_* variables, and leaves a -c file to the container’s start', () => {
    const withEnv = pod({ 'sidecar-init.io/inject': 'true' });
    withEnv.spec.containers[0] = { ...withEnv.spec.containers[0], env: [{ name: 'SIDECAR_INIT_GRACE', value: 'soon' }] };
    const denied = planInjection(withEnv as never, OPTIONS);
    expect(denied.kind === 'deny' && denied.message).toMatch(/SIDECAR_INIT_GRACE.*"soon" is not a duration/);
    const { pod: result } = inject(
      pod({ 'sidecar-init.io/inject': 'true', 'sidecar-init.io/args': '-c /etc/sidecar-init/sidecar-init.yaml' }),
    );
    expect(result.spec.containers[0]?.command).toEqual([
      '/opt/sidecar-init/sidecar-init',
      '-c',
      '/etc/sidecar-init/sidecar-init.yaml',
      '--',
      '/app/report-job',
      '--day',
      'today',
    ]);
  });

  it('denies flags that hold an app, a container that does not exist and an unclosed quote', () => {
    for (const annotations of <Record<string, string>[]>[
      { 'sidecar-init.io/args': '-- /bin/true' },
      { 'sidecar-init.io/container': 'nope' },
      { 'sidecar-init.io/args': "--init 'migrate=x" },
    ]) {
      expect(planInjection(pod({ 'sidecar-init.io/inject': 'true', ...annotations }) as never, OPTIONS)).toMatchObject({ kind: 'deny' });
    }
  });

  it('leaves an injected pod alone: the patched pod, sent again, is not patched twice', () => {
    const { pod: once } = inject(pod({ 'sidecar-init.io/inject': 'true' }));
    expect(planInjection(once as never, OPTIONS)).toEqual({ kind: 'skip', warnings: [] });
    const stripped = structuredClone(once);
    delete stripped.metadata.annotations?.['sidecar-init.io/status'];
    expect(planInjection(stripped as never, OPTIONS)).toMatchObject({ kind: 'skip' });
  });

  it('denies, naming the limit, a pod past one of the review limits, before its command line is checked', () => {
    const asked: string[] = [];
    const counting = {
      image: IMAGE,
      checkArgs: (...args: Parameters<typeof checkInjectedArgs>) => {
        asked.push('asked');
        return checkInjectedArgs(...args);
      },
    };
    const denial = (input: TestPod) => {
      const injection = planInjection(input as never, counting);
      return injection.kind === 'deny' ? injection.message : `not denied: ${injection.kind}`;
    };
    const proxies = (count: number) =>
      Array.from({ length: count }, (_, index) => ({ name: `envoy-${index}`, image: 'envoyproxy/envoy:v1' }));
    const inject = { 'sidecar-init.io/inject': 'true' };
    const base = pod(inject).spec.containers;
    expect(denial(pod(inject, { containers: [...base, ...proxies(64)] }))).toMatch(/65 containers; .* at most 64$/);
    expect(denial(pod(inject, { initContainers: proxies(65) }))).toMatch(/65 initContainers; .* at most 64$/);
    expect(denial(pod(inject, { containers: [...base, ...proxies(17)] }))).toMatch(/too large to review: 17 externals; at most 16/);
    expect(denial(pod({ ...inject, 'sidecar-init.io/args': '--grace 5s '.repeat(129) }))).toMatch(/258 words of flags; at most 256/);
    const long = pod(inject);
    long.spec.containers[0] = { ...long.spec.containers[0], command: ['/app/job', ...Array(4_096).fill('x')] };
    expect(denial(long)).toMatch(/a command of 4099 words; at most 4096/);
    const wide = pod(inject);
    wide.spec.containers[0] = { ...wide.spec.containers[0], command: ['/app/job', ...Array(9).fill('x'.repeat(120 * 1024))] };
    expect(denial(wide)).toMatch(/a command line of \d+ bytes; at most 1048576/);
    expect(asked).toEqual([]);
    // At the limits, the pod is injected.
    expect(planInjection(pod(inject, { containers: [...base, ...proxies(16)] }) as never, counting)).toMatchObject({ kind: 'patch' });
  });

  it('denies an operand among the flags, which sidecar-init would run as the app', () => {
    for (const args of ["/bin/sh -c 'echo pwned'", '--grace 20s /bin/true', '["/bin/sh", "-c", "id"]']) {
      const injection = planInjection(pod({ 'sidecar-init.io/inject': 'true', 'sidecar-init.io/args': args }) as never, OPTIONS);
      expect(injection.kind === 'deny' && injection.message).toMatch(
        /annotation sidecar-init\.io\/args holds "\/bin\/(sh|true)", which is not an option/,
      );
    }
  });

  it('leaves a hostPID pod whose externals need a shared process namespace unchanged, with a warning; without externals it is injected', () => {
    const withProxy = pod({ 'sidecar-init.io/inject': 'true' }, { hostPID: true });
    withProxy.spec.containers.push(ISTIO_PROXY);
    const skipped = planInjection(withProxy as never, OPTIONS);
    expect(skipped).toMatchObject({ kind: 'skip', warnings: [expect.stringMatching(/hostPID: true/)] });
    expect(planInjection(pod({ 'sidecar-init.io/inject': 'true' }, { hostPID: true }) as never, OPTIONS)).toMatchObject({ kind: 'patch' });
  });
});
