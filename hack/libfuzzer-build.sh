#!/usr/bin/env bash
# Builds one Go native fuzz target of lwreplay (func FuzzX(f *testing.F))
# into a libFuzzer binary, without Docker: go-118-fuzz-build (installed
# into $LWREPLAY_CACHE/bin, default ~/.cache/lwreplay/bin) and clang's
# -fsanitize=fuzzer (Debian: apt-get install clang), as OSS-Fuzz's
# compile_native_go_fuzzer does. The build runs in a temporary copy of the
# module: the target's file is rewritten there to take the shim's
# *testing.F, and the copy's go.mod, not lwreplay's, gains the shim.
# Usage: hack/libfuzzer-build.sh PACKAGE FUNC OUT
#   e.g. hack/libfuzzer-build.sh ./examples/tombstone FuzzMirror /tmp/FuzzMirror
# Prints "SKIPPED: ..." and exits 0 when clang with libFuzzer is missing and
# cannot be installed.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ $# -ne 3 ]; then
  echo "usage: $0 PACKAGE FUNC OUT" >&2
  exit 2
fi
pkg=$1 func=$2 out=$3
case "$out" in /*) ;; *) out="$PWD/$out" ;; esac
cache=${LWREPLAY_CACHE:-$HOME/.cache/lwreplay}
shim=github.com/AdamKorcz/go-118-fuzz-build
shim_version=${LWREPLAY_GO118FUZZBUILD_VERSION:-v0.0.0-20250520111509-a70c2aa677fa}

# clang with libFuzzer: -fsanitize=fuzzer must link.
has_libfuzzer() {
  command -v clang >/dev/null &&
    echo 'extern "C" int LLVMFuzzerTestOneInput(const char*d, unsigned long n){return 0;}' |
      clang -x c++ -fsanitize=fuzzer -o /dev/null - >/dev/null 2>&1
}
if ! has_libfuzzer; then
  echo "libfuzzer-build: installing clang (Debian's clang packages ship libFuzzer)" >&2
  apt=(apt-get install -y clang)
  [ "$(id -u)" -eq 0 ] || apt=(sudo -n "${apt[@]}")
  "${apt[@]}" >&2 || true
  if ! has_libfuzzer; then
    echo "SKIPPED: clang with -fsanitize=fuzzer is missing and could not be installed" >&2
    exit 0
  fi
fi

bin="$cache/bin"
if [ ! -x "$bin/go-118-fuzz-build" ]; then
  mkdir -p "$bin"
  (cd / && GOFLAGS= GOBIN="$bin" go install "$shim@$shim_version") >&2
fi

work=$(mktemp -d)
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
tar --exclude=.git --exclude=lwreplay-artifacts --exclude='testdata/fuzz' -cf - . | tar -xf - -C "$work"
cd "$work"
# the copy's go.mod gains the shim: the root module alone, not its go.work
export GOWORK=off

dir=$(go list -f '{{.Dir}}' "$pkg")
file=$(grep -l -E "^func $func\(f \*testing\.F\)" "$dir"/*_test.go || true)
if [ "$(echo "$file" | grep -c .)" -ne 1 ]; then
  echo "libfuzzer-build: got fuzz target files [$file] for func $func(f *testing.F) in $pkg, want one" >&2
  exit 1
fi
# As compile_native_go_fuzzer: the target's file becomes package code
# (its name no longer ends in _test.go); go-118-fuzz-build points its
# "testing" import at the shim. The file must hold nothing but fuzz targets
# and what they need.
mv "$file" "${file}_fuzz_.go"
GOFLAGS=-mod=mod go get "$shim/testing@$shim_version" >&2

start=$(date +%s)
"$bin/go-118-fuzz-build" -o "$work/$func.a" -func "$func" "$dir" >&2
mkdir -p "$(dirname "$out")"
clang -fsanitize=fuzzer "$work/$func.a" -lpthread -o "$out"
echo "libfuzzer-build: built $out ($pkg $func) in $(($(date +%s) - start))s" >&2
