#!/usr/bin/env bash
# Measures the differential oracle's false alarms: examples/reconciler's
# TestFaultFreePairs judges N fault-free runs (default 1,000) of the
# example reconciler and of crtarget's annotator manager, each with a
# harness.Spec.Seed of its own, round-robin over every shipped real
# cassette, both client paths and both paces, against their reference pair
# (same-outcome, confirmed as a campaign confirms an alarm) and every other
# invariant. It saves the raw output under bench/out/ and prints the
# summary: runs, writes, reports and wall time per target, pace and path,
# and the masks each reference learned. A measurement, not a timing test:
# the wall time is the machine's.
#
#   bench/false-alarms.sh [N]    # extra arguments after N go to go test
set -euo pipefail

cd "$(dirname "$0")/.."
n="${1:-1000}"
shift || true
mkdir -p bench/out
out="bench/out/false-alarms-$(date +%Y%m%d-%H%M%S).txt"

status=0
start=$(date +%s)
(cd examples/reconciler &&
  go test -run '^TestFaultFreePairs$' -count 1 -timeout 60m -v "$@" . -args -pairs "$n") >"$out" 2>&1 || status=$?
end=$(date +%s)
echo "raw output: $out"

# the summary the test logs, and every report's heading
awk '/got a report, want none/ { print; next }
  /fault-free pairs:/ { on = 1; sub(/^ *falsealarm_test.go:[0-9]+: /, "") }
  on && /^--- / { on = 0 }
  on { sub(/^        /, ""); print }' "$out"
grep -E '^(--- |ok|FAIL|PASS)' "$out" || true
echo "wall time with the build: $((end - start)) s"
exit "$status"
