#!/usr/bin/env bash
# Measures how long go test -fuzz takes to find each planted bug of
# examples/reconciler (FuzzReconcilerPlanted: the crash between a child's
# create and its parent's report; FuzzReconcilerMemo: a parent recreated
# while the watch was away), over fresh fuzz caches, with the example's
# plan seeds (testdata/plans: a crash after each of the first four writes,
# a recreate at each cassette's re-watch) and without them (the fault-free
# seeds only: what the search finds from the recordings alone). The test
# binary is built once (instrumented, as go test -fuzz builds it); each
# run starts it with an empty cache directory, and the wall time to its
# exit is the time to find (the baseline over the seed corpus included).
#
#   bench/find-planted.sh [RUNS] [FUZZTIME]   # defaults: 3 runs, 60s each
set -euo pipefail

cd "$(dirname "$0")/../examples/reconciler"
runs=${1:-3}
fuzztime=${2:-60s}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp" testdata/fuzz/FuzzReconcilerPlanted testdata/fuzz/FuzzReconcilerMemo' EXIT
# -fuzz: built with the coverage instrumentation go test -fuzz uses
go test -c -fuzz=. -o "$tmp/reconciler.test" .

for seeds in plans none; do
  for fz in FuzzReconcilerPlanted FuzzReconcilerMemo; do
    for i in $(seq "$runs"); do
      rm -rf "testdata/fuzz/$fz"
      env=(LWREPLAY_ARTIFACTS="$tmp/art")
      [ "$seeds" = none ] && env+=(LWREPLAY_NO_PLAN_SEEDS=1)
      log="$tmp/$seeds-$fz-$i.log"
      start=$(date +%s.%N)
      env "${env[@]}" "$tmp/reconciler.test" -test.run '^$' -test.fuzz "^$fz\$" \
        -test.fuzztime "$fuzztime" -test.fuzzcachedir "$tmp/cache-$seeds-$fz-$i" >"$log" 2>&1 || true
      end=$(date +%s.%N)
      secs=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }')
      if grep -q -- '--- FAIL' "$log"; then
        # the invariants the failing run broke, as the report names them
        what=$(grep -oE '(one-child-per-parent|same-outcome|no-write-storm|clean-stop|no-spin|converged)' "$log" | sort -u | paste -sd, || true)
        echo "$fz, seeds $seeds, run $i: found in ${secs}s (${what:-see log})"
      else
        echo "$fz, seeds $seeds, run $i: not found within $fuzztime (${secs}s)"
      fi
    done
  done
done
