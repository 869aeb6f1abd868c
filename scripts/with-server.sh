#!/usr/bin/env bash
# Starts `meridian serve` on a free loopback port with an in-memory database, waits until it is
# ready, runs the given command with MERIDIAN_URL set, then stops the server.
# SERVER_DATABASE=PATH uses that SQLite file instead of memory; SERVER_ARGS adds flags to `serve`.
# Usage: scripts/with-server.sh BINARY COMMAND [ARGS…]
set -euo pipefail
binary=$1; shift
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
log=$(mktemp)
"$binary" serve --host 127.0.0.1 --port "$port" --database "${SERVER_DATABASE:-:memory:}" --log-level warning ${SERVER_ARGS:-} >"$log" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; rm -f "$log"' EXIT
for _ in $(seq 1 100); do
    curl -fsS "http://127.0.0.1:$port/readyz" >/dev/null 2>&1 && break
    kill -0 "$server" 2>/dev/null || { echo "server exited:"; cat "$log"; exit 1; }
    sleep 0.1
done
MERIDIAN_URL="http://127.0.0.1:$port" "$@"
