#!/usr/bin/env bash
# Fuzzes every built-in target (or those named) on the shipped cassettes
# with the CLI's default flags, once per seed, and prints per run: the
# runs made, the findings, when the first came (seconds of wall time, from
# the CLI's progress lines), the known bugs met and the harness errors. It
# saves each run's output under bench/out/. A measurement, not a timing
# test: the wall time is the machine's.
#
#   bench/targets.sh                       # every target, seeds 1 2 3, 60s each
#   TARGETS="retry-watcher list-pager" SEEDS="4" DURATION=30s bench/targets.sh
#   bench/targets.sh --watchlist off       # extra arguments go to lwreplay fuzz
set -euo pipefail

cd "$(dirname "$0")/.."
mkdir -p bench/out
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/lwreplay" ./cmd/lwreplay

seeds=${SEEDS:-1 2 3}
duration=${DURATION:-60s}
if [ -z "${TARGETS:-}" ]; then
  # the --target flag's help lists the built-in targets
  TARGETS=$("$bin/lwreplay" fuzz --help 2>&1 | sed -n 's/.*the client-go code to fuzz: \(.*\) (default.*/\1/p' | tr -d ,)
fi
stamp=$(date +%Y%m%d-%H%M%S)
printf '%-30s %5s %8s %9s %14s %6s %8s\n' target seed runs findings "first (s)" known "harness"
for t in $TARGETS; do
  for s in $seeds; do
    out="bench/out/targets-$stamp-$t-seed$s.txt"
    "$bin/lwreplay" fuzz cassettes/ --target "$t" --duration "$duration" --seed "$s" \
      --artifacts "$bin/artifacts-$t-$s" "$@" >"$out" 2>&1 || true
    # fuzz: 12s, 3104 runs (258/s), 16/27 faults exercised, 1 findings, ...
    first=$(awk '/^fuzz: [0-9]+s, / && $0 !~ / 0 findings/ { sub(/s,$/, "", $2); print $2; exit }' "$out")
    # seed 1: 2611 runs, 0 findings (0 failing runs), 1 known bug (...), ..., 0 harness errors
    line=$(grep -E '^seed [0-9]+: ' "$out" | tail -1 || true)
    runs=$(sed -n 's/^seed [0-9]*: \([0-9]*\) runs.*/\1/p' <<<"$line")
    findings=$(sed -n 's/.* runs, \([0-9]*\) findings.*/\1/p' <<<"$line")
    known=$(sed -n 's/.*findings ([0-9]* failing runs), \([0-9]*\) known bug.*/\1/p' <<<"$line")
    harness=$(sed -n 's/.*, \([0-9]*\) harness errors.*/\1/p' <<<"$line")
    printf '%-30s %5s %8s %9s %14s %6s %8s\n' "$t" "$s" "${runs:-?}" "${findings:-?}" "${first:--}" "${known:-0}" "${harness:-?}"
  done
done
echo "raw output: bench/out/targets-$stamp-*.txt"
