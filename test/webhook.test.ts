import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { patched } from './support/json-patch.ts';
import { exampleTemplate, INSTALL_IMAGE, isCopyIn, type PodTemplate, withoutInjection } from './support/k8s-examples.ts';
import { validatePod } from './support/k8s-schema.ts';
import { runSupervisor } from './support/supervisor.ts';
import {
  type Certificate,
  makeCertificate,
  podReview,
  post,
  postOversized,
  type RunningWebhook,
  readAnswer,
  startWebhook,
} from './support/webhook.ts';

// `sidecar-init webhook` as the API server meets it: its own process, over
// HTTPS with a certificate made here (openssl), AdmissionReviews built from
// the example pods. A patch is applied with an RFC 6902 library and the pod
// checked against the Kubernetes API schema; the container tier plays a
// patched pod (test/pod/webhook.test.ts).

const work = mkdtempSync(join(tmpdir(), 'sidecar-init-webhook-'));
let certificate: Certificate;
let webhook: RunningWebhook;

beforeAll(async () => {
  certificate = makeCertificate(work);
  webhook = await startWebhook(certificate, INSTALL_IMAGE);
});

afterAll(async () => {
  if (webhook?.supervisor.process.exitCode === null) {
    webhook.supervisor.process.kill('SIGKILL');
    await webhook.supervisor.exited;
  }
  rmSync(work, { recursive: true, force: true });
});

async function review(pod: unknown) {
  const { uid, body } = podReview(pod);
  const answer = await post(webhook.port, certificate.ca, body);
  expect(answer.status).toBe(200);
  const decoded = readAnswer(answer);
  expect(decoded.response.uid).toBe(uid);
  return decoded;
}

/** The proxy containers an example names in its --external flags: the ones the webhook finds by itself. */
function detectedProxies(template: PodTemplate): Record<string, string> {
  const command = template.spec.containers[0]?.command ?? [];
  const names = new Set([...template.spec.containers, ...(template.spec.initContainers ?? [])].map((container) => container.name));
  const proxies: Record<string, string> = {};
  command.forEach((flag, i) => {
    const [name, preset] = (command[i + 1] ?? '').split('=');
    if (flag === '--external' && name !== undefined && preset !== undefined && names.has(name)) proxies[name] = preset;
  });
  return proxies;
}

