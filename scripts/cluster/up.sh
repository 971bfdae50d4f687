#!/usr/bin/env bash
# Starts a single-node Kubernetes on this machine, everything on 127.0.0.1:
# etcd, kube-apiserver, kube-controller-manager, kube-scheduler, containerd and
# kubelet, from the binaries build.sh made (run it first, or let
# `npm run test:cluster` do both). Needs root. Leaves an admin kubeconfig at
# $CLUSTER_STATE/admin.kubeconfig (scripts/cluster/kubectl.sh uses it) and
# returns once the node is Ready. scripts/cluster/down.sh stops it all.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/versions.sh"
. "$here/env.sh"
[ "$(id -u)" -eq 0 ] || { echo "up.sh: run as root (kubelet and containerd need it)" >&2; exit 1; }
for b in kube containerd containerd-shim-runc-v2 ctr runc; do
  [ -x "$CLUSTER_BIN/$b" ] || { echo "up.sh: $CLUSTER_BIN/$b missing: run scripts/cluster/build.sh first" >&2; exit 1; }
done
runc=$CLUSTER_BIN/runc
[ -x /usr/lib/cni/bridge ] || { echo "up.sh: /usr/lib/cni/bridge missing: bash scripts/cluster/prerequisites.sh" >&2; exit 1; }
if [ -e "$CLUSTER_STATE/pids" ]; then
  echo "up.sh: a cluster is already up ($CLUSTER_STATE): scripts/cluster/down.sh first" >&2
  exit 1
fi
export PATH="$CLUSTER_BIN:$PATH"
s=$CLUSTER_STATE
mkdir -p "$s"/{pki,etcd,logs,containerd,cni/net.d,cni/ipam,kubelet,pods} "$s/pids"
chmod 700 "$s"

