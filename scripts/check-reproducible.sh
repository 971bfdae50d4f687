#!/usr/bin/env bash
# Checks that the executable is reproducible: builds it twice, each time in a
# fresh clone of HEAD (in folders of different names and lengths, so a path
# that leaks into the build shows), and compares the two byte for byte.
#
#   scripts/check-reproducible.sh [x64|arm64 ...]    default: this machine's architecture
#
# Builds what HEAD holds, not the work tree's uncommitted changes. On a
# difference it says how many bytes differ and which input of the executable
# (the bundle, the addon, the launcher, the glibc runtime's list) differs too; docs/release.md says how to look closer.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
commit=$(git -C "$root" rev-parse HEAD)
arches=("$@")
[ "${#arches[@]}" -gt 0 ] || arches=("$(node -p process.arch)")

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
clones=("$work/a" "$work/second-clone/of-the-same-commit")

for clone in "${clones[@]}"; do
  mkdir -p "$(dirname "$clone")"
  git clone --quiet --no-checkout "$root" "$clone"
  git -C "$clone" checkout --quiet --detach "$commit"
  (
    cd "$clone"
    npm ci --no-audit --no-fund --loglevel=error >/dev/null
    for arch in "${arches[@]}"; do
      npm run --silent build:binary -- --arch "$arch"
    done
  )
done

executable() {
  if [ "$2" = "$(node -p process.arch)" ]; then echo "$1/dist/sidecar-init"; else echo "$1/dist/sidecar-init-linux-$2"; fi
}

status=0
for arch in "${arches[@]}"; do
  first=$(executable "${clones[0]}" "$arch")
  second=$(executable "${clones[1]}" "$arch")
  if cmp --quiet "$first" "$second"; then
    echo "reproducible: linux-$arch executable of $commit, sha256 $(sha256sum "$first" | cut -d' ' -f1), identical in two clones"
    continue
  fi
  status=1
  echo "NOT reproducible: linux-$arch executables of $commit differ in $(cmp -l "$first" "$second" | wc -l) bytes, the first at $(cmp "$first" "$second" | awk '{print $5}' | tr -d ,)" >&2
  for part in dist/sidecar-init.cjs "${clones[0]}"/dist/assets/*.cjs "dist/native/reaper-linux-$arch.node" "dist/launcher/launcher-linux-$arch" "dist/runtime-linux-$arch.json"; do
    part=${part#"${clones[0]}/"}
    cmp --quiet "${clones[0]}/$part" "${clones[1]}/$part" || echo "  $part differs too" >&2
  done
done
exit "$status"
