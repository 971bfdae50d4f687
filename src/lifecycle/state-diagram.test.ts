import { readFileSync } from 'node:fs';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { ProcessState } from '../plan/status-snapshot.ts';
import type { Phase, ProcState } from './state.ts';

// docs/architecture.md draws the run's phases and a process's statuses as
// Mermaid state diagrams. Each must have exactly the states the union has: a
// status added to ProcState (or a phase to Phase) fails to compile here until
// it is listed, and then fails here until the diagram has it.

/** Every `status` of ProcState; `satisfies` makes a missing or unknown one a compile error. */
const PROC_STATUSES = Object.keys({
  pending: true,
  skipped: true,
  spawning: true,
  running: true,
  stopping: true,
  backoff: true,
  exited: true,
} satisfies Record<ProcState['status'], true>);

const PHASES = Object.keys({ starting: true, running: true, stopping: true, done: true } satisfies Record<Phase, true>);

const ARCHITECTURE = readFileSync(new URL('../../docs/architecture.md', import.meta.url), 'utf8');

/** The states of each `stateDiagram-v2` block, from its `A --> B` lines (`[*]` is the start or end, not a state). */
function diagramStates(markdown: string): (readonly string[])[] {
  const blocks = [...markdown.matchAll(/```mermaid\n\s*stateDiagram-v2\n([\s\S]*?)```/g)].map(([, body]) => body ?? '');
  return blocks.map((body) => {
    const states = new Set<string>();
    for (const [, from, to] of body.matchAll(/^\s*(\[\*\]|[\w-]+)\s*-->\s*(\[\*\]|[\w-]+)/gm)) {
      for (const state of [from, to]) if (state !== undefined && state !== '[*]') states.add(state);
    }
    return [...states].sort();
  });
}

describe('the state diagrams of docs/architecture.md', () => {
  const diagrams = diagramStates(ARCHITECTURE);

  it('draw every status of ProcState, and no other', () => {
    expect(diagrams).toContainEqual([...PROC_STATUSES].sort());
  });

  it('draw the states /status shows, as docs/lifecycle.md says', () => {
    // status/ is an edge and may not import the reducer, so it names the states
    // again; tsc (part of npm test) fails here when the two unions part.
    expectTypeOf<ProcessState>().toEqualTypeOf<ProcState['status']>();
    expect(diagrams).toContainEqual([...PROC_STATUSES].sort());
  });

  it('draw every phase of the run, and no other', () => {
    expect(diagrams).toContainEqual([...PHASES].sort());
  });

  it('are the only state diagrams there, so neither can drift into a third copy', () => {
    expect(diagrams).toHaveLength(2);
  });
});
