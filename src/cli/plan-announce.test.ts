import { describe, expect, it } from 'vitest';
import { load } from '../../test/support/config.ts';
import { planText } from './plan-text.ts';
import { planView } from './plan-view.ts';

// `sidecar-init plan` for containers that coordinate through files: the file
// this run announces to, the one it runs until, and an external known by its file.

describe('the plan of a run that announces and waits', () => {
  const plan = load({
    cli: {
      announce: '/handoff/app',
      until: '/handoff/proxy=stopping',
      processes: [{ flag: '--external', value: 'proxy=announced:/handoff/proxy' }],
      app: ['./job'],
    },
  });

  it('shows the files and the state waited for', () => {
    const view = planView(plan);
    expect(view.announce).toBe('/handoff/app');
    expect(view.until).toEqual({ file: '/handoff/proxy', state: 'stopping' });
    expect(view.processes[0]?.external).toEqual({
      preset: null,
      match: 'announced:/handoff/proxy',
      stop: 'wait for /handoff/proxy to say exited',
      stopWarning: null,
      optional: false,
      stopOnFailure: true,
      allowHost: false,
      announced: '/handoff/proxy',
    });
    expect(view.processes[0]?.readiness?.probe).toBe('announced:/handoff/proxy says ready');
    const text = planText(plan);
    expect(text).toContain("announce: /handoff/app keeps this run's state (starting, ready, stopping, exited)\n");
    expect(text).toContain('until: /handoff/proxy says stopping (or later), then stops as if the app exited 0\n');
    expect(text).toContain('    finds:      announced:/handoff/proxy\n');
    expect(text).toContain('    stop:       wait for /handoff/proxy to say exited, within the budget\n');
  });

  it('shows neither without them', () => {
    const view = planView(load({ cli: { app: ['./job'] } }));
    expect([view.announce, view.until]).toEqual([null, null]);
    expect(planText(load({ cli: { app: ['./job'] } }))).not.toMatch(/^(announce|until):/m);
  });
});
