#!/usr/bin/env bash
# Smoke of the libFuzzer build (hack/libfuzzer-build.sh): builds the tombstone
# example's FuzzMirror into a libFuzzer binary and runs it for a bounded
# number of executions (LWREPLAY_LIBFUZZER_RUNS, default 200) on a seed
# corpus holding the input go test -fuzz found (000\x86). The planted bug
# must be found as a libFuzzer crash, with lwreplay's report.txt and
# reproducer.yaml under $LWREPLAY_ARTIFACTS (a temporary directory unless
# set). Exits 1 when that does not happen; prints "SKIPPED: ..." and exits
# 0 when clang with libFuzzer cannot be had.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
runs=${LWREPLAY_LIBFUZZER_RUNS:-200}
artifacts=${LWREPLAY_ARTIFACTS:-$work/artifacts}
bin="$work/FuzzMirror"

start=$(date +%s)
build_log="$work/build.log"
if ! hack/libfuzzer-build.sh ./examples/tombstone FuzzMirror "$bin" 2>"$build_log"; then
  cat "$build_log" >&2
  echo "libfuzzer-smoke: FAIL: building FuzzMirror" >&2
  exit 1
fi
if grep -q '^SKIPPED:' "$build_log"; then
  grep '^SKIPPED:' "$build_log" >&2
  exit 0
fi
echo "libfuzzer-smoke: built FuzzMirror in $(($(date +%s) - start))s" >&2

mkdir -p "$work/corpus" "$work/crashes" "$artifacts"
printf '000\x86' >"$work/corpus/found-by-go-test-fuzz"
# The fuzz target globs its cassettes relative to its package directory.
start=$(date +%s)
set +e
(cd "$repo/examples/tombstone" &&
  LWREPLAY_ARTIFACTS="$artifacts" "$bin" -runs="$runs" -print_final_stats=1 \
    -artifact_prefix="$work/crashes/" "$work/corpus") >"$work/run.log" 2>&1
rc=$?
set -e
echo "libfuzzer-smoke: ran FuzzMirror (-runs=$runs) in $(($(date +%s) - start))s, exit code $rc" >&2
grep '^stat::' "$work/run.log" >&2 || true

fail() {
  tail -40 "$work/run.log" >&2
  echo "libfuzzer-smoke: FAIL: $*" >&2
  exit 1
}
[ "$rc" -ne 0 ] || fail "exit code 0, want a crash on the planted bug"
crashes=("$work"/crashes/crash-*)
[ -e "${crashes[0]}" ] || fail "libFuzzer wrote no crash file, want one"
report=$(sed -n 's/^report: //p' "$work/run.log" | head -1)
repro=$(sed -n 's/^reproducer: //p' "$work/run.log" | head -1)
[ -n "$report" ] && [ -s "$report" ] || fail "got report file [$report], want lwreplay's report.txt under $artifacts"
[ -n "$repro" ] && [ -s "$repro" ] || fail "got reproducer file [$repro], want lwreplay's reproducer.yaml under $artifacts"
case "$report" in "$artifacts"/*) ;; *) fail "report $report is not under $artifacts" ;; esac
grep -q '^invariant ' "$report" || fail "report $report names no broken invariant"
echo "libfuzzer-smoke: ok: crash ${crashes[0]##*/}; report $report; reproducer $repro" >&2
