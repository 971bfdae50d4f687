#!/usr/bin/env bash
# Builds a Debian bookworm base image for podman from Debian packages alone
# (no image registry needed): mmdebstrap a minimal rootfs, then podman import.
# Skips the build when the image already exists.
#
#   scripts/podman/base-image.sh NAME [EXTRA_PACKAGES]
#
#   NAME            image name, e.g. localhost/sidecar-init-base
#   EXTRA_PACKAGES  comma-separated Debian packages besides ca-certificates,
#                   e.g. python3,procps
#
# Environment: MIRROR (default http://deb.debian.org/debian); VARIANT (default
# minbase): extract unpacks EXTRA_PACKAGES and their dependencies only, with no
# package manager, shell or ca-certificates (a glibc base for one executable).
set -euo pipefail

if [ "$#" -lt 1 ] || [ "$#" -gt 2 ]; then
  echo "usage: $0 NAME [EXTRA_PACKAGES]" >&2
  exit 2
fi
name=$1
variant=${VARIANT:-minbase}
if [ "$variant" = extract ]; then packages=$2; else packages=ca-certificates${2:+,$2}; fi

if podman image exists "$name"; then
  echo "image $name exists"
  exit 0
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mmdebstrap --variant="$variant" --include="$packages" bookworm "$work/rootfs.tar" ${MIRROR:-}
podman import \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  "$work/rootfs.tar" "$name"
echo "image $name built with $packages"
