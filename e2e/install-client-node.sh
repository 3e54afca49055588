#!/usr/bin/env bash
# Installs the official Kubernetes JavaScript client (@kubernetes/client-node)
# from npm into a cache outside the repo, for lwreplay's end-to-end test of a
# non-Go client. Repeat runs reuse the install.
#
#   e2e/install-client-node.sh      # prints the directory holding node_modules
#
# Environment: LWREPLAY_CACHE (default ~/.cache/lwreplay), CLIENT_NODE_VERSION
# (default 1.4.0).
set -euo pipefail

CLIENT_NODE_VERSION=${CLIENT_NODE_VERSION:-1.4.0}
CACHE=${LWREPLAY_CACHE:-$HOME/.cache/lwreplay}
DIR="$CACHE/client-node-$CLIENT_NODE_VERSION"
PKG="$DIR/node_modules/@kubernetes/client-node/package.json"

log() { echo "install-client-node: $*" >&2; }

command -v node >/dev/null || { log "no node on PATH"; exit 1; }
command -v npm >/dev/null || { log "no npm on PATH"; exit 1; }
mkdir -p "$CACHE"
# One install at a time: test packages running in parallel may all ask.
exec 9>"$CACHE/client-node.lock"
flock 9

installed() {
  [ -f "$PKG" ] && node -e 'process.exit(require(process.argv[1]).version === process.argv[2] ? 0 : 1)' "$PKG" "$CLIENT_NODE_VERSION"
}

if ! installed; then
  log "installing @kubernetes/client-node@$CLIENT_NODE_VERSION into $DIR"
  work=$(mktemp -d "$CACHE/client-node.XXXXXX")
  chmod 755 "$work"
  trap 'rm -rf "$work"' EXIT
  (
    cd "$work"
    echo '{"name":"lwreplay-client-node","private":true}' >package.json
    npm install --no-audit --no-fund --no-save --loglevel=error "@kubernetes/client-node@$CLIENT_NODE_VERSION" >&2
  )
  rm -rf "$DIR"
  mv "$work" "$DIR"
  trap - EXIT
  installed || { log "the install in $DIR holds no client-node $CLIENT_NODE_VERSION"; exit 1; }
fi
echo "$DIR"
