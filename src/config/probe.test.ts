import { describe, expect, it } from 'vitest';
import { DEFAULTS } from '../plan/plan.ts';
import { isStartedOnlyProbeAsWritten, parseProbe } from './probe.ts';
import { load, problemsOf } from '../../test/support/config.ts';

describe('parseProbe', () => {
  it('reads tcp://HOST:PORT, IPv6 in brackets too', () => {
    expect(parseProbe('tcp://127.0.0.1:15000')).toEqual({ ok: true, value: { kind: 'tcp', host: '127.0.0.1', port: 15000 } });
    expect(parseProbe('tcp://[::1]:8080')).toEqual({ ok: true, value: { kind: 'tcp', host: '::1', port: 8080 } });
  });

  it('reads http URLs, with or without a port and a path', () => {
    expect(parseProbe('http://127.0.0.1:15021/healthz/ready')).toEqual({
      ok: true,
      value: { kind: 'http', url: 'http://127.0.0.1:15021/healthz/ready', headers: {}, expectStatus: undefined },
    });
    expect(parseProbe('http://localhost')).toEqual({
      ok: true,
      value: { kind: 'http', url: 'http://localhost/', headers: {}, expectStatus: undefined },
    });
  });

  it('reads a scheme in any case, and notify in any case but not with anything around it', () => {
    expect(parseProbe('TCP://h:1')).toEqual({ ok: true, value: { kind: 'tcp', host: 'h', port: 1 } });
    expect(parseProbe('Exec:true')).toEqual({ ok: true, value: { kind: 'exec', command: ['true'] } });
    expect(parseProbe('NOTIFY')).toEqual({ ok: true, value: { kind: 'notify', watchdogMs: undefined } });
    expect(parseProbe('notify ').ok).toBe(false);
  });

  it('reads fd:N for N from 3 to 255, written with at most three digits', () => {
    expect(parseProbe('fd:3')).toEqual({ ok: true, value: { kind: 'fd', fd: 3 } });
    expect(parseProbe('fd:255')).toEqual({ ok: true, value: { kind: 'fd', fd: 255 } });
    for (const text of ['fd:2', 'fd:256', 'fd: 3', 'fd:3 ', 'fd:0003', 'fd:0x10', 'fd:']) {
      expect(parseProbe(text)).toEqual({
        ok: false,
        message: `${text}: the descriptor must be a number from 3 to 255 (0, 1 and 2 are stdin, stdout and stderr), e.g. fd:3`,
      });
    }
  });

  it('splits exec:CMD like a shell', () => {
    expect(parseProbe(`exec:pg_isready -h '127.0.0.1'`)).toEqual({
      ok: true,
      value: { kind: 'exec', command: ['pg_isready', '-h', '127.0.0.1'] },
    });
  });

  it('takes log:REGEX verbatim, spaces and colons included, and checks that it compiles', () => {
    expect(parseProbe('log:listening on :\\d+ ')).toEqual({ ok: true, value: { kind: 'log', pattern: 'listening on :\\d+ ' } });
    expect(parseProbe('LOG:^ready$')).toEqual({ ok: true, value: { kind: 'log', pattern: '^ready$' } });
  });

  it('takes file:PATH as written', () => {
    expect(parseProbe('file:/tmp/ready')).toEqual({ ok: true, value: { kind: 'file', path: '/tmp/ready' } });
    expect(parseProbe('file:run/ready')).toEqual({ ok: true, value: { kind: 'file', path: 'run/ready' } });
  });

  it('reads grpc://HOST:PORT with an optional /SERVICE', () => {
    expect(parseProbe('grpc://127.0.0.1:9090')).toEqual({ ok: true, value: { kind: 'grpc', host: '127.0.0.1', port: 9090, service: '' } });
    expect(parseProbe('grpc://[::1]:9090/my.pkg.Svc')).toEqual({
      ok: true,
      value: { kind: 'grpc', host: '::1', port: 9090, service: 'my.pkg.Svc' },
    });
    expect(parseProbe('grpc://h:1/')).toEqual({ ok: true, value: { kind: 'grpc', host: 'h', port: 1, service: '' } });
  });

  it.each([
    [
      'grpc://x',
      '"grpc://x" has no port; use grpc://HOST:PORT[/SERVICE], e.g. grpc://127.0.0.1:9090 or grpc://127.0.0.1:9090/my.package.Service',
    ],
    [
      'grpc://:1',
      '"grpc://:1" has no host; use grpc://HOST:PORT[/SERVICE], e.g. grpc://127.0.0.1:9090 or grpc://127.0.0.1:9090/my.package.Service',
    ],
    [
      'grpc://x:',
      '"grpc://x:" has no port; use grpc://HOST:PORT[/SERVICE], e.g. grpc://127.0.0.1:9090 or grpc://127.0.0.1:9090/my.package.Service',
    ],
    [
      'grpc:grpc://h:1',
      '"grpc:grpc://h:1" has no host; use grpc://HOST:PORT[/SERVICE], e.g. grpc://127.0.0.1:9090 or grpc://127.0.0.1:9090/my.package.Service',
    ],
    [
      'grpc:x',
      '"grpc:x" has no host; use grpc://HOST:PORT[/SERVICE], e.g. grpc://127.0.0.1:9090 or grpc://127.0.0.1:9090/my.package.Service',
    ],
    [
      'grpc://[]:1',
      '"grpc://[]:1" has no host; use grpc://HOST:PORT[/SERVICE], e.g. grpc://127.0.0.1:9090 or grpc://127.0.0.1:9090/my.package.Service',
    ],
    ['grpc://x:1?a', '"grpc://x:1?a": after HOST:PORT only /SERVICE may follow, not "?a"'],
    ['grpc://x:1#a', '"grpc://x:1#a": after HOST:PORT only /SERVICE may follow, not "#a"'],
    ['grpc://x:1/a b', '"a b" is not a gRPC service name; use a full name such as my.package.Service, or none for the whole server'],
    ['grpc://x:0', 'port "0" is not a number from 1 to 65535'],
  ])('rejects the grpc probe %j', (text, message) => {
    expect(parseProbe(text)).toEqual({ ok: false, message });
  });

  it.each([
    ['log:', 'log: needs a pattern, e.g. log:listening on port \\d+'],
    ['log:(ready', 'log probe: Invalid regular expression: /(ready/: Unterminated group'],
    ['log:a{2,1}', 'log probe: Invalid regular expression: /a{2,1}/: numbers out of order in {} quantifier'],
    ['file:', 'file: needs a path, e.g. file:/tmp/ready'],
    ['file:/tmp/a\0b', 'file: the path has a NUL character, which no file name can hold'],
    ['tcp://x:', '"tcp://x:" has no port; use tcp://HOST:PORT, e.g. tcp://127.0.0.1:15000'],
    ['tcp://x', '"tcp://x" has no port; use tcp://HOST:PORT, e.g. tcp://127.0.0.1:15000'],
    ['tcp://:80', '"tcp://:80" has no host; use tcp://HOST:PORT, e.g. tcp://127.0.0.1:15000'],
    ['tcp://[]:1', '"tcp://[]:1" has no host; use tcp://HOST:PORT, e.g. tcp://127.0.0.1:15000'],
    ['tcp:x', '"tcp:x" has no host; use tcp://HOST:PORT, e.g. tcp://127.0.0.1:15000'],
    ['tcp:tcp://h:1', '"tcp:tcp://h:1" has no host; use tcp://HOST:PORT, e.g. tcp://127.0.0.1:15000'],
    ['tcp://x:80/path', '"tcp://x:80/path": a tcp probe takes only HOST:PORT, not "/path"'],
    ['tcp://x:80?a', '"tcp://x:80?a": a tcp probe takes only HOST:PORT, not "?a"'],
    ['tcp://x:80#a', '"tcp://x:80#a": a tcp probe takes only HOST:PORT, not "#a"'],
    ['tcp://x:0', 'port "0" is not a number from 1 to 65535'],
    ['tcp://x:65536', 'port "65536" is not a number from 1 to 65535'],
    ['tcp://x:http', 'port "http" is not a number from 1 to 65535'],
    ['http://x:99999/', 'port "99999" is not a number from 1 to 65535'],
    ['http:///ready', '"http:///ready" has no host; use http://HOST:PORT/PATH, e.g. http://127.0.0.1:8080/ready'],
    ['http://u:p@x/', '"http://***@x/": credentials in a probe URL are not supported'],
    [
      'https://127.0.0.1/ready',
      'https probes are not supported yet; use http:// (probes reach processes inside the container, usually on 127.0.0.1)',
    ],
    ['exec:', 'exec: needs a command, e.g. exec:pg_isready -h 127.0.0.1'],
    ['exec:  ', 'exec: needs a command, e.g. exec:pg_isready -h 127.0.0.1'],
    ['exec:"" x', 'exec: needs a command, e.g. exec:pg_isready -h 127.0.0.1'],
    ['exec:a\0b', 'exec probe: the program name has a NUL character, which no command line can hold'],
    [`exec:sh -c 'x`, `exec probe: unbalanced quote: the ' at character 7 is never closed in: sh -c 'x`],
    [
      '127.0.0.1:80',
      '"127.0.0.1:80" is not a probe; use tcp://HOST:PORT, http://HOST:PORT/PATH, grpc://HOST:PORT[/SERVICE], exec:CMD, log:REGEX, file:PATH, notify or fd:N',
    ],
    [
      ' tcp://127.0.0.1:1',
      '" tcp://127.0.0.1:1" is not a probe; use tcp://HOST:PORT, http://HOST:PORT/PATH, grpc://HOST:PORT[/SERVICE], exec:CMD, log:REGEX, file:PATH, notify or fd:N',
    ],
    [
      '',
      '"" is not a probe; use tcp://HOST:PORT, http://HOST:PORT/PATH, grpc://HOST:PORT[/SERVICE], exec:CMD, log:REGEX, file:PATH, notify or fd:N',
    ],
  ])('rejects %j', (text, message) => {
    expect(parseProbe(text)).toEqual({ ok: false, message });
  });

  it.each([
    ['htp://127.0.0.1:15021/healthz/ready', 'http://127.0.0.1:15021/healthz/ready'],
    ['hptt://127.0.0.1:1/', 'http://127.0.0.1:1/'],
    ['tpc://127.0.0.1:5432', 'tcp://127.0.0.1:5432'],
    ['grcp://127.0.0.1:9090', 'grpc://127.0.0.1:9090'],
    ['exce:pg_isready', 'exec:pg_isready'],
    ['lgo:^ready$', 'log:^ready$'],
    ['flie:/tmp/ready', 'file:/tmp/ready'],
    // The token of a query stays out of the suggestion too.
    ['htp://127.0.0.1:1/ready?token=SECRET', 'http://127.0.0.1:1/ready?***'],
  ])('says what %j likely meant: %j', (text, meant) => {
    const result = parseProbe(text);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.message).toContain(` is not a probe (did you mean ${meant}?); use tcp://HOST:PORT`);
    if (!result.ok) expect(result.message).not.toContain('SECRET');
  });

  it.each(['/', '?', '#', '@', '[', ']'])('ends the host of tcp:// and grpc:// at %j, so no port follows it', (stop) => {
    for (const scheme of ['tcp', 'grpc']) {
      const text = `${scheme}://a${stop}b:1`;
      expect(parseProbe(text)).toEqual({ ok: false, message: expect.stringContaining(`"${text}" has no port; use ${scheme}://HOST:PORT`) });
    }
  });

  it('guesses nothing for a scheme far from every kind', () => {
    expect(parseProbe('zz://127.0.0.1:1')).toEqual({
      ok: false,
      message: expect.stringMatching(/^"zz:\/\/127\.0\.0\.1:1" is not a probe; use /),
    });
  });
});

