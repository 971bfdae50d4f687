#!/usr/bin/env bash
# Runs the test suite SOAK_RUNS times (default 10) while `stress-ng --cpu 2`
# keeps the CPUs busy, so a test that only passes when it wins a race against
# its own fixture fails here instead of in CI. Builds once; every run is a
# plain `vitest run`. Each failing run's output is kept for diagnosis; the
# exit status is non-zero when any run failed.
#
#   npm run test:soak                 # 10 runs
#   SOAK_RUNS=3 npm run test:soak     # fewer
#   SOAK_CPUS=4 npm run test:soak     # a heavier burner
set -uo pipefail

cd "$(dirname "$0")/.."

runs=${SOAK_RUNS:-10}
cpus=${SOAK_CPUS:-2}
log_dir=${SOAK_LOG_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/sidecar-init-soak-XXXXXX")}
mkdir -p "$log_dir"

if ! [[ "$runs" =~ ^[1-9][0-9]*$ ]]; then
  echo "soak: SOAK_RUNS must be a positive whole number, got '$runs'" >&2
  exit 2
fi

if ! command -v stress-ng >/dev/null 2>&1; then
  echo "soak: stress-ng is missing; installing it with apt-get" >&2
  if [ "$(id -u)" -eq 0 ]; then sudo=""; else sudo="sudo"; fi
  $sudo apt-get update -qq && $sudo apt-get install -y -qq stress-ng >/dev/null || {
    echo "soak: could not install stress-ng; install it (apt-get install stress-ng) and run again" >&2
    exit 2
  }
fi

burner=""
stop_burner() {
  # Only the burner this script started, by its PID (stress-ng stops its workers on TERM).
  if [ -n "$burner" ] && kill -0 "$burner" 2>/dev/null; then
    kill -TERM "$burner" 2>/dev/null
    wait "$burner" 2>/dev/null
  fi
  burner=""
}
trap stop_burner EXIT
trap 'echo; echo "soak: interrupted" >&2; stop_burner; exit 130' INT TERM

echo "soak: building once"
npm run --silent build || exit 1

stress-ng --cpu "$cpus" --quiet &
burner=$!
echo "soak: stress-ng --cpu $cpus running as PID $burner; $runs runs; logs in $log_dir"

failed=0
results=()
for ((run = 1; run <= runs; run++)); do
  log="$log_dir/run-$run.log"
  started=$(date +%s)
  # NO_COLOR: the kept logs are read with less and grep, not a terminal.
  if NO_COLOR=1 npx vitest run --reporter=default >"$log" 2>&1; then
    result="pass"
    rm -f "$log"
  else
    result="FAIL"
    failed=$((failed + 1))
  fi
  seconds=$(($(date +%s) - started))
  line="run $run/$runs: $result (${seconds}s)"
  if [ "$result" = "FAIL" ]; then
    # The failing tests' names, so the summary says what raced without opening the log.
    names=$(sed 's/\x1b\[[0-9;]*m//g' "$log" | grep -E '^ *FAIL ' | sed -E 's/^ *FAIL +//' | sort -u | head -20)
    line="$line, log: $log"
    [ -n "$names" ] && line="$line"$'\n'"$(sed 's/^/    /' <<<"$names")"
  fi
  echo "$line"
  results+=("$line")
done

stop_burner

echo
echo "soak summary: $((runs - failed))/$runs runs passed, $failed failed (stress-ng --cpu $cpus beside each run)"
for line in "${results[@]}"; do echo "  $line"; done
if [ "$failed" -gt 0 ]; then
  echo "failing runs' logs are in $log_dir"
  exit 1
fi
rmdir "$log_dir" 2>/dev/null
exit 0
