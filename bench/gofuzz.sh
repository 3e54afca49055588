#!/usr/bin/env bash
# Runs one fuzz test under go test's fuzzing engine for a while and prints
# how many executions it made. The test binary is built as go test -fuzz
# builds it (go test -c -fuzz) and kept, so a profiler can read its
# workers' symbols: with PERF=1, perf records the workers from 40 s on for
# 60 s into bench/out/. With COVER set, it is built under lwcover
# (cmd/lwcover): COVER=module keeps the coverage counters to the package's
# own module, as lwcover does by default; any other value is lwcover's
# --cover.
#
#   bench/gofuzz.sh examples/reconciler FuzzReconciler 120s 10x   # 120 s with go test's baseline
#   COVER=module bench/gofuzz.sh examples/reconciler FuzzReconciler 120s 10x
set -euo pipefail

dir=${1:?package directory}
name=${2:?fuzz test}
fuzztime=${3:-120s}
mintime=${4:-10x}
root="$(cd "$(dirname "$0")/.." && pwd)"
mkdir -p "$root/bench/out"
stamp=$(date +%Y%m%d-%H%M%S)
bin="$root/bench/out/$name-$stamp.test"
log="$root/bench/out/$name-$stamp.log"

flags=(-fuzz=.)
if [[ -n "${COVER:-}" ]]; then
  (cd "$root" && go build -o "$root/bench/out/lwcover" ./cmd/lwcover)
  flags+=(-toolexec "$root/bench/out/lwcover --cover $COVER")
fi

cd "$root/$dir"
go test -c -o "$bin" "${flags[@]}" .
cache=$(mktemp -d)
trap 'rm -rf "$cache"' EXIT
"$bin" -test.run='^$' -test.fuzz="^$name\$" -test.fuzztime="$fuzztime" -test.fuzzcachedir="$cache" \
  -test.fuzzminimizetime="$mintime" >"$log" 2>&1 &
run=$!
if [[ -n "${PERF:-}" ]]; then
  sleep 40
  pids=$(pgrep -f "$(basename "$bin").*fuzzworker" | paste -sd,)
  perf record -F 499 -g -o "$root/bench/out/$name-$stamp.perf" -p "$pids" -- sleep 60 >/dev/null 2>&1 || true
fi
status=0
wait "$run" || status=$?
grep 'now fuzzing' "$log" || true
grep 'execs:' "$log" | tail -1 || echo "no executions past the baseline (fuzztime counts it)"
echo "log: $log"
exit "$status"
