#!/bin/bash -eu
# Builds lwreplay's Go native fuzz targets into libFuzzer binaries with
# OSS-Fuzz's compile_native_go_fuzzer (go-118-fuzz-build); usable as a
# ClusterFuzzLite build.sh (.clusterfuzzlite/) and as an OSS-Fuzz
# project's. hack/libfuzzer-build.sh does the same build without Docker.
#
# compile_native_go_fuzzer turns each target's *_test.go file into package
# code that imports the shim, so the module needs it (this copy's go.mod
# only: the build runs in the image's copy of the source).
# The root module alone, not the workspace (go.work) it heads.
export GOWORK=off
go get github.com/AdamKorcz/go-118-fuzz-build/testing

compile_native_go_fuzzer github.com/lwreplay/lwreplay/fuzz FuzzInformer FuzzInformer
compile_native_go_fuzzer github.com/lwreplay/lwreplay/fuzz FuzzReflectorDeltaFIFO FuzzReflectorDeltaFIFO
compile_native_go_fuzzer github.com/lwreplay/lwreplay/fuzz FuzzReflectorRealFIFO FuzzReflectorRealFIFO
compile_native_go_fuzzer github.com/lwreplay/lwreplay/examples/tombstone FuzzMirror FuzzMirror

# The targets glob the shipped cassettes relative to their package
# directory (../cassettes, ../../cassettes); a fuzzer run away from the
# source finds them beside itself, in $OUT/cassettes
# (fuzz.ShippedCassettesDir).
mkdir -p "$OUT/cassettes"
cp cassettes/*.yaml "$OUT/cassettes/"

# Seed corpora: one input per shipped cassette and client path, no fault
# (byte 0 picks the cassette, byte 1 the WatchList path), as go test's
# seeds.
seeds() { # NAME CASSETTE-COUNT
  local dir
  dir=$(mktemp -d)
  for ((i = 0; i < $2; i++)); do
    printf "\\x$(printf %02x "$i")\\x00" >"$dir/cassette-$i-list"
    printf "\\x$(printf %02x "$i")\\x01" >"$dir/cassette-$i-watchlist"
  done
  (cd "$dir" && zip -q "$OUT/$1_seed_corpus.zip" ./*)
  rm -rf "$dir"
}
real=$(ls cassettes/real-*.yaml | wc -l)
mirror=$(ls cassettes/real-configmaps-pods-*.yaml | wc -l)
seeds FuzzInformer "$real"
seeds FuzzReflectorDeltaFIFO "$real"
seeds FuzzReflectorRealFIFO "$real"
seeds FuzzMirror "$mirror"
