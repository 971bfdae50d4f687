import type { ProbeSpec, ProcessSpec } from '../plan/plan.ts';
import { openFdChannel } from './fd-channel.ts';
import { openNotifyChannel } from './notify-channel.ts';
import type { ChannelEvents, ReadinessChannel } from './readiness-channel.ts';

/** The channel a notify or fd readiness probe reads, for one run of owner; undefined for every other probe. Throws when it cannot be opened. */
export function openReadinessChannel(probe: ProbeSpec, owner: ProcessSpec, events: ChannelEvents): ReadinessChannel | undefined {
  switch (probe.kind) {
    case 'notify':
      return openNotifyChannel({ user: owner.user, watchdogMs: probe.watchdogMs, events });
    case 'fd':
      return openFdChannel(probe.fd);
    default:
      return undefined;
  }
}
