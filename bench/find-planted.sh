#!/usr/bin/env bash
# Measures how long go test -fuzz takes to find each planted bug of the
# controller examples — examples/reconciler's FuzzReconcilerPlanted (the
# crash between a child's create and its parent's report) and
# FuzzReconcilerMemo (a parent recreated while the watch was away) — and
# examples/widgets' FuzzWidgetsStale (a restart served a stale view) — over
# fresh fuzz caches, with each example's plan seeds (testdata/plans) and
# without them (the fault-free seeds only: what the search finds from the
# recordings alone). Each example's test binary is built once,
# instrumented as go test -fuzz builds it; each run starts it with an
# empty cache directory, and the wall time to its exit is the time to find
# (the baseline over the seed corpus included).
#
# With COVER set, the binaries are built under lwcover (cmd/lwcover):
# COVER=module keeps the coverage counters to each example's own module.
#
#   bench/find-planted.sh [RUNS] [FUZZTIME]   # defaults: 3 runs, 60s each
#   ONLY=FuzzReconcilerMemo SEEDS=none bench/find-planted.sh   # one fuzz test, one seed set
#   COVER=module bench/find-planted.sh
set -euo pipefail

cd "$(dirname "$0")/.."
root=$PWD
runs=${1:-3}
fuzztime=${2:-60s}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp" "$root"/examples/reconciler/testdata/fuzz/FuzzReconcilerPlanted "$root"/examples/reconciler/testdata/fuzz/FuzzReconcilerMemo "$root"/examples/widgets/testdata/fuzz/FuzzWidgetsStale' EXIT

build=(-fuzz=.)
if [[ -n "${COVER:-}" ]]; then
  go build -o "$tmp/lwcover" ./cmd/lwcover
  build+=(-toolexec "$tmp/lwcover --cover $COVER")
fi

# example directory, then its planted fuzz tests
targets=("examples/reconciler FuzzReconcilerPlanted FuzzReconcilerMemo" "examples/widgets FuzzWidgetsStale")
for seeds in ${SEEDS:-plans none}; do
  for t in "${targets[@]}"; do
    read -r dir fuzzes <<<"$t"
    bin="$tmp/$(basename "$dir").test"
    [ -x "$bin" ] || (cd "$dir" && go test -c "${build[@]}" -o "$bin" .)
    for fz in $fuzzes; do
      if [ -n "${ONLY:-}" ] && [ "$fz" != "$ONLY" ]; then continue; fi
      for i in $(seq "$runs"); do
        rm -rf "$dir/testdata/fuzz/$fz"
        env=(LWREPLAY_ARTIFACTS="$tmp/art")
        [ "$seeds" = none ] && env+=(LWREPLAY_NO_PLAN_SEEDS=1)
        log="$tmp/$seeds-$fz-$i.log"
        start=$(date +%s.%N)
        (cd "$dir" && env "${env[@]}" "$bin" -test.run '^$' -test.fuzz "^$fz\$" \
          -test.fuzztime "$fuzztime" -test.fuzzcachedir "$tmp/cache-$seeds-$fz-$i" >"$log" 2>&1) || true
        end=$(date +%s.%N)
        secs=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }')
        if grep -q -- '--- FAIL' "$log"; then
          # the invariants the failing run broke, as the report names them
          what=$(grep -oE '^ *invariant [a-z-]+' "$log" | awk '{ print $2 }' | sort -u | paste -sd, || true)
          echo "$fz, seeds $seeds, run $i: found in ${secs}s (${what:-see log})"
        else
          echo "$fz, seeds $seeds, run $i: not found within $fuzztime (${secs}s)"
        fi
      done
    done
  done
done
