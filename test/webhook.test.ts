import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent } from 'node:https';
import { connect as connectTls } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { patched } from './support/json-patch.ts';
import {
  exampleTemplate,
  IMAGE_VOLUME_EXAMPLE,
  INSTALL_IMAGE,
  isCopyIn,
  type PodTemplate,
  VOLUME_IMAGE,
  withoutInjection,
} from './support/k8s-examples.ts';
import { validatePod } from './support/k8s-schema.ts';
import { runSupervisor } from './support/supervisor.ts';
import {
  type Certificate,
  makeCertificate,
  openSilentSocket,
  type PostOptions,
  podReview,
  post,
  postOversized,
  type RunningWebhook,
  readAnswer,
  residentMiB,
  type SilentSocket,
  startWebhook,
  webhookArgs,
} from './support/webhook.ts';
import { cpuMs } from './support/proc-state.ts';

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

async function review(pod: unknown, to: RunningWebhook = webhook, options: PostOptions = {}) {
  const { uid, body } = podReview(pod);
  const answer = await post(to.port, certificate.ca, body, '/mutate', 'POST', options);
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
  it.each(['job-istio-regular-sidecar.yaml', 'job-linkerd.yaml', 'job-cloud-sql-proxy.yaml', 'job-native-sidecars.yaml'])(
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

  it('turns a pod annotated sidecar-init.io/install: image-volume into examples/k8s/job-image-volume.yaml: an image volume, no init container, no emptyDir', async () => {
    const example = exampleTemplate(IMAGE_VOLUME_EXAMPLE);
    const written = withoutInjection(example, detectedProxies(example));
    expect(written.spec.volumes).toBeUndefined();
    const annotations = written.metadata?.annotations ?? {};
    annotations['sidecar-init.io/install'] = 'image-volume';
    const volumeWebhook = await startWebhook(certificate, INSTALL_IMAGE, undefined, ['--volume-image', VOLUME_IMAGE]);
    try {
      const { response, patch } = await review(written, volumeWebhook);
      expect(response).toMatchObject({ allowed: true, patchType: 'JSONPatch' });
      const result = patched(written, patch);
      expect(() => validatePod(result)).not.toThrow();
      expect(result.spec).toEqual(example.spec);
      expect(JSON.stringify(result.spec)).not.toMatch(/emptyDir|initContainers/);
      expect((await review(result, volumeWebhook)).patch).toEqual([]);
      // The same pod asking for copy gets the copy-in form from the same webhook.
      annotations['sidecar-init.io/install'] = 'copy';
      const copied = patched(written, (await review(written, volumeWebhook)).patch);
      expect(copied.spec.initContainers?.[0]).toMatchObject({ name: 'sidecar-init', image: INSTALL_IMAGE });
      expect(copied.spec.volumes).toEqual([{ name: 'sidecar-init', emptyDir: {} }]);
    } finally {
      volumeWebhook.supervisor.process.kill('SIGTERM');
      expect((await volumeWebhook.supervisor.exited).code).toBe(0);
    }
  });

  it('with --install-mode image-volume mounts the volume image into every pod that does not ask for copy', async () => {
    const volumeWebhook = await startWebhook(certificate, INSTALL_IMAGE, undefined, [
      '--install-mode',
      'image-volume',
      '--volume-image',
      VOLUME_IMAGE,
    ]);
    try {
      for (const file of ['job-istio-regular-sidecar.yaml', 'job-native-sidecars.yaml']) {
        const example = exampleTemplate(file);
        const written = withoutInjection(example, detectedProxies(example));
        const { response, patch } = await review(written, volumeWebhook);
        expect(response.allowed).toBe(true);
        const result = patched(written, patch);
        expect(() => validatePod(result)).not.toThrow();
        // The copy-in example with the emptyDir swapped for the image volume and its init container gone.
        const expected = structuredClone(example.spec);
        expected.initContainers = expected.initContainers?.filter((container) => container.name !== 'sidecar-init');
        if (expected.initContainers?.length === 0) delete expected.initContainers;
        expected.volumes = expected.volumes?.map((volume) =>
          volume.name === 'sidecar-init'
            ? { name: 'sidecar-init', image: { reference: VOLUME_IMAGE, pullPolicy: 'IfNotPresent' } }
            : volume,
        );
        expect(result.spec).toEqual(expected);
      }
    } finally {
      volumeWebhook.supervisor.process.kill('SIGTERM');
      expect((await volumeWebhook.supervisor.exited).code).toBe(0);
    }
  });

  it('denies a pod whose install annotation is unknown, or asks for image-volume of a webhook without a volume image, saying why', async () => {
    const written = exampleTemplate('webhook/job-istio-before-injection.yaml');
    const annotations = written.metadata?.annotations ?? {};
    annotations['sidecar-init.io/install'] = 'imagevolume';
    const unknown = await review(written);
    expect(unknown.response.allowed).toBe(false);
    expect(unknown.patch).toEqual([]);
    expect(unknown.response.status?.message).toBe('annotation sidecar-init.io/install is "imagevolume"; it is one of copy, image-volume');
    annotations['sidecar-init.io/install'] = 'image-volume';
    const unserved = await review(written);
    expect(unserved.response.allowed).toBe(false);
    expect(unserved.response.status?.message).toMatch(/started without --volume-image; use sidecar-init\.io\/install: copy/);
  });

  it('refuses --install-mode image-volume without --volume-image, and an unknown mode, with exit 2', async () => {
    const missing = await runSupervisor(webhookArgs(certificate, INSTALL_IMAGE, '--install-mode', 'image-volume'));
    expect(missing.code).toBe(2);
    expect(missing.stderr()).toMatch(/--install-mode image-volume needs --volume-image REF/);
    const unknown = await runSupervisor(webhookArgs(certificate, INSTALL_IMAGE, '--install-mode', 'volume'));
    expect(unknown.code).toBe(2);
    expect(unknown.stderr()).toMatch(/--install-mode "volume" is not one of/);
  });

  it('turns examples/k8s/webhook/job-istio-before-injection.yaml, the Job as users write it, into examples/k8s/job-istio-regular-sidecar.yaml', async () => {
    const written = exampleTemplate('webhook/job-istio-before-injection.yaml');
    const { response, patch } = await review(written);
    expect(response.allowed).toBe(true);
    const result = patched(written, patch);
    expect(() => validatePod(result)).not.toThrow();
    expect(result.spec).toEqual(exampleTemplate('job-istio-regular-sidecar.yaml').spec);
    expect(result.metadata?.annotations?.['sidecar-init.io/externals']).toBe('istio-proxy=istio');
  });

  it('leaves a pod without a command unchanged and warns what to add; a pod without the annotation is not touched', async () => {
    const written = exampleTemplate('webhook/job-istio-before-injection.yaml');
    delete written.spec.containers[0]?.command;
    const { response, patch } = await review(written);
    expect(response.allowed).toBe(true);
    expect(patch).toEqual([]);
    expect(response.warnings).toEqual([expect.stringMatching(/container "report" has no command.*sidecar-init\.io\/command/)]);

    const plain = exampleTemplate('webhook/job-istio-before-injection.yaml');
    delete plain.metadata?.annotations?.['sidecar-init.io/inject'];
    delete plain.metadata?.labels?.['sidecar-init.io/inject'];
    const untouched = await review(plain);
    expect(untouched.response).toEqual({ uid: untouched.response.uid, allowed: true });
  });

  it('denies a pod whose sidecar-init flags are invalid, with validate’s message', async () => {
    const written = exampleTemplate('webhook/job-istio-before-injection.yaml');
    if (written.metadata?.annotations !== undefined) written.metadata.annotations['sidecar-init.io/args'] = '--grace 20x';
    const { response, patch } = await review(written);
    expect(response.allowed).toBe(false);
    expect(patch).toEqual([]);
    expect(response.status?.message).toMatch(/not valid:[\s\S]*"20x" is not a duration/);
  });

  it("takes a proxy's readiness deadline and period in the args annotation, through to the plan; a typo is denied", async () => {
    const written = istioJob((pod) => {
      if (pod.metadata?.annotations !== undefined)
        pod.metadata.annotations['sidecar-init.io/args'] = '--grace 20s --ready istio-proxy=deadline=2m,period=500ms';
    });
    const { response, patch } = await review(written);
    expect(response.allowed).toBe(true);
    const [binary, ...wrapped] = patched(written, patch).spec.containers[0]?.command ?? [];
    expect(binary).toBe('/opt/sidecar-init/sidecar-init');
    // The injected command line, planned by this build: the flags as the container will run them.
    const planned = await runSupervisor(['plan', '--json', ...wrapped]);
    expect(planned.code).toBe(0);
    const plan = JSON.parse(planned.stdout()) as { processes: { name: string; readiness?: Record<string, unknown> }[] };
    expect(plan.processes.find((process) => process.name === 'istio-proxy')?.readiness).toMatchObject({
      probe: 'http://127.0.0.1:15021/healthz/ready',
      periodMs: 500,
      deadlineMs: 120_000,
    });

    const typo = istioJob((pod) => {
      if (pod.metadata?.annotations !== undefined) pod.metadata.annotations['sidecar-init.io/args'] = '--ready istio-proxy=dedline=2m';
    });
    const denied = await review(typo);
    expect(denied.response.allowed).toBe(false);
    expect(denied.response.status?.message).toMatch(/"dedline" is not an option of --ready; did you mean deadline\?/);
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
    expect((await review(exampleTemplate('webhook/job-istio-before-injection.yaml'))).response.allowed).toBe(true);
  });
});

