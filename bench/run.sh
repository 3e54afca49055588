#!/usr/bin/env bash
# Runs lwreplay's informer benchmarks against the replayer and against a real
# kube-apiserver + etcd in one go test process, saves the raw output under
# bench/out/ and prints the replayer's times as ratios to the real ones.
#
#   bench/run.sh            # extra arguments go to go test
set -euo pipefail

cd "$(dirname "$0")/.."
mkdir -p bench/out
out="bench/out/bench-$(date +%Y%m%d-%H%M%S).txt"

status=0
go test -run '^$' -bench 'InformerSync|ServeToSynced' -benchtime 10x -count 1 -timeout 30m "$@" ./bench/ 2>&1 |
  tee "$out" || status=$?
echo "raw output: $out"

awk '
  # BenchmarkInformerSync/http/watchlist-2  10  123456 ns/op  [value unit]...
  /^Benchmark/ && $4 == "ns/op" {
    name = $1
    sub(/-[0-9]+$/, "", name)
    sub(/^Benchmark(InformerSyncReal|InformerSync)\//, "", name)
    ms[name] = $3 / 1e6
    for (i = 5; i + 1 <= NF; i += 2) metric[name, $(i + 1)] = $i
  }
  function show(a, b) {
    if ((a in ms) && (b in ms) && ms[b] > 0)
      printf "%-36s %10.1f %10.1f %8.3f\n", a " / " b, ms[a], ms[b], ms[a] / ms[b]
    else
      printf "%-36s %10s %10s %8s\n", a " / " b, "n/a", "n/a", "n/a"
  }
  END {
    printf "\n%-36s %10s %10s %8s\n", "replayer / real", "replay ms", "real ms", "ratio"
    show("http/watchlist", "real/watchlist")
    show("http/list", "real/list")
    show("inprocess/watchlist", "real/watchlist")
    show("inprocess/list", "real/list")
    if (("BenchmarkServeToSynced", "ms-to-synced") in metric)
      printf "\nServeToSynced: %s ms from start to a synced informer\n", metric["BenchmarkServeToSynced", "ms-to-synced"]
    if (("real/watchlist", "start-ms") in metric)
      printf "real cluster: ready in %s ms, filled in %s ms\n", metric["real/watchlist", "start-ms"], metric["real/watchlist", "fill-ms"]
  }
' "$out"
exit "$status"