describe('sidecar-init webhook over HTTPS', () => {
  it.each(['job-istio.yaml', 'job-linkerd.yaml', 'job-cloud-sql-proxy.yaml', 'job-native-sidecars.yaml'])(
    'turns the pod of %s, as written for the webhook, into the example itself',
    async (file) => {
      const example = exampleTemplate(file);
      expect(isCopyIn(example)).toBe(true);
      const written = withoutInjection(example, detectedProxies(example));
      const { response, patch } = await review(written);
      expect(response).toMatchObject({ allowed: true, patchType: 'JSONPatch' });
      const result = patched(written, patch);
      expect(() => validatePod(result)).not.toThrow();
      expect(result.spec).toEqual(example.spec);
      expect(result.metadata?.annotations?.['sidecar-init.io/status']).toBe('injected');
      if (file === 'job-native-sidecars.yaml')
        expect(result.metadata?.annotations?.['sidecar-init.io/native-sidecars']).toMatch(/^istio-proxy \(istio\)/);
      // Sent again (the API server may reinvoke), the injected pod is left as it is.
      expect((await review(result)).patch).toEqual([]);
    },
  );

  it('turns examples/k8s/webhook/job-istio.yaml, the Job as users write it, into examples/k8s/job-istio.yaml', async () => {
    const written = exampleTemplate('webhook/job-istio.yaml');
    const { response, patch } = await review(written);
    expect(response.allowed).toBe(true);
    const result = patched(written, patch);
    expect(() => validatePod(result)).not.toThrow();
    expect(result.spec).toEqual(exampleTemplate('job-istio.yaml').spec);
    expect(result.metadata?.annotations?.['sidecar-init.io/externals']).toBe('istio-proxy=istio');
  });

  it('leaves a pod without a command unchanged and warns what to add; a pod without the annotation is not touched', async () => {
    const written = exampleTemplate('webhook/job-istio.yaml');
    delete written.spec.containers[0]?.command;
    const { response, patch } = await review(written);
    expect(response.allowed).toBe(true);
    expect(patch).toEqual([]);
    expect(response.warnings).toEqual([expect.stringMatching(/container "report" has no command.*sidecar-init\.io\/command/)]);

    const plain = exampleTemplate('webhook/job-istio.yaml');
    delete plain.metadata?.annotations?.['sidecar-init.io/inject'];
    delete plain.metadata?.labels?.['sidecar-init.io/inject'];
    const untouched = await review(plain);
    expect(untouched.response).toEqual({ uid: untouched.response.uid, allowed: true });
  });

  it('denies a pod whose sidecar-init flags are invalid, with validate’s message', async () => {
    const written = exampleTemplate('webhook/job-istio.yaml');
    if (written.metadata?.annotations !== undefined) written.metadata.annotations['sidecar-init.io/args'] = '--grace 20x';
    const { response, patch } = await review(written);
    expect(response.allowed).toBe(false);
    expect(patch).toEqual([]);
    expect(response.status?.message).toMatch(/not valid:[\s\S]*"20x" is not a duration/);
  });

  it('answers what is not an AdmissionReview with a clear 400, a wrong method 405, a wrong path 404, an oversized body 413', async () => {
    const notJson = await post(webhook.port, certificate.ca, '{"apiVersion":');
    expect(notJson).toMatchObject({ status: 400, body: expect.stringMatching(/^not an AdmissionReview: the body is not JSON/) });
    const oldVersion = await post(
      webhook.port,
      certificate.ca,
      JSON.stringify({ apiVersion: 'admission.k8s.io/v1beta1', kind: 'AdmissionReview', request: {} }),
    );
    expect(oldVersion).toMatchObject({ status: 400, body: expect.stringMatching(/only admission\.k8s\.io\/v1 is served/) });
    const noUid = await post(
      webhook.port,
      certificate.ca,
      JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: {} }),
    );
    expect(noUid).toMatchObject({ status: 400, body: expect.stringMatching(/request\.uid is missing/) });
    expect((await post(webhook.port, certificate.ca, '', '/mutate', 'GET')).status).toBe(405);
    expect((await post(webhook.port, certificate.ca, '{}', '/other')).status).toBe(404);
    expect(await postOversized(webhook.port, certificate.ca, 4 * 1024 * 1024)).toMatchObject({
      status: 413,
      body: expect.stringMatching(/at most \d+ bytes/),
    });
    expect(await post(webhook.port, certificate.ca, '', '/healthz', 'GET')).toEqual({ status: 200, body: 'ok\n' });
    // Still answering reviews.
    expect((await review(exampleTemplate('webhook/job-istio.yaml'))).response.allowed).toBe(true);
  });
});

describe('sidecar-init webhook as a process', () => {
  it('stops on SIGTERM with 0, after the reviews in flight', async () => {
    const own = await startWebhook(certificate, INSTALL_IMAGE);
    const pending = post(own.port, certificate.ca, podReview(exampleTemplate('webhook/job-istio.yaml')).body);
    own.supervisor.process.kill('SIGTERM');
    // Sent before the signal, so answered or refused whole; never left hanging.
    await pending.catch(() => undefined);
    expect(await own.supervisor.exited).toEqual({ code: 0, signal: null });
    expect(own.supervisor.logs.map((line) => line.event)).toContain('stopping');
  });

  it('refuses to start without a readable certificate, naming the file (exit 2)', async () => {
    const run = await runSupervisor([
      'webhook',
      '--cert',
      join(work, 'missing.crt'),
      '--key',
      certificate.keyFile,
      '--image',
      INSTALL_IMAGE,
    ]);
    expect(run.code).toBe(2);
    expect(run.stderr()).toContain('missing.crt');
  });
});
