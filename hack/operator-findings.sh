#!/usr/bin/env bash
# Replays the operators' findings kept in the repo (the regression tests
# of docs/bugs-found.md's operator bugs) on each operator release and
# controller-runtime release served, in a temporary copy of the
# repository, and prints the findings × versions table docs/bugs-found.md
# shows. A combination whose module graph cannot select the versions asked
# shows as not run.
# Usage: hack/operator-findings.sh > table.md
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

# module directory | test regexp | operator module | its releases | controller-runtime releases
# (an example is written against its operator release's API: KubeRay
# v1.4.0's NewReconciler takes other arguments)
entries=(
  "examples/kuberay|^TestFindings\$|github.com/ray-project/kuberay/ray-operator|v1.5.0|v0.23.3 v0.24.1 v0.25.2"
  "examples/trustmanager|^TestDeselectedTargetRecreated\$|github.com/cert-manager/trust-manager|v0.25.0|v0.25.2"
)

out=$(mktemp)
tmp=$(mktemp -d)
trap 'rm -rf "$out" "$tmp"' EXIT
# each copy's module on its own go.mod graph: go get changes one module
export GOWORK=off
for e in "${entries[@]}"; do
  IFS='|' read -r dir tests module releases crs <<<"$e"
  for v in $releases; do
    for cr in $crs; do
      echo "operator findings: $module $v, controller-runtime $cr" >&2
      rm -rf "$tmp/repo" && mkdir "$tmp/repo"
      tar -C "$root" --exclude=.git --exclude=./lwreplay --exclude='./lwreplay-artifacts' -cf - . | tar -C "$tmp/repo" -xf -
      if ! (cd "$tmp/repo/$dir" && go get "$module@$v" "sigs.k8s.io/controller-runtime@$cr" && go mod tidy) >"$tmp/get.log" 2>&1; then
        echo "  not run: the module graph takes no $module $v with controller-runtime $cr:" >&2
        tail -3 "$tmp/get.log" >&2
        continue
      fi
      got=$(cd "$tmp/repo/$dir" && go list -m -f '{{.Version}}' "$module" sigs.k8s.io/controller-runtime | tr '\n' ' ')
      if [ "$got" != "$v $cr " ]; then
        echo "  not run: asked for $v and $cr, go mod tidy selected $got" >&2
        continue
      fi
      (cd "$tmp/repo/$dir" && LWREPLAY_FINDINGS=$out go test -count=1 -run "$tests" .) >&2 || true
    done
  done
done
go run ./hack/findingstable "$out"
