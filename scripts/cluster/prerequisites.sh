#!/usr/bin/env bash
# What the cluster tier needs from Debian, installed if missing: libseccomp-dev
# and pkg-config (build.sh builds runc with seccomp), the CNI plugins (bridge, host-local, loopback), openssl and curl for up.sh,
# iproute2 for down.sh. The Go toolchain is the machine's (versions.sh pins
# the one every build uses). podman builds the images (scripts/podman/setup.sh).
set -euo pipefail
missing=()
[ -e /usr/include/seccomp.h ] || missing+=(libseccomp-dev)
command -v pkg-config >/dev/null 2>&1 || missing+=(pkg-config)
command -v gcc >/dev/null 2>&1 || missing+=(gcc)
[ -x /usr/lib/cni/bridge ] || missing+=(containernetworking-plugins)
command -v openssl >/dev/null 2>&1 || missing+=(openssl)
command -v curl >/dev/null 2>&1 || missing+=(curl)
command -v ip >/dev/null 2>&1 || missing+=(iproute2)
command -v go >/dev/null 2>&1 || { echo "prerequisites.sh: no Go toolchain on PATH (the polyglot machines have one)" >&2; exit 1; }
if [ "${#missing[@]}" -gt 0 ]; then
  apt-get update
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
fi
