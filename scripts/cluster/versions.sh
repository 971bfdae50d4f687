# The one place the cluster tier's versions are pinned (sourced by build.sh,
# up.sh and the tests' global setup through `bash -c '. versions.sh; ...'`).
# kubernetes: the newest 1.37.x the Go module proxy serves; its staging
# modules (k8s.io/api, k8s.io/client-go, ...) at the matching v0.37.x.
KUBERNETES_VERSION=v1.37.2
KUBERNETES_STAGING_VERSION=v0.37.2
# etcd: the server module k8s.io/kubernetes v1.37.2 itself requires, linked
# into the same multi-call binary so its packages build once with the rest.
ETCD_VERSION=v3.7.0
# containerd: >= 2.1 for image volumes (Debian 12 ships 1.6).
CONTAINERD_VERSION=v2.3.7
# runc: built too, since Debian 12's 1.1.5 cannot start containerd 2.3's pod
# sandboxes ("runc create failed: unable to start container process: can't
# get final child's PID from pipe: EOF"); with seccomp (libseccomp-dev).
RUNC_VERSION=v1.5.3
# The Go toolchain every build uses (k8s.io/kubernetes v1.37.2 says go 1.26.0).
GO_TOOLCHAIN=go1.26.8
# Where the built binaries are kept, by version, outside any checkout.
CLUSTER_CACHE=${SIDECAR_INIT_CLUSTER_CACHE:-/var/cache/sidecar-init-cluster}
CLUSTER_BIN="$CLUSTER_CACHE/kubernetes-$KUBERNETES_VERSION-etcd-$ETCD_VERSION-containerd-$CONTAINERD_VERSION-runc-$RUNC_VERSION"
