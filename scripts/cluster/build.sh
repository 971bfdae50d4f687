#!/usr/bin/env bash
# Builds what the cluster tier runs, once per pinned version, into
# $CLUSTER_BIN (outside the checkout; versions.sh): the multi-call `kube`
# (etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kubelet,
# kubectl; scripts/cluster/kube) and containerd, containerd-shim-runc-v2 and
# ctr, and runc. A second run finds them and returns in a second. The CNI
# plugins come from Debian (scripts/cluster/prerequisites.sh).
# Builds run at nice 19, one package at a time, so the machine's other work
# keeps a core.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/versions.sh"
export GOTOOLCHAIN=$GO_TOOLCHAIN
export GOMODCACHE=${GOMODCACHE:-$CLUSTER_CACHE/gomod} GOCACHE=${GOCACHE:-$CLUSTER_CACHE/gocache}
export GOFLAGS="-p=1 -trimpath -buildvcs=false"
mkdir -p "$CLUSTER_BIN"
build() { nice -n 19 go "$@"; }
started=$(date +%s)

if [ ! -x "$CLUSTER_BIN/kube" ]; then
  echo "build.sh: kube (kubernetes $KUBERNETES_VERSION, etcd $ETCD_VERSION) -> $CLUSTER_BIN/kube"
  minor=$(echo "$KUBERNETES_VERSION" | cut -d. -f2)
  v=k8s.io/component-base/version
  cv=k8s.io/client-go/pkg/version
  ldflags="-s -w"
  for p in $v $cv; do
    ldflags="$ldflags -X $p.gitVersion=$KUBERNETES_VERSION -X $p.gitMajor=1 -X $p.gitMinor=$minor -X $p.gitTreeState=clean -X $p.buildDate=1970-01-01T00:00:00Z"
  done
  (cd "$here/kube" && CGO_ENABLED=0 build build -mod=readonly -ldflags "$ldflags" -o "$CLUSTER_BIN/kube.tmp" .)
  mv "$CLUSTER_BIN/kube.tmp" "$CLUSTER_BIN/kube"
fi

for cmd in containerd containerd-shim-runc-v2 ctr; do
  [ -x "$CLUSTER_BIN/$cmd" ] && continue
  echo "build.sh: $cmd (containerd $CONTAINERD_VERSION) -> $CLUSTER_BIN/$cmd"
  # no_btrfs: no btrfs headers needed; the tier uses the overlayfs snapshotter.
  tmp=$(mktemp -d)
  CGO_ENABLED=0 GOBIN=$tmp build install -tags "no_btrfs no_devmapper no_zfs" -ldflags "-s -w -X github.com/containerd/containerd/v2/version.Version=$CONTAINERD_VERSION" \
    "github.com/containerd/containerd/v2/cmd/$cmd@$CONTAINERD_VERSION"
  mv "$tmp/$cmd" "$CLUSTER_BIN/$cmd"
  rmdir "$tmp"
done
if [ ! -x "$CLUSTER_BIN/runc" ]; then
  echo "build.sh: runc $RUNC_VERSION -> $CLUSTER_BIN/runc"
  tmp=$(mktemp -d)
  CGO_ENABLED=1 GOBIN=$tmp build install -tags seccomp -ldflags "-s -w -X main.version=${RUNC_VERSION#v}" \
    "github.com/opencontainers/runc@$RUNC_VERSION"
  mv "$tmp/runc" "$CLUSTER_BIN/runc"
  rmdir "$tmp"
fi
for c in etcd kube-apiserver kube-controller-manager kube-scheduler kubelet kubectl; do
  ln -sfn kube "$CLUSTER_BIN/$c"
done
echo "build.sh: $CLUSTER_BIN ready in $(( $(date +%s) - started ))s"
