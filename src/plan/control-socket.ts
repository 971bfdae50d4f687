// Where the control socket is when no --control PATH is given.

/**
 * The socket sidecar-init opens when no path is given, and where `ctl` looks
 * without --control: one folder per uid, as tmux's, so `ctl` run as that uid
 * (kubectl exec runs as the container's user) finds it. /tmp because it is
 * writable by every uid in a container, /run and $HOME are not; the folder is
 * sidecar-init's own (mode 0700, checked when it already exists:
 * control-dir.ts), so nobody else can put a socket where ctl looks, and
 * /tmp's sticky bit keeps anyone else from renaming or removing it.
 */
export function defaultControlPath(uid: number): string {
  return `${defaultControlDir(uid)}/control.sock`;
}

export function defaultControlDir(uid: number): string {
  return `/tmp/sidecar-init-${uid}`;
}
