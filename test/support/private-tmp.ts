import { FIXTURES } from './supervisor.ts';

/** Where the wrapper binds the executable's folder, the fixtures and the event file's folder. */
export const PRIVATE_BIN = '/mnt/bin';
export const PRIVATE_FIXTURES = '/mnt/fixtures';

export interface PrivateTmpOptions {
  /** Fresh tmpfs over /dev/shm, /tmp and /var/tmp: writable by anyone (1777), or read-only. */
  readonly tmp: 'writable' | 'read-only';
  /** Shell run as root once they are mounted, before sidecar-init starts: e.g. what another user leaves there. */
  readonly prepare?: string;
  /** After sidecar-init exits, write what /dev/shm, /tmp and /var/tmp hold, one path a line, to tmp-after beside $EVENTS. */
  readonly listAfter?: boolean;
  /** The executable to start instead of the one under test (the wrapper gets that one as its first argument). */
  readonly executable?: string;
}

/**
 * A startSupervisor wrapper that runs the single executable as PID 1 of a new
 * PID namespace, in a private mount namespace whose /dev/shm, /tmp and /var/tmp
 * are fresh tmpfs, so a test can plant or forbid anything there without
 * touching the machine's. The executable's folder is bound read-only to
 * /mnt/bin (as on a read-only root), the fixtures to /mnt/fixtures and the
 * folder of $EVENTS to /mnt/events first, and it starts in /: a checkout under
 * /tmp would be hidden.
 * TMPDIR, XDG_RUNTIME_DIR and SIDECAR_INIT_NATIVE_DIR are unset, so the
 * executable has only those three places and the folder it runs from.
 */
const RUN_AS_PID1 = `unshare --pid --fork --mount-proc "${PRIVATE_BIN}/$(basename "$bin")" "$@"`;
const RUN_THEN_LIST = [
  'set +e',
  RUN_AS_PID1,
  'status=$?',
  'for dir in /dev/shm /tmp /var/tmp; do ls -A "$dir" | sed "s|^|$dir/|"; done > "$(dirname "$EVENTS")/tmp-after"',
  'exit "$status"',
].join('\n');

export function privateTmpWrapper(options: PrivateTmpOptions): string[] {
  const tmpOptions = options.tmp === 'read-only' ? 'ro,mode=1777,size=1m' : 'mode=1777,size=4m';
  const script = [
    'set -e',
    'if [ -n "$EXECUTABLE" ]; then bin=$EXECUTABLE; else bin=$1; fi; shift',
    'mount -t tmpfs -o size=1m tmpfs /mnt',
    `mkdir ${PRIVATE_BIN} ${PRIVATE_FIXTURES} /mnt/events`,
    `mount --bind "$(dirname "$bin")" ${PRIVATE_BIN}`,
    `mount -o remount,bind,ro ${PRIVATE_BIN}`,
    `mount --bind "$FIXTURES" ${PRIVATE_FIXTURES}`,
    'if [ -n "$EVENTS" ]; then mount --bind "$(dirname "$EVENTS")" /mnt/events; EVENTS="/mnt/events/$(basename "$EVENTS")"; export EVENTS; fi',
    `for dir in /dev/shm /tmp /var/tmp; do mount -t tmpfs -o ${tmpOptions} tmpfs "$dir"; done`,
    'unset TMPDIR XDG_RUNTIME_DIR SIDECAR_INIT_NATIVE_DIR FIXTURES EXECUTABLE',
    // A checkout under /tmp is hidden now: a working folder there would not exist for sidecar-init.
    'cd /',
    options.prepare ?? ':',
    options.listAfter === true ? RUN_THEN_LIST : `exec ${RUN_AS_PID1}`,
  ].join('\n');
  return [
    'env',
    `FIXTURES=${FIXTURES}`,
    `EXECUTABLE=${options.executable ?? ''}`,
    'unshare',
    '--mount',
    '--propagation',
    'private',
    'sh',
    '-c',
    script,
    'private-tmp',
  ];
}
