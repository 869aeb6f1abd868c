#!/usr/bin/env bash
# The map page in headless Chromium (Debian's chromium and chromedriver, installed when missing)
# against a live server holding the demo cities; screenshots go to ARTIFACT_DIR.
# Usage: scripts/page-test.sh BINARY PYTHON [ARTIFACT_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
binary=$1; python=$2; artifacts=${3:-page-artifacts}
scripts/install-deps.sh chromium chromium-driver fonts-dejavu-core
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$binary" import Data/cities.geojson --database "$work/page.sqlite" >/dev/null
# A second origin: page-test.py serves a page there that calls the API with fetch().
origin_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
export PAGE_ORIGIN_PORT=$origin_port
SERVER_ARGS="--cors-origin http://127.0.0.1:$origin_port" SERVER_DATABASE="$work/page.sqlite" scripts/with-server.sh "$binary" "$python" scripts/page-test.py "$artifacts"
