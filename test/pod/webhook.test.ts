import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { patched } from '../support/json-patch.ts';
import { exampleTemplate, type PodTemplate } from '../support/k8s-examples.ts';
import { validatePod } from '../support/k8s-schema.ts';
import { type Certificate, makeCertificate, podReview, post, readAnswer } from '../support/webhook.ts';
import { SIDECAR_INIT_IMAGE } from './support/images.ts';
import { jsonLines, type PodSpec, playPod, removePods, setEnv } from './support/pod.ts';
import { run } from './support/podman.ts';

// The webhook end to end: served by sidecar-init's own image (its entrypoint,
// read-only root, distroless's nonroot user, as examples/k8s/webhook/ deploys
// it), asked about the Job of examples/k8s/webhook/job-istio-before-injection.yaml as users
// write it, its patch applied and the pod checked against the API schema, and
// the patched pod played: the install init container copies sidecar-init in,
// the job runs once the proxy is ready, the pod completes with the job's code.

const work = mkdtempSync(join(tmpdir(), 'sidecar-init-pod-webhook-'));
const name = `k8s-webhook-${randomBytes(3).toString('hex')}`;
let certificate: Certificate;
let webhook: ChildProcess;
let port: number;

beforeAll(async () => {
  certificate = makeCertificate(work);
  // The webhook's user reads them, as from a mounted Secret.
  chmodSync(work, 0o755);
  chmodSync(certificate.keyFile, 0o644);
  webhook = spawn(
    'podman',
    [
      'run',
      '--rm',
      '--name',
      name,
      '--network',
      'host',
      '--read-only',
      // The user examples/k8s/webhook/webhook.yaml runs it as.
      '--user',
      '65532:65532',
      '--volume',
      `${work}:/tls:ro`,
      SIDECAR_INIT_IMAGE,
      ...['webhook', '--addr', '127.0.0.1:0', '--cert', '/tls/tls.crt', '--key', '/tls/tls.key', '--image', SIDECAR_INIT_IMAGE],
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let log = '';
  port = await new Promise<number>((resolve, reject) => {
    webhook.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      log += chunk;
      const match = /"event":"listening","host":"[^"]*","port":(\d+)/.exec(log);
      if (match !== null) resolve(Number(match[1]));
    });
    webhook.once('exit', (code) => reject(new Error(`the webhook container exited ${code}: ${log}`)));
  });
});

afterEach(removePods);

afterAll(async () => {
  await run('podman', ['rm', '--force', '--time', '0', name]);
  if (webhook !== undefined && webhook.exitCode === null && webhook.signalCode === null)
    await new Promise((resolve) => webhook.once('exit', resolve));
  rmSync(work, { recursive: true, force: true });
});

async function inject(template: PodTemplate): Promise<PodTemplate> {
  const answer = await post(port, certificate.ca, podReview(template).body);
  expect(answer.status).toBe(200);
  const { response, patch } = readAnswer(answer);
  expect(response).toMatchObject({ allowed: true, patchType: 'JSONPatch' });
  const result = patched(template, patch);
  expect(() => validatePod(result)).not.toThrow();
  return result;
}

describe('a Job injected by sidecar-init webhook, served from sidecar-init’s image', () => {
  test.each([0, 3])('completes with the job’s code (%i): sidecar-init copied in, the proxy waited for and quit', async (code) => {
    const written = exampleTemplate('webhook/job-istio-before-injection.yaml');
    const template = await inject(written);
    expect(template.spec.initContainers?.[0]).toMatchObject({ name: 'sidecar-init', image: SIDECAR_INIT_IMAGE });
    const spec = template.spec as PodSpec;
    setEnv(spec, 'report', { REPORT_JOB_EXIT: String(code) });
    const proxy = spec.containers.find((entry) => entry.name === 'istio-proxy');
    if (proxy !== undefined) proxy.args = [...(proxy.args ?? []), '--standin-ready-after=1'];
    const pod = await playPod({ kind: 'Job', name: 'report-istio', spec, labels: template.metadata?.labels ?? {}, configMaps: [] });
    const states = await pod.waitForCompletion();
    expect(states.find((state) => state.name === 'report')?.exitCode).toBe(code);
    expect(states.find((state) => state.name === 'istio-proxy')?.exitCode).toBe(0);
    const supervisor = jsonLines(await pod.logs('report')).filter((line) => line.name === 'sidecar-init');
    expect(supervisor[0]?.msg).toMatch(
      /running as a subreaper in a shared PID namespace, where \d+ process(es)? of other containers (is|are) visible/,
    );
    expect(supervisor.at(-1)).toMatchObject({ event: 'exit', exitCode: code });
    expect(jsonLines(await pod.logs('istio-proxy')).map((line) => line.event)).toContain('quit');
    expect(await pod.confinement('report')).toEqual({ readOnlyRoot: true, user: '1000:1000' });
  });
});
