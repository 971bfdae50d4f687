import { describe, expect, it } from 'vitest';
import { testPlan as plan, testProcess as proc } from '../../test/support/test-plan.ts';
import { createProcessGraph } from './process-graph.ts';
import { startWaves, stopWaves } from './waves.ts';

describe('start and stop waves', () => {
  it('are one entry per wave with the default chain, init steps left out of the stop waves', () => {
    const graph = createProcessGraph(plan([proc('net', 'init'), proc('proxy', 'sidecar'), proc('migrate', 'init'), proc('app', 'app')]));
    expect(startWaves(graph)).toEqual([['net'], ['proxy'], ['migrate'], ['app']]);
    expect(stopWaves(graph)).toEqual([['app'], ['proxy']]);
  });

  it('start independent entries together and stop each once everything that waits for it is down', () => {
    const graph = createProcessGraph(
      plan([
        proc('a', 'sidecar', { after: [] }),
        proc('b', 'sidecar', { after: [] }),
        proc('c', 'sidecar', { after: ['a'] }),
        proc('app', 'app', { after: ['b', 'c'] }),
      ]),
    );
    expect(startWaves(graph)).toEqual([['a', 'b'], ['c'], ['app']]);
    expect(stopWaves(graph)).toEqual([['app'], ['b', 'c'], ['a']]);
  });

  it('run the stop order through an init step: what it waited for stops after what waited for the step', () => {
    const graph = createProcessGraph(
      plan([
        proc('db', 'sidecar', { after: [] }),
        proc('migrate', 'init', { after: ['db'] }),
        proc('cache', 'sidecar', { after: [] }),
        proc('app', 'app', { after: ['migrate', 'cache'] }),
      ]),
    );
    expect(startWaves(graph)).toEqual([['db', 'cache'], ['migrate'], ['app']]);
    expect(stopWaves(graph)).toEqual([['app'], ['db', 'cache']]);
  });

  it('place an entry listed before what it waits for by its dependencies, not its place in the list', () => {
    const graph = createProcessGraph(
      plan([proc('app', 'app', { after: ['proxy'] }), proc('proxy', 'sidecar', { after: ['dns'] }), proc('dns', 'sidecar', { after: [] })]),
    );
    expect(startWaves(graph)).toEqual([['dns'], ['proxy'], ['app']]);
    expect(stopWaves(graph)).toEqual([['app'], ['proxy'], ['dns']]);
  });
});