const JOB = '  - { name: job, role: app, command: job }';

/** Why a probe that needs a process sidecar-init starts is refused on an external. */
const EXTERNAL_PROBE_MESSAGE =
  'an external is never started by sidecar-init, so it gets no notify socket or notification descriptor and its output is never read; use tcp, http, grpc, exec or file';

/** A sidecar named proxy whose readiness probe is `probe`, written on line 5. */
function withProbe(probe: string): string {
  return `
    processes:
      - name: proxy
        role: sidecar
        command: envoy
        readiness: { probe: ${probe} }
    ${JOB}
  `;
}

describe('a probe in the file', () => {
  it.each([
    ['tcp://127.0.0.1:15000', { kind: 'tcp', host: '127.0.0.1', port: 15000 }],
    ['"log:ready to accept connections"', { kind: 'log', pattern: 'ready to accept connections' }],
    ['"file:/tmp/ready"', { kind: 'file', path: '/tmp/ready' }],
    ['{ tcp: { host: "::1", port: 8080 } }', { kind: 'tcp', host: '::1', port: 8080 }],
    ['{ tcp: { host: "[::1]", port: 8080 } }', { kind: 'tcp', host: '::1', port: 8080 }],
    [
      '{ http: { url: "http://127.0.0.1:8080/ready" } }',
      { kind: 'http', url: 'http://127.0.0.1:8080/ready', headers: {}, expectStatus: undefined },
    ],
    [
      '{ http: { url: "http://h/ready", headers: { Host: example.com, X-Probe: "1" }, expectStatus: [200, 204] } }',
      { kind: 'http', url: 'http://h/ready', headers: { Host: 'example.com', 'X-Probe': '1' }, expectStatus: [200, 204] },
    ],
    ['{ exec: [pg_isready, -h, 127.0.0.1] }', { kind: 'exec', command: ['pg_isready', '-h', '127.0.0.1'] }],
    ['{ exec: "pg_isready -h \'127.0.0.1\'" }', { kind: 'exec', command: ['pg_isready', '-h', '127.0.0.1'] }],
    ['{ log: "listening on :\\\\d+" }', { kind: 'log', pattern: 'listening on :\\d+' }],
    ['{ file: /tmp/ready }', { kind: 'file', path: '/tmp/ready' }],
    ['grpc://127.0.0.1:9090/my.pkg.Svc', { kind: 'grpc', host: '127.0.0.1', port: 9090, service: 'my.pkg.Svc' }],
    ['notify', { kind: 'notify', watchdogMs: undefined }],
    ['{ notify: {} }', { kind: 'notify', watchdogMs: undefined }],
    ['{ notify: { watchdog: 30s } }', { kind: 'notify', watchdogMs: 30_000 }],
    ['"fd:3"', { kind: 'fd', fd: 3 }],
    ['{ fd: 5 }', { kind: 'fd', fd: 5 }],
    ['{ grpc: { host: 127.0.0.1, port: 9090 } }', { kind: 'grpc', host: '127.0.0.1', port: 9090, service: '' }],
    ['{ grpc: { host: "[::1]", port: 9090, service: my.pkg.Svc } }', { kind: 'grpc', host: '::1', port: 9090, service: 'my.pkg.Svc' }],
  ])('reads %s', (probe, expected) => {
    expect(load({ yaml: withProbe(probe) }).processes[0]!.readiness!.probe).toEqual(expected);
  });

  it('reports each bad field of the object form at its own path and column', () => {
    const yaml = `
      processes:
        - name: proxy
          role: sidecar
          command: envoy
          readiness:
            probe: { tcp: { host: "", port: 0 } }
        - name: db
          role: sidecar
          command: postgres
          readiness:
            probe:
              http:
                url: https://127.0.0.1/ready
                headers: { "Bad Name": x, X-Ok: "a\\nb" }
                expectStatus: [200, 600, 1.5]
      ${JOB}
    `;
    expect(problemsOf({ yaml })).toEqual([
      'demo.yaml:6:23 processes[0].readiness.probe.tcp.host: is empty; give a host name or address, e.g. 127.0.0.1',
      'demo.yaml:6:33 processes[0].readiness.probe.tcp.port: 0 is not a port; use a whole number from 1 to 65535',
      'demo.yaml:13:11 processes[1].readiness.probe.http.url: https probes are not supported yet; use http:// (probes reach processes inside the container, usually on 127.0.0.1)',
      `demo.yaml:14:22 processes[1].readiness.probe.http.headers["Bad Name"]: "Bad Name" is not a header name; use letters, digits and !#$%&'*+-.^_\`|~`,
      'demo.yaml:14:37 processes[1].readiness.probe.http.headers["X-Ok"]: the value contains a control character (a line break?), which a header cannot hold',
      'demo.yaml:15:31 processes[1].readiness.probe.http.expectStatus[1]: 600 is not an HTTP status; use a whole number from 100 to 599',
      'demo.yaml:15:36 processes[1].readiness.probe.http.expectStatus[2]: 1.5 is not an HTTP status; use a whole number from 100 to 599',
    ]);
  });

  it('takes exactly one kind, and says which were given', () => {
    const yaml = `
      processes:
        - name: a
          role: sidecar
          command: a
          readiness:
            probe: { tcp: { host: x, port: 1 }, http: { url: "http://x/" } }
        - name: b
          role: sidecar
          command: b
          readiness:
            probe: {}
      ${JOB}
    `;
    expect(problemsOf({ yaml })).toEqual([
      'demo.yaml:6:7 processes[0].readiness.probe: give only one of tcp, http, exec, log, file, grpc, notify or fd; this has tcp and http',
      'demo.yaml:11:7 processes[1].readiness.probe: give one of tcp, http, exec, log, file, grpc, notify or fd',
    ]);
  });

  it('reports unknown keys and wrong types inside the object form without hiding each other', () => {
    const yaml = `
      processes:
        - name: a
          role: sidecar
          command: a
          readiness:
            probe: { tcp: { host: 1, port: 2 }, tpc: 1 }
        - name: b
          role: sidecar
          command: b
          readiness:
            probe: { exec: [], log: "(" }
        - name: c
          role: sidecar
          command: c
          readiness:
            probe: 42
      ${JOB}
    `;
    expect(problemsOf({ yaml })).toEqual([
      'demo.yaml:6:23 processes[0].readiness.probe.tcp.host: expected a string, got 1',
      'demo.yaml:6:43 processes[0].readiness.probe.tpc: unknown key "tpc" (did you mean tcp?); accepted here: tcp, http, exec, log, file, grpc, notify, fd',
      'demo.yaml:11:7 processes[1].readiness.probe: give only one of tcp, http, exec, log, file, grpc, notify or fd; this has exec and log',
      'demo.yaml:11:16 processes[1].readiness.probe.exec: is an empty list; give at least 1 item',
      'demo.yaml:11:26 processes[1].readiness.probe.log: log probe: Invalid regular expression: /(/: Unterminated group',
      'demo.yaml:16:7 processes[2].readiness.probe: expected a string or a mapping, got 42',
    ]);
  });

  it('checks that a log pattern compiles and a file path is not empty, in both forms', () => {
    const yaml = `
      processes:
        - name: a
          role: sidecar
          command: a
          readiness: { probe: { log: "([a-z]" } }
        - name: b
          role: sidecar
          command: b
          readiness: { probe: "log:a{2,1}" }
        - name: c
          role: sidecar
          command: c
          readiness: { probe: { file: "" } }
      ${JOB}
    `;
    expect(problemsOf({ yaml })).toEqual([
      'demo.yaml:5:27 processes[0].readiness.probe.log: log probe: Invalid regular expression: /([a-z]/: Unterminated group',
      'demo.yaml:9:18 processes[1].readiness.probe: log probe: Invalid regular expression: /a{2,1}/: numbers out of order in {} quantifier',
      'demo.yaml:13:27 processes[2].readiness.probe.file: file: needs a path, e.g. file:/tmp/ready',
    ]);
  });
});

