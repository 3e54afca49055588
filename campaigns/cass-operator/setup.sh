#!/usr/bin/env bash
# setup.sh DIR: lays out the cass-operator campaign in DIR (made if missing).
# It clones k8ssandra/cass-operator at v1.32.0 into DIR/cass-operator (the
# Go module proxy does not serve it) and copies lwreplay's harness into
# DIR/cass-harness, its go.mod replacing cass-operator with ../cass-operator
# and lwreplay with this repository. Then, for example:
#   cd DIR/cass-harness && go test ./...                       # seeds, invariant, issue 118
#   cd DIR/cass-harness && go test -run '^$' -fuzz '^FuzzCassandra$' -fuzztime 30m
#   cd DIR/cass-harness && go test -run TestRecordCassandra -record   # record again (needs e2e/build-cluster.sh)
# docs/campaigns/cass-operator.md says what it runs and what it found.
set -euo pipefail
dir=${1:?usage: setup.sh DIR}
repo=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$dir"
if [ ! -d "$dir/cass-operator" ]; then
  git clone --quiet --branch v1.32.0 --depth 1 https://github.com/k8ssandra/cass-operator "$dir/cass-operator"
fi
rm -rf "$dir/cass-harness"
cp -r "$repo/campaigns/cass-operator/_harness" "$dir/cass-harness"
sed "s#LWREPLAY#$repo#g" "$dir/cass-harness/go.mod.in" > "$dir/cass-harness/go.mod"
rm "$dir/cass-harness/go.mod.in"
printf '// The harness'"'"'s own workspace: it must not join another.\ngo 1.26.7\n\nuse .\n' > "$dir/cass-harness/go.work"
echo "campaign laid out in $dir: cd $dir/cass-harness && go test ./..."
