#!/usr/bin/env bash
# Measures how fast go test -fuzz finds a bug that needs two decisions
# (fuzz.FuzzCombine: a consumer that relists at resourceVersion "0", found
# by a watch cut early and a stale LIST on the relist), with and without
# decision seeds (fuzz.Options.DecisionSeeds), over fresh fuzz caches.
#
# With COVER set, the test binary is built under lwcover (cmd/lwcover):
# COVER=module keeps the coverage counters to the root module's packages.
# SEEDS=off (or on) runs one of the two.
#
#   bench/combine.sh [RUNS] [FUZZTIME]   # defaults: 3 runs, 60s each
#   COVER=module SEEDS=off bench/combine.sh
set -euo pipefail

cd "$(dirname "$0")/.."
runs=${1:-3}
fuzztime=${2:-60s}
cassette=$PWD/cassettes/real-configmaps-pods-watchlist.yaml
tmp=$(mktemp -d)
trap 'rm -rf "$tmp" fuzz/testdata/fuzz/FuzzCombine' EXIT

build=()
if [[ -n "${COVER:-}" ]]; then
  go build -o "$tmp/lwcover" ./cmd/lwcover
  build+=(-toolexec "$tmp/lwcover --cover $COVER")
fi

for seeds in ${SEEDS:-off on}; do
  for i in $(seq "$runs"); do
    rm -rf fuzz/testdata/fuzz/FuzzCombine
    env=(LWREPLAY_COMBINE="$cassette" LWREPLAY_ARTIFACTS="$tmp/art")
    [ "$seeds" = on ] && env+=(LWREPLAY_COMBINE_SEEDS=1)
    log="$tmp/$seeds-$i.log"
    env "${env[@]}" go test "${build[@]}" -run '^$' -fuzz '^FuzzCombine$' -fuzztime "$fuzztime" ./fuzz \
      -test.fuzzcachedir="$tmp/cache-$seeds-$i" >"$log" 2>&1 || true
    # the last progress line before the engine said it found a failure
    found=$(awk '/elapsed: [0-9]+s, (execs|gathering)/ { t = $3; sub(/,$/, "", t) } /failing input|Failing input|minimizing/ { print t; exit }' "$log")
    echo "decision seeds $seeds, run $i: ${found:-not found within $fuzztime}"
  done
done