# --- certificates: one CA, the apiserver's serving certificate, a client
# certificate for each component (all in system:masters: a test cluster's
# components need not be told apart by RBAC), the service-account key pair.
pki=$s/pki
openssl genrsa -out "$pki/ca.key" 2048 2>/dev/null
openssl req -x509 -new -key "$pki/ca.key" -subj "/CN=sidecar-init-cluster-ca" -days 30 -out "$pki/ca.crt" 2>/dev/null
sign() { # name subject [extensions]
  openssl genrsa -out "$pki/$1.key" 2048 2>/dev/null
  openssl req -new -key "$pki/$1.key" -subj "$2" -out "$pki/$1.csr" 2>/dev/null
  printf '%s\n' "${3:-extendedKeyUsage=clientAuth}" >"$pki/$1.ext"
  openssl x509 -req -in "$pki/$1.csr" -CA "$pki/ca.crt" -CAkey "$pki/ca.key" -CAcreateserial -days 30 \
    -extfile "$pki/$1.ext" -out "$pki/$1.crt" 2>/dev/null
}
service_ip=${SERVICE_RANGE%.0/*}.1
sign apiserver "/CN=kube-apiserver" "extendedKeyUsage=serverAuth
subjectAltName=IP:127.0.0.1,IP:$service_ip,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local"
sign admin "/O=system:masters/CN=admin"
sign apiserver-kubelet-client "/O=system:masters/CN=kube-apiserver-kubelet-client"
sign controller-manager "/O=system:masters/CN=system:kube-controller-manager"
sign scheduler "/O=system:masters/CN=system:kube-scheduler"
sign kubelet "/O=system:nodes/O=system:masters/CN=system:node:$CLUSTER_NODE"
openssl genrsa -out "$pki/sa.key" 2048 2>/dev/null
openssl rsa -in "$pki/sa.key" -pubout -out "$pki/sa.pub" 2>/dev/null

kubeconfig() { # name
  cat >"$s/$1.kubeconfig" <<KC
apiVersion: v1
kind: Config
clusters:
- name: sidecar-init
  cluster:
    server: https://127.0.0.1:6443
    certificate-authority: $pki/ca.crt
users:
- name: $1
  user:
    client-certificate: $pki/$1.crt
    client-key: $pki/$1.key
contexts:
- name: sidecar-init
  context: {cluster: sidecar-init, user: $1}
current-context: sidecar-init
KC
}
for c in admin controller-manager scheduler kubelet; do kubeconfig "$c"; done

start() { # name command...: in the background, its log and pid kept
  local name=$1
  shift
  setsid "$@" >"$s/logs/$name.log" 2>&1 </dev/null &
  echo $! >"$s/pids/$name"
}
wait_for() { # what seconds command...
  local what=$1 seconds=$2
  shift 2
  local deadline=$(($(date +%s) + seconds))
  until "$@" >/dev/null 2>&1; do
    if [ "$(date +%s)" -ge "$deadline" ]; then
      echo "up.sh: $what not ready after ${seconds}s; its log:" >&2
      tail -n 30 "$s/logs/$what.log" >&2 || true
      exit 1
    fi
    sleep 0.5
  done
}
alive() { kill -0 "$(cat "$s/pids/$1")"; }

# --- etcd, plain HTTP on loopback.
start etcd kube etcd --name default --data-dir "$s/etcd/data" \
  --listen-client-urls http://127.0.0.1:2379 --advertise-client-urls http://127.0.0.1:2379 \
  --listen-peer-urls http://127.0.0.1:2380 --initial-advertise-peer-urls http://127.0.0.1:2380 \
  --initial-cluster default=http://127.0.0.1:2380 --listen-metrics-urls http://127.0.0.1:2381 \
  --unsafe-no-fsync
wait_for etcd 60 curl -fsS http://127.0.0.1:2381/health

# --- kube-apiserver. --enable-aggregator-routing: the API server calls a
# webhook's Service at its pod's address (there is no kube-proxy for the
# Service's cluster IP). --endpoint-reconciler-type=none: its own address is
# loopback, which an Endpoints object may not hold.
start kube-apiserver kube kube-apiserver \
  --etcd-servers=http://127.0.0.1:2379 \
  --bind-address=127.0.0.1 --advertise-address=127.0.0.1 --secure-port=6443 \
  --tls-cert-file="$pki/apiserver.crt" --tls-private-key-file="$pki/apiserver.key" \
  --client-ca-file="$pki/ca.crt" \
  --kubelet-client-certificate="$pki/apiserver-kubelet-client.crt" --kubelet-client-key="$pki/apiserver-kubelet-client.key" \
  --service-account-key-file="$pki/sa.pub" --service-account-signing-key-file="$pki/sa.key" \
  --service-account-issuer=https://kubernetes.default.svc.cluster.local \
  --service-cluster-ip-range="$SERVICE_RANGE" \
  --authorization-mode=RBAC --allow-privileged=true \
  --enable-aggregator-routing=true --endpoint-reconciler-type=none \
  --kubelet-preferred-address-types=Hostname \
  --profiling=false
wait_for kube-apiserver 180 curl -fsS --cacert "$pki/ca.crt" --cert "$pki/admin.crt" --key "$pki/admin.key" https://127.0.0.1:6443/readyz

start kube-controller-manager kube kube-controller-manager \
  --kubeconfig="$s/controller-manager.kubeconfig" \
  --authentication-kubeconfig="$s/controller-manager.kubeconfig" --authorization-kubeconfig="$s/controller-manager.kubeconfig" \
  --bind-address=127.0.0.1 --secure-port=10257 --leader-elect=false \
  --service-account-private-key-file="$pki/sa.key" --root-ca-file="$pki/ca.crt" \
  --cluster-signing-cert-file="$pki/ca.crt" --cluster-signing-key-file="$pki/ca.key" \
  --use-service-account-credentials=false --allocate-node-cidrs=false \
  --profiling=false
start kube-scheduler kube kube-scheduler \
  --kubeconfig="$s/scheduler.kubeconfig" \
  --authentication-kubeconfig="$s/scheduler.kubeconfig" --authorization-kubeconfig="$s/scheduler.kubeconfig" \
  --bind-address=127.0.0.1 --secure-port=10259 --leader-elect=false \
  --profiling=false

# --- the pods' network: a bridge of its own, host-local addresses, no gateway
# or masquerade for the pods (nothing they send leaves this machine).
cat >"$s/cni/net.d/10-sidecar-init.conflist" <<CNI
{
  "cniVersion": "1.0.0",
  "name": "sidecar-init",
  "plugins": [
    {
      "type": "bridge",
      "bridge": "$CNI_BRIDGE",
      "isGateway": true,
      "isDefaultGateway": false,
      "ipMasq": false,
      "hairpinMode": true,
      "ipam": {
        "type": "host-local",
        "dataDir": "$s/cni/ipam",
        "ranges": [[{"subnet": "$POD_SUBNET"}]]
      }
    },
    {"type": "loopback"}
  ]
}
CNI

# --- containerd with its CRI plugin, its own root, state and socket; the runc
# build.sh made; the sandbox image is the stand-in pause the tier builds
# (nothing is pulled).
cat >"$s/containerd/config.toml" <<TOML
version = 3
root = "$s/containerd/root"
state = "$s/containerd/state"
[grpc]
  address = "$CONTAINERD_SOCK"
[ttrpc]
  address = "$CONTAINERD_SOCK.ttrpc"
[debug]
  address = "$CONTAINERD_SOCK.debug"
[metrics]
  address = ""
[plugins.'io.containerd.cri.v1.runtime']
  enable_selinux = false
  # These machines' root lacks CAP_SYS_RESOURCE, so no process may lower its
  # oom_score_adj below 0 and runc fails the kubelet's -998 for the sandbox
  # ("nsexec: failed to update /proc/self/oom_score_adj: Permission denied"):
  # kept no lower than containerd's own.
  restrict_oom_score_adj = true
  [plugins.'io.containerd.cri.v1.runtime'.containerd]
    default_runtime_name = 'runc'
    [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc]
      runtime_type = 'io.containerd.runc.v2'
      [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc.options]
        BinaryName = '$runc'
        SystemdCgroup = false
  [plugins.'io.containerd.cri.v1.runtime'.cni]
    bin_dirs = ['/usr/lib/cni']
    conf_dir = '$s/cni/net.d'
[plugins.'io.containerd.cri.v1.images']
  snapshotter = 'overlayfs'
  [plugins.'io.containerd.cri.v1.images'.pinned_images]
    sandbox = 'registry.k8s.io/pause:3.10.1'
[plugins.'io.containerd.grpc.v1.cri']
  stream_server_address = '127.0.0.1'
  stream_server_port = '0'
TOML
start containerd containerd --config "$s/containerd/config.toml"
wait_for containerd 60 ctr --address "$CONTAINERD_SOCK" version


# --- kubelet: cgroupfs and failCgroupV1: false (these machines have hybrid
# cgroup v1); on 127.0.0.1; its image garbage collection off, so the imported
# images stay.
cat >"$s/kubelet/config.yaml" <<KUBELET
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: 127.0.0.1
port: 10250
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
healthzPort: 10248
cgroupDriver: cgroupfs
failCgroupV1: false
failSwapOn: false
containerRuntimeEndpoint: unix://$CONTAINERD_SOCK
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: false}
  x509: {clientCAFile: $pki/ca.crt}
authorization: {mode: AlwaysAllow}
tlsCertFile: $pki/apiserver.crt
tlsPrivateKeyFile: $pki/apiserver.key
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
imageMinimumGCAge: 8760h
evictionHard: {memory.available: "100Mi", nodefs.available: "1%", imagefs.available: "1%", nodefs.inodesFree: "1%"}
enforceNodeAllocatable: []
serializeImagePulls: false
registerNode: true
resolvConf: ""
podPidsLimit: 4096
KUBELET
start kubelet kube kubelet \
  --config="$s/kubelet/config.yaml" --kubeconfig="$s/kubelet.kubeconfig" \
  --root-dir="$s/kubelet/root" --cert-dir="$s/kubelet/pki" \
  --hostname-override="$CLUSTER_NODE"
kubectl() { kube kubectl --kubeconfig="$KUBECONFIG_FILE" "$@"; }
wait_for kubelet 180 kubectl get node "$CLUSTER_NODE"
for c in kube-controller-manager kube-scheduler; do alive "$c" || { echo "up.sh: $c exited; its log:" >&2; tail -n 30 "$s/logs/$c.log" >&2; exit 1; }; done
kubectl wait --for=condition=Ready "node/$CLUSTER_NODE" --timeout=180s >/dev/null
wait_for kube-controller-manager 120 kubectl get serviceaccount default -n default
echo "up.sh: Kubernetes $KUBERNETES_VERSION, containerd $CONTAINERD_VERSION: node $CLUSTER_NODE Ready; KUBECONFIG=$KUBECONFIG_FILE"
