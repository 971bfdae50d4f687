// The states `--announce FILE` writes and `--until FILE=STATE` waits for,
// shared by the config (which parses STATE), the lifecycle (which derives the
// state) and the file reader (which checks what another container wrote).

/** In the order a run goes through them; a wait for one is over at it or any later one. */
export const ANNOUNCED_STATES = ['starting', 'ready', 'stopping', 'exited'] as const;
export type AnnouncedState = (typeof ANNOUNCED_STATES)[number];

export interface Announcement {
  readonly state: AnnouncedState;
  /** With `exited`: the code that sidecar-init exits with. */
  readonly exitCode?: number | undefined;
}

export function isAnnouncedState(text: unknown): text is AnnouncedState {
  return (ANNOUNCED_STATES as readonly unknown[]).includes(text);
}

/** Whether `seen` is `wanted` or a later state. */
export function hasReached(seen: AnnouncedState, wanted: AnnouncedState): boolean {
  return ANNOUNCED_STATES.indexOf(seen) >= ANNOUNCED_STATES.indexOf(wanted);
}
