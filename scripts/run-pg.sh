#!/usr/bin/env bash
# make run-pg: two `meridian serve` instances on one throw-away PostgreSQL (started by
# scripts/with-postgres.sh, which runs this and removes the database when it ends), the demo
# cities imported once. Any request may go to either instance: nothing is sticky.
# Usage: scripts/with-postgres.sh scripts/run-pg.sh BIN HOST PORT_A PORT_B
set -euo pipefail
bin=$1 host=$2 port_a=$3 port_b=$4
"$bin" import Data/cities.geojson --database "$MERIDIAN_POSTGRES_URL" --if-empty
"$bin" serve --host "$host" --port "$port_a" --database "$MERIDIAN_POSTGRES_URL" & a=$!
"$bin" serve --host "$host" --port "$port_b" --database "$MERIDIAN_POSTGRES_URL" & b=$!
trap 'kill $a $b 2>/dev/null; wait' EXIT INT TERM
echo "Meridian on http://$host:$port_a and http://$host:$port_b, one database: $MERIDIAN_POSTGRES_URL (Ctrl-C stops both and removes it)"
wait -n
