import { describe, expect, it } from 'vitest';
import { load } from '../../test/support/config.ts';
import { refuseHostExternals } from './host-namespace.ts';

// The rule on its own, for both answers of "does /proc show the host's
// processes" (test/externals.test.ts runs it for real, on the host and in a
// pod's namespace).

describe('refuseHostExternals', () => {
  const plan = load({
    yaml: `
      processes:
        - name: mesh
          role: external
          preset: istio
        - name: agent
          role: external
          match: { comm: agent, uid: 998 }
          allowHost: true
        - name: proxy
          role: external
          announced: /handoff/proxy
        - name: job
          role: app
          command: ./job
    `,
  });

  it('names every external without allowHost, and how to allow it, where /proc shows the host’s processes; never an announced one, which is not looked for there', () => {
    expect(refuseHostExternals(plan, true)).toMatch(
      /^external mesh: sidecar-init sees the host's processes .* set allowHost: true on it in the config file\.$/,
    );
  });

  it('allows them all in a pod’s (or a container’s) own PID namespace', () => {
    expect(refuseHostExternals(plan, false)).toBeUndefined();
  });
});
