#!/usr/bin/env bash
# Replays every finding kept in the repo (the regression tests of the
# "Bugs found" in docs/bugs-found.md and the planted example) on each supported
# client-go version (.ci/client-go-versions), and prints the findings ×
# versions table docs/client-go-versions.md shows.
# Usage: hack/findings.sh [VERSION...] > table.md
set -euo pipefail
cd "$(dirname "$0")/.."

versions=("$@")
if [ ${#versions[@]} -eq 0 ]; then
  mapfile -t versions < <(grep -v '^#' .ci/client-go-versions | grep -v '^$')
fi
out=$(mktemp)
trap 'rm -f "$out"' EXIT
tests='^(TestWatchListRestartStorm|TestConsistentViewAtomicFIFO|TestFoundInput)$'
for v in "${versions[@]}"; do
  echo "findings: client-go $v" >&2
  LWREPLAY_FINDINGS=$out hack/with-client-go "$v" go test -count=1 -run "$tests" ./fuzz ./examples/tombstone >&2
done
go run ./hack/findingstable "$out"
