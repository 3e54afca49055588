#!/usr/bin/env bash
# Measures lwreplay on production-size cassettes and prints the markdown
# table: peak RSS of loading a cassette, `lwreplay serve` from start to a
# synced informer (LIST and WatchList), in-process replay throughput and the
# recorder's CPU overhead, each next to what client-go needs to hold or
# decode the same objects alone (bench/internal/scale).
#
# The cassettes are `lwreplay synth` ones (configmaps and pods, 1M events,
# LIST pages of 500, a fixed seed) of 10k and 100k objects, cached under
# ${XDG_CACHE_HOME:-~/.cache}/lwreplay/bench/ by a hash of the sources that
# write them (synth/, cassette/): a change there makes them anew, and the
# stale ones are removed. Raw output goes to bench/out/scale-<time>.*
# (the children's log, their figures as JSON, the table).
#
#   bench/scale.sh [--max-memory 20Gi]
#
# SCALE_OBJECTS (default "10000 100000"), SCALE_EVENTS (1000000),
# SCALE_RECORDER_EVENTS (100000) and SCALE_SEED (1) make it smaller to try;
# SCALE_ROUNDS (3) is how often the replay and recorder measurements
# alternate what they compare, and the initial LIST is decoded;
# SCALE_MEASURES (every one) names the measurements to make, e.g.
# "idle,load,state,serve-list,serve-watchlist,decode-list" for the load and
# serve rows alone.
set -euo pipefail

max_memory=()
while (($#)); do
  case $1 in
  --max-memory) max_memory=(--max-memory "$2"); shift 2 ;;
  --max-memory=*) max_memory=("$1"); shift ;;
  *) echo "usage: bench/scale.sh [--max-memory QUANTITY]" >&2; exit 2 ;;
  esac
done

cd "$(dirname "$0")/.."
objects=(${SCALE_OBJECTS:-10000 100000})
events=${SCALE_EVENTS:-1000000}
recorder_events=${SCALE_RECORDER_EVENTS:-100000}
rounds=${SCALE_ROUNDS:-3}
seed=${SCALE_SEED:-1}
measures=()
[[ -n ${SCALE_MEASURES:-} ]] && measures=(--measures "$SCALE_MEASURES")
page_size=500

bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/lwreplay" ./cmd/lwreplay
go build -o "$bin/scale" ./bench/cmd/scale

cache=${XDG_CACHE_HOME:-$HOME/.cache}/lwreplay/bench
mkdir -p "$cache"
key=$(find synth cassette cmd/lwreplay/synth.go -name '*.go' ! -name '*_test.go' | LC_ALL=C sort | xargs cat | sha256sum | cut -c1-12)
args=()
for n in "${objects[@]}"; do
  label=$n
  ((n % 1000 == 0)) && label=$((n / 1000))k
  file="$cache/synth-${n}o-${events}e-p${page_size}-s${seed}-$key.yaml"
  if [[ ! -s $file ]]; then
    # cassettes the sources no longer write are stale
    find "$cache" -name "synth-${n}o-${events}e-p${page_size}-s${seed}-*.yaml" ! -name "*-$key.yaml" -delete
    echo "generating $file" >&2
    start=$SECONDS
    "$bin/lwreplay" synth --objects "$n" --events "$events" --page-size "$page_size" --seed "$seed" \
      "${max_memory[@]}" -o "$cache/tmp-$$.yaml" >&2
    mv "$cache/tmp-$$.yaml" "$file"
    echo "generated in $((SECONDS - start)) s: $(du -h "$file" | cut -f1)" >&2
  fi
  args+=("$label=$file")
done

mkdir -p bench/out
out="bench/out/scale-$(date +%Y%m%d-%H%M%S)"
{
  echo "lwreplay $(git describe --always --dirty 2>/dev/null || echo '?'), $(go version), $(nproc) cores"
  echo "cassettes: ${args[*]}"
} | tee "$out.log" >&2
"$bin/scale" --lwreplay "$bin/lwreplay" --raw "$out.json" --recorder-events "$recorder_events" --rounds "$rounds" "${measures[@]}" "${args[@]}" \
  2> >(tee -a "$out.log" >&2) | tee "$out.md"
echo "raw output: $out.{log,json,md}" >&2
