#!/usr/bin/env bash
# Measures how long a fuzz test's seeds take to reach each known finding
# of an operator: runs go test -run on the fuzz test (its seeds: every
# cassette and client path, no fault, then the scenarios made from each
# fault-free run), stamps each output line with the wall time since the
# test binary started, and prints the first time each known finding was
# logged (a known finding is logged and passes; the campaign goes on).
# The test binary is built first; its build is not counted.
#
#   bench/find-known.sh examples/kuberay FuzzRayClusters
#   bench/find-known.sh /tmp/cass/cass-harness FuzzCassandra   # a local campaign (campaigns/cass-operator/setup.sh)
set -euo pipefail

dir=${1:?usage: find-known.sh DIR FUZZTEST}
fz=${2:?usage: find-known.sh DIR FUZZTEST}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$dir"
go test -c -o "$tmp/t.test" .
start=$(date +%s.%N)
"$tmp/t.test" -test.run "^$fz\$" -test.v -test.timeout 60m 2>&1 |
  while IFS= read -r line; do printf '%s %s\n' "$(date +%s.%N)" "$line"; done >"$tmp/log" || true
end=$(date +%s.%N)
awk -v start="$start" -v end="$end" '
  {
    if (match($0, /known finding [^ ]+/)) {
      name = substr($0, RSTART + 14, RLENGTH - 14)
      if (!(name in first)) { first[name] = $1 - start; order[++n] = name }
      count[name]++
    }
  }
  / --- FAIL/ { failed = 1 }
  END {
    printf "%-60s %10s %6s\n", "known finding", "first at", "runs"
    for (i = 1; i <= n; i++) printf "%-60s %9.1fs %6d\n", order[i], first[order[i]], count[order[i]]
    printf "seeds done in %.1fs%s\n", end - start, failed ? " (a seed FAILED: see go test -run)" : ""
  }' "$tmp/log"
