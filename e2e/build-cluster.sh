#!/usr/bin/env bash
# Builds kube-apiserver, kube-controller-manager and etcd from the Go module
# proxy into a cache outside the repo, for lwreplay's end-to-end tests.
# Repeat runs reuse the binaries.
#
#   e2e/build-cluster.sh            # prints the directory holding the binaries
#
# Environment: LWREPLAY_CACHE (default ~/.cache/lwreplay), KUBE_VERSION
# (default v1.37.2), ETCD_VERSION (default v3.6.16).
set -euo pipefail

KUBE_VERSION=${KUBE_VERSION:-v1.37.2}
ETCD_VERSION=${ETCD_VERSION:-v3.6.16}
CACHE=${LWREPLAY_CACHE:-$HOME/.cache/lwreplay}
BIN="$CACHE/bin"
APISERVER="$BIN/kube-apiserver-$KUBE_VERSION"
CONTROLLER_MANAGER="$BIN/kube-controller-manager-$KUBE_VERSION"
ETCD="$BIN/etcd-$ETCD_VERSION"
mkdir -p "$BIN"
# One build at a time: test packages running in parallel may all ask.
exec 9>"$CACHE/build.lock"
flock 9

log() { echo "build-cluster: $*" >&2; }

# build_kube OUT COMMAND-PACKAGE CONSTRUCTOR builds one of kubernetes'
# commands (its cobra command from CONSTRUCTOR in COMMAND-PACKAGE) into OUT,
# with the version stamped in.
build_kube() {
  local out=$1 cmdpkg=$2 ctor=$3
  local work staging_version gomod
  work=$(mktemp -d)
  trap 'rm -rf "$work"' RETURN
  # The staging modules (k8s.io/api, k8s.io/apiserver, ...) carry v0.X.Y for
  # kubernetes v1.X.Y.
  staging_version="v0.${KUBE_VERSION#v1.}"
  gomod=$(cd "$work" && go mod download -json "k8s.io/kubernetes@$KUBE_VERSION" |
    sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",*$/\1/p')
  [ -f "$gomod" ] || { log "cannot download k8s.io/kubernetes@$KUBE_VERSION"; return 1; }
  (
    cd "$work"
    cat >go.mod <<MOD
module lwreplay.invalid/$(basename "$(dirname "$cmdpkg")")

go 1.26.0

require k8s.io/kubernetes $KUBE_VERSION
MOD
    # Every ./staging replace of kubernetes' go.mod, pointed at the
    # published module of the same name.
    sed -n 's#^[[:space:]]*\(k8s.io/[^ ]*\) => ./staging/.*#\1#p' "$gomod" | while read -r m; do
      echo "replace $m => $m $staging_version" >>go.mod
    done
    cat >main.go <<MAIN
package main

import (
	"os"

	"k8s.io/component-base/cli"
	"$cmdpkg"
)

func main() {
	os.Exit(cli.Run(app.$ctor()))
}
MAIN
    GOFLAGS=-mod=mod go mod tidy >&2
    local minor=${KUBE_VERSION#v1.}
    minor=${minor%%.*}
    local pkg=k8s.io/component-base/version
    go build -trimpath -ldflags "-X $pkg.gitVersion=$KUBE_VERSION -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor \
      -X $pkg.gitTreeState=clean -X $pkg.buildDate=1970-01-01T00:00:00Z" -o "$out.tmp" . >&2
  )
  mv "$out.tmp" "$out"
}

build_etcd() {
  local work
  work=$(mktemp -d)
  trap 'rm -rf "$work"' RETURN
  (
    cd "$work"
    cat >go.mod <<MOD
module lwreplay.invalid/etcd

go 1.26.0

require go.etcd.io/etcd/server/v3 $ETCD_VERSION
MOD
    cat >main.go <<'MAIN'
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
MAIN
    GOFLAGS=-mod=mod go mod tidy >&2
    go build -trimpath -o "$ETCD.tmp" . >&2
  )
  mv "$ETCD.tmp" "$ETCD"
}

if [ ! -x "$ETCD" ]; then
  log "building etcd $ETCD_VERSION into $BIN (about 2 minutes)"
  build_etcd
fi
# A binary without the version stamped in (older builds of this script) is
# rebuilt, so that /version answers as the real release does.
if [ ! -x "$APISERVER" ] || ! "$APISERVER" --version 2>/dev/null | grep -qx "Kubernetes $KUBE_VERSION"; then
  log "building kube-apiserver $KUBE_VERSION into $BIN (about 8 minutes)"
  build_kube "$APISERVER" k8s.io/kubernetes/cmd/kube-apiserver/app NewAPIServerCommand
fi
# kube-controller-manager: the cluster's own controllers, for the
# differential of the actors module (actors/differential).
if [ ! -x "$CONTROLLER_MANAGER" ] || ! "$CONTROLLER_MANAGER" --version 2>/dev/null | grep -qx "Kubernetes $KUBE_VERSION"; then
  log "building kube-controller-manager $KUBE_VERSION into $BIN (about 6 minutes)"
  build_kube "$CONTROLLER_MANAGER" k8s.io/kubernetes/cmd/kube-controller-manager/app NewControllerManagerCommand
fi
"$ETCD" --version >/dev/null
"$APISERVER" --version >&2
"$CONTROLLER_MANAGER" --version >&2
echo "$BIN"