describe('liveness', () => {
  it('applies the defaults from plan.ts and reads every field, on a sidecar and on the app', () => {
    const yaml = `
      processes:
        - name: proxy
          role: sidecar
          command: envoy
          liveness: { probe: "tcp://127.0.0.1:15000" }
        - name: job
          role: app
          command: job
          liveness:
            probe: { http: { url: "http://127.0.0.1:8080/healthz", expectStatus: [200] } }
            period: 10s
            timeout: 2s
            failureThreshold: 5
            initialDelay: 30s
    `;
    const [proxy, job] = load({ yaml }).processes;
    expect(proxy!.liveness).toEqual({
      probe: { kind: 'tcp', host: '127.0.0.1', port: 15000 },
      periodMs: DEFAULTS.liveness.periodMs,
      timeoutMs: DEFAULTS.liveness.timeoutMs,
      failureThreshold: DEFAULTS.liveness.failureThreshold,
      initialDelayMs: DEFAULTS.liveness.initialDelayMs,
    });
    expect(job!.liveness).toEqual({
      probe: { kind: 'http', url: 'http://127.0.0.1:8080/healthz', headers: {}, expectStatus: [200] },
      periodMs: 10_000,
      timeoutMs: 2_000,
      failureThreshold: 5,
      initialDelayMs: 30_000,
    });
  });

  it('refuses notify and fd for liveness: the process reports them once (the watchdog is their liveness)', () => {
    const yaml = `
      processes:
        - name: a
          role: sidecar
          command: a
          liveness: { probe: notify }
        - name: job
          role: app
          command: job
          liveness: { probe: { fd: 3 } }
    `;
    const message =
      'a notify or fd probe passes once and stays passed, so it cannot check liveness; use readiness.probe.notify.watchdog, or tcp, http, grpc, exec or file';
    expect(problemsOf({ yaml })).toEqual([
      `demo.yaml:5:17 processes[0].liveness.probe: ${message}`,
      `demo.yaml:9:17 processes[1].liveness.probe: ${message}`,
    ]);
  });

  it('refuses notify and fd on an external, in the file and by --ready', () => {
    const yaml = `
      processes:
        - name: mesh
          role: external
          match: { comm: envoy }
          readiness: { probe: notify }
        - name: db
          role: external
          match: { comm: postgres }
        - { name: job, role: app, command: job }
    `;
    expect(problemsOf({ yaml, cli: { ready: ['db=fd:3'] } })).toEqual([
      `demo.yaml:5:18 processes[0].readiness.probe: ${EXTERNAL_PROBE_MESSAGE}`,
      `--ready db=fd:3: ${EXTERNAL_PROBE_MESSAGE}`,
    ]);
  });

  it('refuses notify on an external by --ready too', () => {
    const yaml = `
      processes:
        - { name: db, role: external, match: { comm: postgres } }
        - { name: job, role: app, command: job }
    `;
    expect(problemsOf({ yaml, cli: { ready: ['db=notify'] } })).toEqual([`--ready db=notify: ${EXTERNAL_PROBE_MESSAGE}`]);
  });

  it('refuses a log probe on an external, whose output sidecar-init never reads, in the file and by --ready', () => {
    const yaml = `
      processes:
        - name: mesh
          role: external
          match: { comm: envoy }
          readiness: { probe: "log:ready" }
        - name: db
          role: external
          match: { comm: postgres }
          readiness: { probe: { log: "accepting connections" } }
        - name: cache
          role: external
          match: { comm: redis }
        - { name: job, role: app, command: job }
    `;
    expect(problemsOf({ yaml, cli: { ready: ['cache=log:Ready'] } })).toEqual([
      `demo.yaml:5:18 processes[0].readiness.probe: ${EXTERNAL_PROBE_MESSAGE}`,
      `demo.yaml:9:18 processes[1].readiness.probe: ${EXTERNAL_PROBE_MESSAGE}`,
      `--ready cache=log:Ready: ${EXTERNAL_PROBE_MESSAGE}`,
    ]);
  });

  it('reports a bad notification descriptor and a zero watchdog at their keys', () => {
    const yaml = `
      processes:
        - name: a
          role: sidecar
          command: a
          readiness: { probe: { fd: 1 } }
        - name: b
          role: sidecar
          command: b
          readiness: { probe: { notify: { watchdog: 0s } } }
        - { name: job, role: app, command: job }
    `;
    expect(problemsOf({ yaml })).toEqual([
      'demo.yaml:5:27 processes[0].readiness.probe.fd: 1 is not a descriptor for notification; use a whole number from 3 to 255',
      'demo.yaml:9:37 processes[1].readiness.probe.notify.watchdog: "0s" is zero; give a duration of at least 1ms',
    ]);
  });

  it('takes a file probe but not a log probe, in either form', () => {
    const yaml = `
      processes:
        - name: a
          role: sidecar
          command: a
          liveness: { probe: "file:/tmp/alive" }
        - name: b
          role: sidecar
          command: b
          liveness: { probe: "log:started" }
        - name: job
          role: app
          command: job
          liveness: { probe: { log: started } }
    `;
    expect(problemsOf({ yaml })).toEqual([
      'demo.yaml:9:17 processes[1].liveness.probe: a log probe passes once and stays passed, so it cannot check liveness; use tcp, http, grpc, exec or file',
      'demo.yaml:13:17 processes[2].liveness.probe: a log probe passes once and stays passed, so it cannot check liveness; use tcp, http, grpc, exec or file',
    ]);
    const fileOnly = 'processes: [{ name: job, role: app, command: job, liveness: { probe: "file:/tmp/alive" } }]';
    expect(load({ yaml: fileOnly }).processes[0]!.liveness?.probe).toEqual({ kind: 'file', path: '/tmp/alive' });
  });

  it('reports each bad field at its key: zero timings, a threshold below 1 or not whole, a missing probe', () => {
    const yaml = `
      processes:
        - name: proxy
          role: sidecar
          command: envoy
          liveness:
            probe: exec:true
            period: 0s
            timeout: 1
            failureThreshold: 0
            initialDelay: soon
        - name: job
          role: app
          command: job
          liveness:
            failureThreshold: 1.5
    `;
    expect(problemsOf({ yaml })).toEqual([
      'demo.yaml:7:7 processes[0].liveness.period: "0s" is zero; give a duration of at least 1ms',
      'demo.yaml:8:7 processes[0].liveness.timeout: 1 has no unit; write e.g. 1s or 1ms',
      'demo.yaml:9:7 processes[0].liveness.failureThreshold: 0 is not a failure threshold; use a whole number of 1 or more',
      'demo.yaml:10:7 processes[0].liveness.initialDelay: "soon" is not a duration; use e.g. 500ms, 5s, 1m',
      'demo.yaml:14:5 processes[1].liveness.probe: is required; give a string or a mapping',
      'demo.yaml:15:7 processes[1].liveness.failureThreshold: 1.5 is not a failure threshold; use a whole number of 1 or more',
    ]);
  });

  it('allows an initial delay of zero', () => {
    const yaml = `
      processes:
        - { name: job, role: app, command: job, liveness: { probe: "exec:true", initialDelay: 0s } }
    `;
    expect(load({ yaml }).processes[0]!.liveness?.initialDelayMs).toBe(0);
  });
});

