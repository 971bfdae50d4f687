import { resolve } from 'node:path';
import type { ProbeSpec, ProcessUser } from '../plan/plan.ts';
import { assertNever } from '../plan/assert-never.ts';
import { createChannelProbe, createLogProbe } from './latched-probe.ts';
import { createExecProbe } from './exec-probe.ts';
import { createFileProbe } from './file-probe.ts';
import { createGrpcProbe } from './grpc-probe.ts';
import { createHttpProbe } from './http-probe.ts';
import type { LogMatcher } from './log-matcher.ts';
import type { Probe } from './probe.ts';
import type { ReadinessChannel } from './readiness-channel.ts';
import { createTcpProbe } from './tcp-probe.ts';

export interface ProbeDeps {
  /** The env and cwd of the process being probed: exec probes run with them, a relative file path is read from that cwd. */
  readonly env: Readonly<Record<string, string>>;
  readonly cwd: string | undefined;
  /** The probed process's user: exec probes run as it. Other probes are sidecar-init's own requests and reads. */
  readonly user?: ProcessUser | undefined;
  /** The matcher fed with the probed process's output (stdio 'tee'); required for a log probe. */
  readonly logMatcher?: LogMatcher | undefined;
  /** The run's notify socket or notification pipe, opened before its spawn; required for a notify or fd probe. */
  readonly channel?: ReadinessChannel | undefined;
}

export function createProbe(spec: ProbeSpec, deps: ProbeDeps): Probe {
  switch (spec.kind) {
    case 'tcp':
      return createTcpProbe(spec.host, spec.port);
    case 'http':
      return createHttpProbe(spec.url, { headers: spec.headers, expectStatus: spec.expectStatus });
    case 'exec':
      return createExecProbe(spec.command, deps);
    case 'grpc':
      return createGrpcProbe(spec.host, spec.port, spec.service);
    case 'file':
      return createFileProbe(resolve(deps.cwd ?? process.cwd(), spec.path));
    case 'log':
      // Without a matcher nobody reads the output, so the probe could never pass.
      if (deps.logMatcher === undefined) {
        throw new Error(
          `log probe log:${spec.pattern}: no log matcher was given (the process must be spawned with stdio 'tee' and its onOutput fed to one)`,
        );
      }
      if (deps.logMatcher.pattern !== spec.pattern) {
        throw new Error(`log probe log:${spec.pattern}: the log matcher given watches for ${JSON.stringify(deps.logMatcher.pattern)}`);
      }
      return createLogProbe(deps.logMatcher);
    case 'notify':
    case 'fd': {
      const description = spec.kind === 'fd' ? `fd:${spec.fd}` : 'notify';
      // Without the channel the process was never told where to report, so the probe could never pass.
      if (deps.channel === undefined)
        throw new Error(`${description} probe: no readiness channel was opened for the process before its spawn`);
      return createChannelProbe(deps.channel, description);
    }
    case 'announced':
    case 'process':
      // It is how an external is found, so the runner asks the external kit for it (src/externals/presence-probe.ts).
      throw new Error('a process probe is created by the external kit, not here');
    default:
      return assertNever(spec);
  }
}
