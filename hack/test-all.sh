#!/usr/bin/env bash
# Runs go vet and go test in every module of the repository, as .ci/run
# does. Each module is tested on its own go.mod's graph (GOWORK=off): the
# graph a user of that module gets, so the root module stays on its floor
# (client-go v0.35.10). Then it checks each module's workspace: the same
# graph modules share the root go.work, each module on a newer graph has
# a go.work of its own (docs/releasing.md).
# Usage: hack/test-all.sh [--vet-only] [GO_TEST_FLAG...]
#   hack/test-all.sh             # vet and the full tests (needs e2e/build-cluster.sh's cluster)
#   hack/test-all.sh -short      # vet and the quick tier
#   hack/test-all.sh --vet-only  # vet and the workspace checks
#   hack/test-all.sh --list      # the modules, one a line
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

# module directory, go test timeout, workspace: "root" (the root go.work,
# on the root module's graph) or "own" (its own go.work, a newer graph)
modules=(
  ".                    30m root"
  "fuzz/crtarget        10m root"
  "examples/reconciler  10m root"
  "examples/widgets     10m root"
  "examples/eck         10m own"
  "examples/eck/es      10m own"
  "examples/trustmanager 10m own"
  "actors               20m own"
  "examples/kvstore     10m own"
  "examples/kuberay     10m own"
)

vet_only=false
case "${1:-}" in
--list)
  for m in "${modules[@]}"; do
    read -r dir _ _ <<<"$m"
    echo "$dir"
  done
  exit 0
  ;;
--vet-only)
  vet_only=true
  shift
  ;;
esac

status=0
for m in "${modules[@]}"; do
  read -r dir timeout ws <<<"$m"
  start=$(date +%s)
  want="$root/go.work"
  [ "$ws" = own ] && want="$root/$dir/go.work"
  # the workspace the go command finds from the module: a module on a
  # newer graph that found the root go.work could not build there
  got=$(cd "$dir" && go env GOWORK)
  if [ "$got" != "$want" ]; then
    echo "== $dir: FAILED: go env GOWORK is [$got], want $want" >&2
    status=1
    continue
  fi
  if ! (cd "$dir" && go list -deps -test ./... >/dev/null); then
    echo "== $dir: FAILED: go list in its workspace ($want)" >&2
    status=1
    continue
  fi
  what="go vet"
  $vet_only || what="go vet and go test $*"
  echo "== $dir: $what (GOWORK=off; its workspace: $want)"
  if (cd "$dir" && export GOWORK=off && go vet ./... &&
    { $vet_only || go test -timeout "$timeout" "$@" ./...; }); then
    echo "== $dir: ok in $(($(date +%s) - start)) s"
  else
    echo "== $dir: FAILED after $(($(date +%s) - start)) s" >&2
    status=1
  fi
done
exit $status
