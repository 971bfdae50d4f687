# Where a running cluster keeps everything (sourced by up.sh, down.sh and
# kubectl.sh after versions.sh). All of it under one folder outside the
# checkout, so down.sh removes it whole.
CLUSTER_STATE=${SIDECAR_INIT_CLUSTER_STATE:-/var/lib/sidecar-init-cluster}
# The node's name is its address (as Kubernetes' hack/local-up-cluster.sh has
# it): the API server reaches the kubelet at its Hostname address, 127.0.0.1,
# and the kubelet refuses a loopback --node-ip.
CLUSTER_NODE=127.0.0.1
KUBECONFIG_FILE=$CLUSTER_STATE/admin.kubeconfig
CONTAINERD_SOCK=$CLUSTER_STATE/containerd/containerd.sock
# The pods' bridge: its own name and addresses, no gateway for the pods and no
# masquerading, so a pod reaches this host's bridge address and other pods and
# nothing else. The Service range is only allocated: there is no kube-proxy.
CNI_BRIDGE=sidecarinit0
POD_SUBNET=10.244.0.0/24
SERVICE_RANGE=10.96.0.0/24
