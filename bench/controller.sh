#!/usr/bin/env bash
# Runs the controller-runtime throughput benchmarks — whole runs of a
# manager under the fuzz harness on the shipped cassette of real configmaps
# with list pages, no fault, per client path, on every core: fuzz/crtarget's
# annotator (BenchmarkManagerRun) and examples/reconciler's children
# reconciler (BenchmarkReconcilerRun), each module in its own go test
# process — saves the raw output under bench/out/ and prints runs/s per
# target and path.
#
#   bench/controller.sh            # extra arguments go to both go test runs
set -euo pipefail

cd "$(dirname "$0")/.."
mkdir -p bench/out
out="$PWD/bench/out/controller-$(date +%Y%m%d-%H%M%S).txt"
: >"$out"

status=0
for dir in fuzz/crtarget examples/reconciler; do
  (cd "$dir" && go test -run '^$' -bench 'BenchmarkManagerRun|BenchmarkReconcilerRun' -benchtime 3s -count 1 -timeout 30m "$@" .) 2>&1 |
    tee -a "$out" || status=$?
done
echo "raw output: $out"

printf "\n%-16s %-10s %10s %12s\n" target path runs/s ms/run
awk '
  # BenchmarkReconcilerRun/watchlist-2  96  38112311 ns/op  26.24 runs/s
  /^Benchmark/ && $4 == "ns/op" {
    name = $1
    sub(/-[0-9]+$/, "", name)
    path = name; sub(/.*\//, "", path)
    target = name; sub(/\/.*/, "", target); sub(/^Benchmark/, "", target)
    for (i = 5; i + 1 <= NF; i += 2) if ($(i + 1) == "runs/s") rps[target "\t" path] = $i
    ms[target "\t" path] = $3 / 1e6
  }
  END {
    for (k in rps) {
      split(k, p, "\t")
      printf "%-16s %-10s %10.1f %12.1f\n", p[1], p[2], rps[k], ms[k]
    }
  }
' "$out" | sort -k1,1 -k2,2
exit "$status"
