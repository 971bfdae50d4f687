import type { MetricFamily, MetricSample } from './prometheus-text.ts';
import type { ProcessSnapshot, StatusSnapshot } from '../plan/status-snapshot.ts';
import { isProcessReady, STATUS_PHASES } from '../plan/status-snapshot.ts';

// The /metrics families, rebuilt from one snapshot per scrape: there is no
// registry to keep in step with the lifecycle, and a scrape can never see half
// of one transition.

export function statusMetrics(snapshot: StatusSnapshot): MetricFamily[] {
  const perProcess = (value: (process: ProcessSnapshot) => number): MetricSample[] =>
    snapshot.processes.map((process) => ({ labels: { name: process.name, role: process.role }, value: value(process) }));
  const families: MetricFamily[] = [
    {
      name: 'sidecar_init_process_up',
      help: 'Whether the process is running (1) or not: pending, restarting, stopping or exited (0).',
      type: 'gauge',
      samples: perProcess((process) => (process.state === 'running' ? 1 : 0)),
    },
    {
      name: 'sidecar_init_process_ready',
      help: 'Whether the process is running and passing its readiness probe (1), or not (0).',
      type: 'gauge',
      samples: perProcess((process) => (isProcessReady(process) ? 1 : 0)),
    },
    {
      name: 'sidecar_init_process_restarts_total',
      help: 'Restarts of the process since sidecar-init started.',
      type: 'counter',
      samples: perProcess((process) => process.restarts),
    },
    {
      name: 'sidecar_init_reaped_orphans_total',
      help: 'Orphaned processes sidecar-init adopted and reaped.',
      type: 'counter',
      samples: [{ value: snapshot.reapedOrphans }],
    },
    {
      name: 'sidecar_init_phase',
      help: 'The phase sidecar-init is in: 1 for the current one, 0 for the others.',
      type: 'gauge',
      samples: STATUS_PHASES.map((phase) => ({ labels: { phase }, value: phase === snapshot.phase ? 1 : 0 })),
    },
  ];
  if (snapshot.teardownSeconds !== undefined) {
    families.push({
      name: 'sidecar_init_teardown_seconds',
      help: 'Time teardown has taken, from its start until everything was down.',
      type: 'gauge',
      samples: [{ value: snapshot.teardownSeconds }],
    });
  }
  return families;
}
