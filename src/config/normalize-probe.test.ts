import { describe, expect, it } from 'vitest';
import { load, problemsOf } from './test-support.ts';

const JOB = '  - { name: job, role: app, command: job }';

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
      'demo.yaml:6:7 processes[0].readiness.probe: give only one of tcp, http, exec, log or file; this has tcp and http',
      'demo.yaml:11:7 processes[1].readiness.probe: give one of tcp, http, exec, log or file',
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
      'demo.yaml:6:43 processes[0].readiness.probe.tpc: unknown key "tpc" (did you mean tcp?); accepted here: tcp, http, exec, log, file',
      'demo.yaml:11:7 processes[1].readiness.probe: give only one of tcp, http, exec, log or file; this has exec and log',
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
