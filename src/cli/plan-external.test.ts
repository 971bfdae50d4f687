import { describe, expect, it } from 'vitest';
import { load } from '../../test/support/config.ts';
import { planText } from './plan-text.ts';
import { planView } from './plan-view.ts';

// `sidecar-init plan` for an external: what it finds, when it is ready, how it
// is stopped; never a command, restart policy or process group of its own.

describe('the plan of an external', () => {
  const plan = load({
    yaml: `
      processes:
        - name: mesh
          role: external
          preset: linkerd
          optional: true
        - name: db
          role: external
          match: { comm: cloud-sql-proxy, uid: 65532 }
          stop: { signal: SIGINT }
          stopOnFailure: false
          allowHost: true
        - name: job
          role: app
          command: ./job
    `,
  });

  it('is shown by what it finds and how it stops', () => {
    expect(planView(plan).processes.map((process) => process.external)).toEqual([
      {
        preset: 'linkerd',
        match: 'cmdline /linkerd2-proxy/',
        stop: 'POST http://127.0.0.1:4191/shutdown, then SIGTERM if it does not accept',
        stopWarning: null,
        optional: true,
        stopOnFailure: true,
        allowHost: false,
        announced: null,
      },
      {
        preset: null,
        match: 'comm cloud-sql-proxy, uid 65532',
        stop: 'SIGINT',
        // Known as cloud-sql-proxy by its comm, but stopped with SIGINT: nothing known to warn of.
        stopWarning: null,
        optional: false,
        stopOnFailure: false,
        allowHost: true,
        announced: null,
      },
      null,
    ]);
    expect(planText(plan)).toContain(
      [
        '  db (external)',
        '    finds:      comm cloud-sql-proxy, uid 65532 (also among the host’s processes: allowHost)',
        '    after:      mesh',
        '    readiness:  a process with comm cloud-sql-proxy, uid 65532 every 100ms, deadline 1m',
        '    stop:       SIGINT, then waited for within the budget; left running when sidecar-init exits non-zero',
      ].join('\n'),
    );
  });
});