describe('sidecar-init webhook as a process', () => {
  it('stops on SIGTERM with 0, after the reviews in flight', async () => {
    const own = await startWebhook(certificate, INSTALL_IMAGE);
    const pending = post(own.port, certificate.ca, podReview(exampleTemplate('webhook/job-istio-before-injection.yaml')).body);
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

/** The pod of examples/k8s/webhook/job-istio-before-injection.yaml with `change` applied to its annotations and spec. */
function istioJob(change: (pod: PodTemplate) => void): PodTemplate {
  const pod = exampleTemplate('webhook/job-istio-before-injection.yaml');
  change(pod);
  return pod;
}

/** `event`, or a failure saying `what` once `ms` have passed: a liveness bound, not a measurement. */
async function withinMs<T>(ms: number, event: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} after ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([event, late]);
  } finally {
    clearTimeout(timer);
  }
}

async function stopped(own: RunningWebhook): Promise<void> {
  own.supervisor.process.kill('SIGTERM');
  expect(await own.supervisor.exited).toEqual({ code: 0, signal: null });
}

describe('sidecar-init webhook and hostile pods', () => {
  it('denies an operand in the args annotation, which would have run it with the container’s command as its arguments', async () => {
    const written = istioJob((pod) => {
      if (pod.metadata?.annotations !== undefined) pod.metadata.annotations['sidecar-init.io/args'] = "/bin/sh -c 'echo pwned'";
    });
    const { response, patch } = await review(written);
    expect(response.allowed).toBe(false);
    expect(patch).toEqual([]);
    expect(response.status?.message).toMatch(/annotation sidecar-init\.io\/args holds "\/bin\/sh", which is not an option/);
    // An operand after options is one too; options alone are fine.
    const after = istioJob((pod) => {
      if (pod.metadata?.annotations !== undefined) pod.metadata.annotations['sidecar-init.io/args'] = '--grace 20s /bin/true';
    });
    expect((await review(after)).response.status?.message).toMatch(/holds "\/bin\/true", which is not an option/);
  });

  it('warns at admission of a cloud-sql-proxy container whose args would make it exit 143 when stopped, and of none that avoid it', async () => {
    const withSqlProxy = (args: string[]) =>
      istioJob((pod) => {
        pod.spec.containers.push({
          name: 'db-proxy',
          image: 'gcr.io/cloud-sql-connectors/cloud-sql-proxy:2.14.1',
          args: ['--health-check', '--port=5432', ...args, 'my-project:europe-west1:reports'],
        } as (typeof pod.spec.containers)[number]);
      });
    const { response, patch } = await review(withSqlProxy([]));
    expect(response.allowed).toBe(true);
    expect(patch.length).toBeGreaterThan(0);
    expect(response.warnings).toEqual([
      'container "db-proxy": cloud-sql-proxy exits 143 on SIGTERM, which fails this pod: run it with --quitquitquit or --exit-zero-on-sigterm',
    ]);
    for (const flag of ['--quitquitquit', '--exit-zero-on-sigterm', '--exit-zero-on-sigterm=true']) {
      const fixed = await review(withSqlProxy([flag]));
      expect(fixed.response.warnings).toBeUndefined();
    }
  });

  it('leaves a hostPID pod with a proxy unchanged, with a warning, instead of adding shareProcessNamespace', async () => {
    const written = istioJob((pod) => {
      (pod.spec as Record<string, unknown>).hostPID = true;
    });
    const { response, patch } = await review(written);
    expect(response.allowed).toBe(true);
    expect(patch).toEqual([]);
    expect(response.warnings).toEqual([expect.stringMatching(/hostPID: true.*shareProcessNamespace/)]);
  });

  it('leaves a container that already mounts something at /opt/sidecar-init unchanged, with a warning', async () => {
    const written = istioJob((pod) => {
      const app = pod.spec.containers[0] as Record<string, unknown>;
      app.volumeMounts = [{ name: 'tools', mountPath: '/opt/sidecar-init/' }];
      (pod.spec as Record<string, unknown>).volumes = [{ name: 'tools', emptyDir: {} }];
    });
    const { response, patch } = await review(written);
    expect(response.allowed).toBe(true);
    expect(patch).toEqual([]);
    expect(response.warnings).toEqual([expect.stringMatching(/container "report" already mounts something at \/opt\/sidecar-init/)]);
  });

  it('keeps its memory bounded after 80 reviews with distinct megabyte command lines', async () => {
    const own = await startWebhook(certificate, INSTALL_IMAGE);
    const pid = own.supervisor.process.pid ?? 0;
    const agent = new Agent({ keepAlive: true, maxSockets: 4, ca: certificate.ca });
    try {
      const word = 'x'.repeat(120 * 1024);
      const before = residentMiB(pid);
      for (let round = 0; round < 20; round += 1) {
        await Promise.all(
          Array.from({ length: 4 }, async (_, index) => {
            // Denied (the flags are wrong), so the answer is small: what is kept is the verdict of the command line.
            const pod = istioJob((template) => {
              const app = template.spec.containers[0];
              if (app !== undefined) app.command = ['/app/report-job', ...Array(8).fill(word), `${round}-${index}`];
              if (template.metadata?.annotations !== undefined) template.metadata.annotations['sidecar-init.io/args'] = '--grace 20x';
            });
            expect((await review(pod, own, { agent })).response.status?.message).toMatch(/"20x" is not a duration/);
          }),
        );
      }
      const after = residentMiB(pid);
      // Kept as keys, the command lines took it past 240 MiB; four reviews of a megabyte at a time need some 50 MiB
      // above the idle webhook's 65 (whatever the number of reviews), so the bound is generous.
      expect(after, `RSS ${before.toFixed(0)} → ${after.toFixed(0)} MiB`).toBeLessThan(180);
    } finally {
      agent.destroy();
      await stopped(own);
    }
  }, 90_000);

  it('denies a pod of 100,000 proxy containers, naming the cap, for little more CPU time than parsing it, while concurrent reviews are answered', async () => {
    const own = await startWebhook(certificate, INSTALL_IMAGE);
    const pid = own.supervisor.process.pid ?? 0;
    const agent = new Agent({ keepAlive: true, maxSockets: 2, ca: certificate.ca });
    const legitimate = exampleTemplate('webhook/job-istio-before-injection.yaml');
    /** The answer to `huge`, with reviews sent one after another beside it, each answered and allowed. */
    const besides = async (huge: PodTemplate) => {
      const pending = review(huge, own, { agent });
      let answered = false;
      void pending.finally(() => {
        answered = true;
      });
      while (!answered) expect((await review(legitimate, own, { agent })).response.allowed).toBe(true);
      return await pending;
    };
    try {
      // Connections opened and code loaded, as for the API server's connections.
      await review(legitimate, own, { agent });
      const huge = istioJob((pod) => {
        pod.spec.containers.push(...Array.from({ length: 100_000 }, () => ({ name: 'envoy' })));
      });
      // The work a review costs, as CPU time of the webhook alone: a loaded machine stretches the wall time of a
      // review (and of every review sent meanwhile), never its CPU time.
      const cpuOf = async (pod: PodTemplate) => {
        const before = cpuMs(pid);
        const answer = await review(pod, own, { agent });
        return { spentMs: cpuMs(pid) - before, ...answer };
      };
      // The same pod without the annotation is skipped once parsed: what receiving and parsing 1.7 MB of JSON costs (some 100 ms).
      const unasked = structuredClone(huge);
      delete unasked.metadata?.annotations?.['sidecar-init.io/inject'];
      const parsing = await cpuOf(unasked);
      expect(parsing.response.allowed).toBe(true);
      expect(parsing.patch).toEqual([]);
      // Checking the command line of 100,000 externals cost 2.3 s more than that (the caps lifted).
      const denied = await cpuOf(huge);
      expect(denied.spentMs, `parsing alone took ${parsing.spentMs.toFixed(0)} ms of CPU time`).toBeLessThan(parsing.spentMs + 400);
      expect(denied.response.allowed).toBe(false);
      expect(denied.response.status?.message).toMatch(/100002 containers; the sidecar-init webhook reviews pods of at most 64/);
      // And sent again, the reviews sent meanwhile are answered, and allowed.
      expect((await besides(huge)).response.allowed).toBe(false);
    } finally {
      agent.destroy();
      await stopped(own);
    }
  });

  it('closes a connection that never starts TLS, and one that never sends a request, within seconds', async () => {
    const own = await startWebhook(certificate, INSTALL_IMAGE);
    try {
      const silent = await openSilentSocket(own.port);
      const handshaken = connectTls({ host: '127.0.0.1', port: own.port, ca: certificate.ca });
      handshaken.on('error', () => {});
      // Read (and drop) what comes: when Node's own head deadline beats the sweep, the webhook ends the
      // connection with a 408 answer, and a socket whose data is never read never sees the end (1 run in 3 under load).
      handshaken.resume();
      const handshakenClosed = new Promise<void>((resolve) => handshaken.once('close', () => resolve()));
      await new Promise<void>((resolve) => handshaken.once('secureConnect', () => resolve()));
      // Node's defaults held the first 120 s and the second up to 40 s; the deadlines are 5 s each (and a check every second).
      await withinMs(15_000, silent.closed, 'the connection without TLS was still open');
      await withinMs(15_000, handshakenClosed, 'the connection without a request was still open');
      expect((await review(exampleTemplate('webhook/job-istio-before-injection.yaml'), own)).response.allowed).toBe(true);
    } finally {
      await stopped(own);
    }
  });

  it('closes connections past 256 from one address at once, and past 512 in all makes room, while reviews are answered', async () => {
    const own = await startWebhook(certificate, INSTALL_IMAGE);
    const flood: SilentSocket[] = [];
    try {
      for (let index = 0; index < 256; index += 1) flood.push(await openSilentSocket(own.port, '127.0.0.2'));
      const extra = await Promise.all(Array.from({ length: 8 }, () => openSilentSocket(own.port, '127.0.0.2')));
      await withinMs(15_000, Promise.all(extra.map((socket) => socket.closed)), 'connections past the cap were still open');
      // Closed by the cap, not by a deadline: the 256 before them, older, are all still open.
      expect(flood.filter((socket) => socket.isClosed())).toHaveLength(0);
      expect((await review(exampleTemplate('webhook/job-istio-before-injection.yaml'), own)).response.allowed).toBe(true);

      // 256 more from another address: 512 open, the total cap. A review from a third still gets in, in place of a flood connection.
      for (let index = 0; index < 256; index += 1) flood.push(await openSilentSocket(own.port, '127.0.0.3'));
      expect((await review(exampleTemplate('webhook/job-istio-before-injection.yaml'), own)).response.allowed).toBe(true);
      await expect.poll(() => flood.filter((socket) => socket.isClosed()).length).toBeGreaterThan(0);
    } finally {
      for (const socket of flood) socket.socket.destroy();
      await stopped(own);
    }
  });
});
