import { describe, expect, it } from 'vitest';
import { testPlan as plan, testProcess as proc } from '../../test/support/test-plan.ts';
import { createProcessGraph } from './process-graph.ts';

const namesOf = (specs: readonly { readonly name: string }[]) => specs.map((spec) => spec.name);

describe('the process graph', () => {
  it('keeps plan order, finds the app, and lists who waits for whom', () => {
    const graph = createProcessGraph(
      plan([proc('a', 'sidecar', { after: [] }), proc('b', 'sidecar', { after: ['a'] }), proc('app', 'app', { after: ['a', 'b'] })]),
    );
    expect(namesOf(graph.order)).toEqual(['a', 'b', 'app']);
    expect(graph.app.name).toBe('app');
    expect(graph.spec('b').after).toEqual(['a']);
    expect(namesOf(graph.directDependentsOf('a'))).toEqual(['b', 'app']);
    expect(namesOf(graph.directDependentsOf('app'))).toEqual([]);
    expect(namesOf(graph.directDependentsOf('nobody'))).toEqual([]);
  });

  it('sorts what is listed before what it waits for after it, and keeps plan order where free', () => {
    const graph = createProcessGraph(
      plan([
        proc('late', 'sidecar', { after: ['early'] }),
        proc('free', 'sidecar', { after: [] }),
        proc('early', 'sidecar', { after: [] }),
        proc('app', 'app', { after: [] }),
      ]),
    );
    expect(namesOf(graph.topological)).toEqual(['free', 'early', 'app', 'late']);
  });

  it('holds back what something alive still waits for, directly or through a process already down', () => {
    const graph = createProcessGraph(
      plan([proc('db', 'sidecar', { after: [] }), proc('proxy', 'sidecar', { after: ['db'] }), proc('app', 'app', { after: ['proxy'] })]),
    );
    const alive = (names: string[]) => (name: string) => names.includes(name);
    expect([...graph.heldBackBy(alive(['db', 'proxy', 'app']))].sort()).toEqual(['db', 'proxy']);
    expect([...graph.heldBackBy(alive(['db', 'app']))].sort()).toEqual(['db', 'proxy']);
    expect([...graph.heldBackBy(alive(['db', 'proxy']))]).toEqual(['db']);
    expect([...graph.heldBackBy(alive(['db']))]).toEqual([]);
  });

  it('refuses an unknown name, a plan without an app and an after cycle, which normalization rules out', () => {
    const graph = createProcessGraph(plan([proc('app', 'app')]));
    expect(() => graph.spec('ghost')).toThrow('no process named ghost in the plan');
    expect(() => createProcessGraph(plan([proc('a', 'sidecar')]))).toThrow('plan has no app; normalization should have rejected it');
    expect(() =>
      createProcessGraph(
        plan([proc('a', 'sidecar', { after: ['b'] }), proc('b', 'sidecar', { after: ['a'] }), proc('app', 'app', { after: [] })]),
      ),
    ).toThrow('the plan has an after cycle; normalization should have rejected it');
  });
});