describe('isStartedOnlyProbeAsWritten', () => {
  it('is true for notify, fd and log as written, in either form, or as parsed', () => {
    for (const probe of ['notify', 'NOTIFY', 'fd:3', 'FD:3', 'log:x', 'LOG:x', { fd: 3 }, { log: 'x' }, { notify: {} }])
      expect(isStartedOnlyProbeAsWritten(probe)).toBe(true);
    for (const kind of ['notify', 'fd', 'log']) expect(isStartedOnlyProbeAsWritten({ kind })).toBe(true);
  });

  it('is false for the other kinds, even when their text names one of those, and for anything that is no probe', () => {
    for (const probe of [
      'notifyx',
      'xnotify',
      'file:/run/fd:3',
      'exec:echo log:',
      'tcp://127.0.0.1:1',
      { tcp: {} },
      { kind: 'tcp' },
      null,
      3,
    ])
      expect(isStartedOnlyProbeAsWritten(probe)).toBe(false);
  });
});

describe('the object form', () => {
  it('takes a header name of every token character, and a value with a tab and obs-text', () => {
    const name = "a!#$%&'*+-.^_`|~09Z";
    const yaml = withProbe(`{ http: { url: "http://h/", headers: { "${name}": "a\\tb \\xe9" } } }`);
    expect(load({ yaml }).processes[0]!.readiness!.probe).toEqual({
      kind: 'http',
      url: 'http://h/',
      headers: { [name]: 'a\tb é' },
      expectStatus: undefined,
    });
  });

  it('takes off the brackets of a host only when they enclose all of it', () => {
    expect(load({ yaml: withProbe('{ tcp: { host: "[::1]x", port: 1 } }') }).processes[0]!.readiness!.probe).toEqual({
      kind: 'tcp',
      host: '[::1]x',
      port: 1,
    });
    expect(load({ yaml: withProbe('{ grpc: { host: "x[::1]", port: 1 } }') }).processes[0]!.readiness!.probe).toEqual({
      kind: 'grpc',
      host: 'x[::1]',
      port: 1,
      service: '',
    });
  });
});

describe('readiness timings', () => {
  it('need a probe on a sidecar', () => {
    const yaml = `
      processes:
        - { name: proxy, role: sidecar, command: envoy, readiness: { period: 1s } }
        - { name: job, role: app, command: job }
    `;
    expect(problemsOf({ yaml })).toEqual(['demo.yaml:2:51 processes[0].readiness.probe: is required; give a string or a mapping']);
  });

  it('default to plan.ts, each on its own, and are read when given', () => {
    const [given, defaults] = load({
      yaml: `
        processes:
          - name: a
            role: sidecar
            command: a
            readiness: { probe: "tcp://h:1", period: 7ms, timeout: 8ms, deadline: 9ms, periodAfterStart: 10ms }
          - { name: b, role: sidecar, command: b, readiness: { probe: "tcp://h:1" } }
        ${JOB}
      `,
    }).processes;
    expect(given!.readiness).toEqual({
      probe: { kind: 'tcp', host: 'h', port: 1 },
      periodMs: 7,
      timeoutMs: 8,
      deadlineMs: 9,
      periodAfterStartMs: 10,
    });
    expect(defaults!.readiness).toEqual({ probe: { kind: 'tcp', host: 'h', port: 1 }, ...DEFAULTS.readiness });
  });
});
