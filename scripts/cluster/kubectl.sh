#!/usr/bin/env bash
# kubectl (the tier's own build, kubernetes $KUBERNETES_VERSION) against the
# cluster up.sh started:  scripts/cluster/kubectl.sh get pods -A
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/versions.sh"
. "$here/env.sh"
exec "$CLUSTER_BIN/kube" kubectl --kubeconfig="$KUBECONFIG_FILE" "$@"
