import type { ProbeSpec } from '../config/plan.ts';
import type { Spawner } from '../process/child.ts';
import { assertNever } from '../util/assert-never.ts';
import { createExecProbe } from './exec-probe.ts';
import { createHttpProbe } from './http-probe.ts';
import type { Probe } from './probe.ts';
import { createTcpProbe } from './tcp-probe.ts';

export interface ProbeDeps {
  /** Exec probes run through it, so the reaper knows their pids. */
  readonly spawner: Spawner;
  /** The env and cwd of the process being probed, for exec probes. */
  readonly env: Readonly<Record<string, string>>;
  readonly cwd: string | undefined;
}

export function createProbe(spec: ProbeSpec, deps: ProbeDeps): Probe {
  switch (spec.kind) {
    case 'tcp':
      return createTcpProbe(spec.host, spec.port);
    case 'http':
      return createHttpProbe(spec.url);
    case 'exec':
      return createExecProbe(spec.command, deps);
    default:
      return assertNever(spec);
  }
}
