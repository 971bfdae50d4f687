import type { Effect, LifecycleEventBody } from '../../src/lifecycle/events.ts';
import { timerId } from '../../src/lifecycle/events.ts';

// One line per decision in the lifecycle property's trace, short enough to
// read a failing case at a glance ("1250 exited app 62 → timer grace +25000, …"),
// and the seeded generator behind the model world's own choices.

export function describeEvent(event: LifecycleEventBody): string {
  switch (event.type) {
    case 'spawned':
    case 'external-found':
      return `${event.type} ${event.name}`;
    case 'exited':
      return `exited ${event.name} ${event.status.kind === 'signaled' ? event.status.signal : event.status.code}`;
    case 'readiness':
      return `readiness ${event.name} ${event.ready}`;
    case 'hook-done':
      return `${event.hook} ${event.name} ${event.ok ? 'ok' : 'failed'}`;
    case 'signal':
      return event.signal;
    case 'timer':
      return `timer ${timerId(event.timer)}`;
    case 'liveness-failed':
    case 'external-stopped':
    case 'group-swept':
      return `${event.type} ${event.name}`;
    default:
      return event.type;
  }
}

export function describeEffect(effect: Effect): string {
  switch (effect.type) {
    case 'signal':
      return `${effect.signal}→${effect.name} (${effect.purpose})`;
    case 'start-timer':
      return `timer ${timerId(effect.timer)} +${effect.ms}`;
    case 'cancel-timer':
      return `cancel ${timerId(effect.timer)}`;
    case 'finish':
      return `finish ${effect.exitCode}`;
    case 'run-hook':
    case 'cancel-hook':
      return `${effect.type} ${effect.hook} ${effect.name}`;
    case 'start-watch':
    case 'stop-watch':
      return `${effect.type} ${effect.watch} ${effect.name}`;
    default:
      return 'name' in effect ? `${effect.type} ${effect.name}` : effect.type;
  }
}

/** mulberry32: a small seeded generator, so a failing case replays exactly from its seed. */
export function createRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}
