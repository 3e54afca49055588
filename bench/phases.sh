#!/usr/bin/env bash
# Says where a fuzz run's CPU time goes: profiles whole runs (go test
# -cpuprofile on ./fuzz's BenchmarkRun, or on the README's main job with
# PHASES_MAIN=1) and prints each phase's share of the samples, a sample
# counting in the first phase whose functions are on its stack.
#
#   bench/phases.sh                      # BenchmarkRun/^informer$/typed/ (both client paths)
#   PHASES_BENCH='BenchmarkRun/^reflector-realfifo$/typed/watchlist$' bench/phases.sh
#   PHASES_MAIN=1 PHASES_DURATION=20s bench/phases.sh   # lwreplay fuzz on the shipped cassette, --watchlist off, --seed 7
#   PHASES_DIR=fuzz/crtarget PHASES_BENCH=BenchmarkManagerRun/list bench/phases.sh           # a controller run
#   PHASES_DIR=examples/reconciler PHASES_BENCH=BenchmarkReconcilerRun/list bench/phases.sh
#   PHASES_DIR=examples/eck PHASES_RUN='^FuzzBeats$' PHASES_COUNT=3 bench/phases.sh   # a fuzz test's seeds, 3 times
set -euo pipefail

cd "$(dirname "$0")/.."
mkdir -p bench/out
stamp=$(date +%Y%m%d-%H%M%S)
prof="bench/out/phases-$stamp.prof"
bin="bench/out/phases-$stamp.test"

if [[ -n ${PHASES_MAIN:-} ]]; then
  go build -o "$bin" ./cmd/lwreplay
  artifacts=$(mktemp -d)
  trap 'rm -rf "$artifacts"' EXIT
  "$bin" fuzz cassettes/real-configmaps-pods-watchlist.yaml --watchlist off --seed 7 --cpuprofile "$prof" \
    --duration "${PHASES_DURATION:-20s}" --artifacts "$artifacts" | grep '^seed' | tee "$prof.txt" >&2
  runs=$(sed -n 's/^seed [0-9]*: \([0-9]*\) runs.*/\1/p' "$prof.txt")
else
  root=$PWD
  # built and run in the package's directory, as go test runs it
  if [[ -n ${PHASES_RUN:-} ]]; then
    # a test's runs (a fuzz test's seeds): their count is not known
    (cd "${PHASES_DIR:-fuzz}" && go test -c -o "$root/$bin" . &&
      "$root/$bin" -test.run "$PHASES_RUN" -test.count "${PHASES_COUNT:-1}" -test.cpuprofile "$root/$prof") | tail -1 | tee "$prof.txt" >&2
    runs=""
  else
    (cd "${PHASES_DIR:-fuzz}" && go test -c -o "$root/$bin" . &&
      "$root/$bin" -test.run '^$' -test.bench "${PHASES_BENCH:-BenchmarkRun/^informer\$/typed/}" -test.benchtime "${PHASES_BENCHTIME:-1500x}" \
        -test.cpuprofile "$root/$prof") | grep '^Benchmark' | tee "$prof.txt" >&2
    runs=$(awk '{ n += $2 } END { print n }' "$prof.txt") # b.N of each benchmark, summed (its last round)
  fi
fi

# phase name and the functions that put a sample in it, first match wins
phases=(
  "probe: handler notes, store views|fuzz/harness\.\(\*(Probe|probeHandler)\)"
  "oracle: judging the run|fuzz/oracle\.|fuzz\.\(\*Campaign\)\.(Check|check|judge|results)"
  "replay setup: server, plan|replayer\.New\$|harness\.newReplay"
  "replayer: serving requests|replayer\.\(\*Server\)\.ServeHTTP|replayer/internal/inproc"
  "target: client-go, controller-runtime, the controller|k8s\.io/client-go|sigs\.k8s\.io/controller-runtime|fuzz/targets|fuzz/level|fuzz/crtarget|examples/"
  "harness: inputs, plans, run control|lwreplay/fuzz|lwreplay/faults"
  "garbage collector (background)|runtime\.gcBgMarkWorker|runtime\.bgsweep|runtime\.bgscavenge"
)
total=$(go tool pprof -top -nodecount=1 "$bin" "$prof" 2>/dev/null | sed -n 's/.*Total samples = \([0-9.]*m\?s\).*/\1/p')
seconds() { case $1 in *ms) awk -v v="${1%ms}" 'BEGIN { print v / 1000 }' ;; *s) echo "${1%s}" ;; esac; }
calc() { awk "BEGIN { print $1 }"; }
tot=$(seconds "$total")
printf '\n| phase | CPU s | share |\n|---|---|---|\n'
ignore=""
sum=0
for p in "${phases[@]}"; do
  name=${p%%|*}
  re=${p#*|}
  args=(-top -nodecount=1000000 -nodefraction=0 -edgefraction=0 -focus="$re")
  [[ -n $ignore ]] && args+=(-ignore="$ignore")
  got=$(go tool pprof "${args[@]}" "$bin" "$prof" 2>/dev/null | sed -n 's/^Showing nodes accounting for \([0-9.]*m\?s\),.*/\1/p' | head -1)
  s=$(seconds "${got:-0s}")
  sum=$(calc "$sum + $s")
  printf '| %s | %.2f | %.1f%% |\n' "$name" "$s" "$(calc "100 * $s / $tot")"
  ignore=${ignore:+$ignore|}$re
done
rest=$(calc "$tot - $sum")
printf '| scheduler, runtime, the rest | %.2f | %.1f%% |\n' "$rest" "$(calc "100 * $rest / $tot")"
printf '| **total** | %.2f | 100%% |\n' "$tot"
if [[ -n $runs ]]; then
  printf '\n%s runs, %.3f ms of CPU per run\n' "$runs" "$(calc "1000 * $tot / $runs")"
fi
echo "profile: $prof (binary $bin)" >&2
