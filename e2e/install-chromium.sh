#!/usr/bin/env bash
# Installs Debian's chromium where it is missing, for the browser test of
# lwreplay's timeline pages, and prints the path of the chromium binary.
#
#   e2e/install-chromium.sh      # prints e.g. /usr/bin/chromium
#
# Needs root (or sudo) for apt-get; exits 1, saying why, when it cannot
# install.
set -euo pipefail

log() { echo "install-chromium: $*" >&2; }

for b in chromium chromium-browser; do
  if p=$(command -v "$b"); then echo "$p"; exit 0; fi
done
command -v apt-get >/dev/null || { log "no chromium and no apt-get"; exit 1; }
SUDO=
if [ "$(id -u)" != 0 ]; then
  command -v sudo >/dev/null || { log "no chromium, not root and no sudo"; exit 1; }
  SUDO="sudo -n"
fi
# One install at a time: test packages running in parallel may all ask.
mkdir -p "${TMPDIR:-/tmp}"
exec 9>"${TMPDIR:-/tmp}/lwreplay-install-chromium.lock"
flock 9
if ! command -v chromium >/dev/null; then
  log "installing chromium with apt-get"
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y chromium >&2 ||
    { DEBIAN_FRONTEND=noninteractive $SUDO apt-get update >&2 && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y chromium >&2; } ||
    { log "apt-get install chromium failed"; exit 1; }
fi
command -v chromium
