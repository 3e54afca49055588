#!/usr/bin/env bash
# Runs one fuzz test under go test's fuzzing engine for a while and prints
# how many executions it made. The test binary is built as go test -fuzz
# builds it (-d=libfuzzer on every package but cmd/go's skipInstrumentation
# list) and kept, so a profiler can read its workers' symbols: with PERF=1,
# perf records the workers from 40 s on for 60 s into bench/out/.
#
#   bench/gofuzz.sh examples/reconciler FuzzReconciler 120s 10x   # 120 s with go test's baseline
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

# cmd/go's skipInstrumentation (cmd/go/internal/test/test.go)
flags=(-gcflags=all=-d=libfuzzer)
for p in context internal/fuzz internal/godebug internal/runtime/maps internal/sync reflect runtime sync sync/atomic syscall testing time; do
  flags+=("-gcflags=$p=")
done

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
