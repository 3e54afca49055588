#!/usr/bin/env bash
# Regenerates the timeline screenshots under docs/: runs the
# browser test of the timeline pages (which installs chromium with
# e2e/install-chromium.sh where missing) and keeps its screenshots of the
# shipped WatchList cassette and of the tombstone example's failing run.
#
#   hack/timeline-screenshot.sh
set -euo pipefail

cd "$(dirname "$0")/.."
mkdir -p docs
LWREPLAY_TIMELINE_SHOTS="$PWD/docs" go test -count=1 -run '^TestTimelineInBrowser$' ./examples/tombstone/
ls -l docs/timeline-cassette.png docs/timeline-found-run.png
