#!/usr/bin/env bash
# Imports the tier's images (the OCI archives test/cluster/global-setup.ts
# saves into $CLUSTER_CACHE/images: the pod tier's images and the pause
# stand-in) into the running cluster's containerd, namespace k8s.io, where
# the kubelet finds them without pulling. up.sh starts containerd empty, so
# after starting a cluster by hand: bash scripts/cluster/import-images.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/versions.sh"
. "$here/env.sh"
images=$CLUSTER_CACHE/images
shopt -s nullglob
archives=("$images"/*.oci.tar)
[ ${#archives[@]} -gt 0 ] || {
  echo "import-images.sh: no archives in $images: run npm run test:cluster once (its global setup builds and saves them)" >&2
  exit 1
}
for archive in "${archives[@]}"; do
  "$CLUSTER_BIN/ctr" --address "$CONTAINERD_SOCK" -n k8s.io images import --digests "$archive" >/dev/null
done
echo "import-images.sh: ${#archives[@]} images imported into containerd (k8s.io)"
