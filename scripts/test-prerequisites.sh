#!/usr/bin/env bash
# The programs sidecar-init's tests run besides Node, and the Debian packages
# that bring them: the one list, which `npm test` (and `npm run test:binary`)
# checks first and .ci/run uses for its extra steps. As root, installs what is
# missing (apt-get update once, then apt-get install --no-install-recommends);
# as anyone else, stops at once and prints the apt-get line to run as root.
# With nothing missing it only looks (a few milliseconds) and prints nothing.
#
#   scripts/test-prerequisites.sh [test] [binary] [arm64]
#
#   test    what `npm test` needs (the default)
#   binary  also what `npm run test:binary` needs
#   arm64   also what the arm64 executable and `npm pack` need
#
# A check asks for the program (or module) itself, not the package, so a
# machine that has it from elsewhere is left alone.
set -euo pipefail

missing=()
has() { command -v "$1" >/dev/null 2>&1; }
need() { # need PROGRAM PACKAGE...
  local program=$1
  shift
  has "$program" || missing+=("$@")
}

want_test() {
  # npm run build compiles the native reaper addon with the C compiler.
  need cc gcc libc6-dev
  # The PID-1 tests run the supervisor as PID 1 of a new PID namespace
  # (unshare); other uids through setpriv; a terminal through script.
  need unshare util-linux
  need setpriv util-linux
  need script bsdutils
  # Readiness by notification: Debian's own systemd-notify, and s6-svscan's
  # -d notification descriptor (test/notify-readiness.test.ts).
  need systemd-notify systemd
  need s6-svscan s6
  # The webhook tests serve HTTPS with a certificate openssl makes.
  need openssl openssl
  # Peers written in Python (sockets, notify speakers, named processes) run
  # under Debian's python3; /metrics is checked with Prometheus' own text
  # parser, python3-prometheus-client, which apt installs for that python3
  # (test/support/prometheus-parser.ts), whatever else is first on PATH.
  if [ ! -x /usr/bin/python3 ]; then
    missing+=(python3 python3-prometheus-client)
  elif ! /usr/bin/python3 -c 'import prometheus_client' >/dev/null 2>&1; then
    missing+=(python3-prometheus-client)
  fi
  # `version --json` is checked against the commit the build stamped (git).
  need git git
}

want_binary() {
  # The executable is stripped of Node's debug symbols (binutils), and strace
  # counts the files it creates (test/addon-placement.test.ts), holds install
  # stopped while a neighbour swaps its files and lists every call install
  # makes by a name in DIR (test/install.test.ts).
  need strip binutils
  need strace strace
  # The executable in app images without glibc (test/any-image.test.ts): a root
  # holding only busybox-static, and one holding only musl's loader and a
  # program musl-gcc built (musl-tools brings musl).
  need busybox busybox-static
  need musl-gcc musl-tools
}

want_arm64() {
  # The arm64 addon is cross-compiled (npm pack carries both); the arm64
  # executable is run under qemu-user.
  need aarch64-linux-gnu-gcc gcc-aarch64-linux-gnu libc6-dev-arm64-cross
  need qemu-aarch64-static qemu-user-static
}

[ "$#" -gt 0 ] || set -- test
collect() {
  missing=()
  local tier
  for tier in "$@"; do
    case "$tier" in
      test) want_test ;;
      binary) want_test && want_binary ;;
      arm64) want_arm64 ;;
      *)
        echo "test-prerequisites.sh: unknown set $tier (known: test, binary, arm64)" >&2
        exit 2
        ;;
    esac
  done
}
collect "$@"
[ "${#missing[@]}" -gt 0 ] || exit 0

# Each package once, in the order first asked for.
packages=$(printf '%s\n' "${missing[@]}" | awk '!seen[$0]++' | tr '\n' ' ')
packages=${packages% }
line="apt-get install -y --no-install-recommends $packages"
if [ "$(id -u)" -ne 0 ]; then
  echo "The tests need Debian packages that are missing here: $packages" >&2
  echo "Install them as root, then run the tests again:" >&2
  echo "  apt-get update && $line" >&2
  exit 1
fi
if ! has apt-get; then
  echo "The tests need these Debian packages, and this machine has no apt-get: $packages" >&2
  exit 1
fi
echo "test-prerequisites.sh: installing $packages" >&2
apt-get update
# shellcheck disable=SC2086 # one word per package
DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $packages

# A package that installed without what it was asked for is named, not ignored.
collect "$@"
if [ "${#missing[@]}" -gt 0 ]; then
  echo "test-prerequisites.sh: still missing after apt-get install: ${missing[*]}" >&2
  exit 1
fi
