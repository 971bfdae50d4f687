#!/usr/bin/env bash
# Stops what up.sh started and leaves nothing: the kubelet first (so it
# restarts nothing), every pod's containers and shims, containerd, the control
# plane, etcd; then the pods' mounts, network namespaces, bridge and cgroups,
# and $CLUSTER_STATE itself. Idempotent: a second run finds nothing to do.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/versions.sh"
. "$here/env.sh"
s=$CLUSTER_STATE
export PATH="$CLUSTER_BIN:$PATH"

stop() { # name: SIGTERM, then SIGKILL after 10 s; only the pid up.sh recorded
  local file=$s/pids/$1 pid
  [ -f "$file" ] || return 0
  pid=$(cat "$file")
  if kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid" 2>/dev/null
    for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null
  fi
  rm -f "$file"
}

stop kubelet
# Every pod's processes: kill the tasks, then the shims (each one of
# $CLUSTER_BIN/containerd-shim-runc-v2, found by its executable's path).
if [ -S "$CONTAINERD_SOCK" ]; then
  for task in $(ctr --address "$CONTAINERD_SOCK" -n k8s.io tasks ls -q 2>/dev/null); do
    ctr --address "$CONTAINERD_SOCK" -n k8s.io tasks kill -s SIGKILL "$task" >/dev/null 2>&1
  done
fi
stop containerd
for p in /proc/[0-9]*; do
  [ "$(readlink "$p/exe" 2>/dev/null)" = "$CLUSTER_BIN/containerd-shim-runc-v2" ] && kill -KILL "${p#/proc/}" 2>/dev/null
done
# The containers' own processes, by the cgroup the kubelet put them in.
for procs in /sys/fs/cgroup/pids/kubepods/cgroup.procs /sys/fs/cgroup/pids/kubepods/*/cgroup.procs /sys/fs/cgroup/pids/kubepods/*/*/cgroup.procs /sys/fs/cgroup/pids/kubepods/*/*/*/cgroup.procs; do
  [ -f "$procs" ] || continue
  while read -r pid; do kill -KILL "$pid" 2>/dev/null; done <"$procs"
done
stop kube-scheduler
stop kube-controller-manager
stop kube-apiserver
stop etcd

# Mounts under the state folder (kubelet volumes, containerd's rootfs and
# snapshots), deepest first.
if [ -d "$s" ]; then
  findmnt -rn -o TARGET | grep -F "$s/" | sort -r | while read -r target; do
    umount "$target" 2>/dev/null || umount -l "$target" 2>/dev/null
  done
fi
# The pods' network namespaces that containerd made (cni-*) and the bridge.
for ns in /var/run/netns/cni-*; do
  [ -e "$ns" ] || continue
  umount "$ns" 2>/dev/null
  rm -f "$ns"
done
ip link delete "$CNI_BRIDGE" 2>/dev/null
# The kubelet's cgroups (kubepods), deepest first, in every hierarchy.
for root in /sys/fs/cgroup/*/; do
  [ -d "$root/kubepods" ] || continue
  find "$root/kubepods" -depth -type d -exec rmdir {} \; 2>/dev/null
done
rm -rf "$s"
echo "down.sh: cluster stopped, $s removed"
