#!/usr/bin/env bash
# Runs the fuzz harness's speed benchmarks (whole runs per built-in target,
# level and client path on the reference cassette of 50 configmaps and 100
# changes, and client-go decoding the same bytes alone) in one go test
# process, saves the raw output under bench/out/ and prints typed runs/s and
# each wire run's cost as a ratio to decoding alone. The collector runs as
# lwreplay fuzz sets it (GOGC=400 unless GOGC is set).
#
#   bench/fuzz.sh            # extra arguments go to go test
set -euo pipefail

cd "$(dirname "$0")/.."
# the collector as lwreplay fuzz sets it on a small history (internal/tune)
export GOGC=${GOGC:-400}
mkdir -p bench/out
out="bench/out/fuzz-$(date +%Y%m%d-%H%M%S).txt"

status=0
go test -run '^$' -bench 'BenchmarkRun|BenchmarkDecodeAlone' -benchtime 2s -count 1 -timeout 30m "$@" ./fuzz/ 2>&1 |
  tee "$out" || status=$?
echo "raw output: $out"

awk '
  # BenchmarkRun/informer/typed/watchlist-2  900  3700000 ns/op  270.2 runs/s
  /^Benchmark/ && $4 == "ns/op" {
    name = $1
    sub(/-[0-9]+$/, "", name)
    ns[name] = $3
    for (i = 5; i + 1 <= NF; i += 2) if ($(i + 1) == "runs/s") rps[name] = $i
  }
  END {
    printf "\n%-48s %10s\n", "typed level", "runs/s"
    for (n in rps) if (n ~ /\/typed\//) printf "%-48s %10.1f\n", n, rps[n]
    printf "\n%-48s %12s %12s %8s\n", "wire run / decode alone", "run ms", "decode ms", "ratio"
    for (n in ns) if (n ~ /\/wire\//) {
      path = n; sub(/.*\//, "", path)
      d = "BenchmarkDecodeAlone/" path
      if (d in ns) printf "%-48s %12.2f %12.2f %8.2f\n", n, ns[n] / 1e6, ns[d] / 1e6, ns[n] / ns[d]
    }
  }
' "$out"
exit "$status"
