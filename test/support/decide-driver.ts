import type { ExitStatus } from '../../src/plan/exit-status.ts';
import type { Plan } from '../../src/plan/plan.ts';
import { createProcessGraph } from '../../src/plan/process-graph.ts';
import { decide } from '../../src/lifecycle/decide.ts';
import type { Effect, LifecycleEventBody, LifecycleLine } from '../../src/lifecycle/events.ts';
import type { LifecycleState } from '../../src/lifecycle/state.ts';
import { createInitialState } from '../../src/lifecycle/state.ts';

// The reducer driven as the runner drives it, with no processes: for the
// reducer's own tests.

/**
 * Feeds events one at a time, as the runner does, and keeps every effect in
 * order; the log lines decided on (log effects) are kept apart, in `lines`.
 */
export function createDriver(testPlan: Plan) {
  const context = {
    graph: createProcessGraph(testPlan),
    graceMs: testPlan.graceMs,
    hasDrain: testPlan.drain !== undefined,
    signalRewrites: testPlan.rewrite,
  };
  let state: LifecycleState = createInitialState(testPlan);
  let now = 0;
  let lines: LifecycleLine[] = [];
  return {
    /** Decides each event in turn, stamped with the driver's clock; returns every effect but the log lines. */
    send(...events: LifecycleEventBody[]): Effect[] {
      const effects: Effect[] = [];
      lines = [];
      for (const event of events) {
        const decision = decide(context, state, { ...event, at: now });
        state = decision.state;
        for (const effect of decision.effects) {
          if (effect.type === 'log') lines.push(effect.line);
          else effects.push(effect);
        }
      }
      return effects;
    },
    /** The log lines the last send() decided on, in order. */
    get lines(): readonly LifecycleLine[] {
      return lines;
    },
    /** Moves the driver's clock, stamped on every event sent after. */
    advance(ms: number) {
      now += ms;
    },
    spawned: (name: string): LifecycleEventBody => ({ type: 'spawned', name }),
    exited: (name: string, status: ExitStatus): LifecycleEventBody => ({ type: 'exited', name, status }),
    /** What the last run left in its process group is gone: with the backoff over, the restart may spawn. */
    swept: (name: string): LifecycleEventBody => ({ type: 'group-swept', name }),
    get state() {
      return state;
    },
    /** What the reducer decides with, as the runner gives it (forwardRoute takes it too). */
    context,
  };
}
