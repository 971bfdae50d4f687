#!/usr/bin/env bash
# Prepares this machine to run Kubernetes Pod manifests with podman, for the
# container test tier. Idempotent: installs only what is missing and rewrites
# only its own file, /etc/containers/containers.conf. Needs root.
#
#   scripts/podman/setup.sh
#
# Why each setting:
#   runtime = "runc"          crun cannot create containers on hosts with hybrid
#                             (v1 + v2) cgroups; runc can.
#   cgroup_manager = cgroupfs systemd is not PID 1 in CI containers, so there is
#                             no systemd cgroup manager to ask.
#   default_ulimits           podman's default rlimits exceed what such hosts
#                             allow and container creation fails; ask for less.
set -euo pipefail

if [ "$(id -u)" -ne 0 ]; then
  echo "setup.sh: run as root (it installs packages and writes /etc/containers/containers.conf)" >&2
  exit 1
fi

missing=()
command -v podman >/dev/null 2>&1 || missing+=(podman)
command -v runc >/dev/null 2>&1 || missing+=(runc)
command -v mmdebstrap >/dev/null 2>&1 || missing+=(mmdebstrap)
command -v newuidmap >/dev/null 2>&1 || missing+=(uidmap)
# A pod's infra container (Kubernetes' pause) is built locally from catatonit
# when no registry is reachable; without it `podman kube play` fails.
command -v catatonit >/dev/null 2>&1 || [ -x /usr/libexec/podman/catatonit ] || missing+=(catatonit)
if [ "${#missing[@]}" -gt 0 ]; then
  apt-get update
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
fi

conf=/etc/containers/containers.conf
wanted='# Written by sidecar-init scripts/podman/setup.sh.
[containers]
default_ulimits = ["nofile=4096:4096", "nproc=4096:4096"]

[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"'
if [ ! -f "$conf" ] || [ "$(cat "$conf")" != "$wanted" ]; then
  if [ -f "$conf" ] && ! grep -q '^# Written by sidecar-init' "$conf"; then
    cp "$conf" "$conf.before-sidecar-init"
    echo "setup.sh: kept the previous $conf as $conf.before-sidecar-init" >&2
  fi
  mkdir -p /etc/containers
  printf '%s\n' "$wanted" >"$conf"
fi
echo "podman ready: $(podman --version), runtime runc, cgroupfs"
