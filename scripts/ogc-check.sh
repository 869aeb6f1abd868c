#!/usr/bin/env bash
# Real OGC API – Features clients against a live server, as a deployment runs it (API keys, two
# tenants): the demo cities in tenant `default`, the OGC's CQL2 test layer (243 points,
# Tests/Fixtures/cql2) alone in tenant `cql2`, a key for each; then scripts/ogc-check.py.
# On the PostgreSQL database MERIDIAN_POSTGRES_URL names when it is set (scripts/with-postgres.sh), else on a SQLite file.
# Usage: scripts/ogc-check.sh BINARY PYTHON [ogc-check.py ARGS…]
set -euo pipefail
cd "$(dirname "$0")/.."
binary=$1; python=$2; shift 2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
database=${MERIDIAN_POSTGRES_URL:-$work/ogc.sqlite}
echo "OGC API clients on $database"
"$binary" import Data/cities.geojson --database "$database" >/dev/null
"$binary" import Tests/Fixtures/cql2/ne_110m_populated_places_simple.geojson --tenant cql2 --database "$database" >/dev/null
MERIDIAN_KEY=$("$binary" keys create --tenant default --role reader --name ogc-check --database "$database" | head -1)
MERIDIAN_CQL2_KEY=$("$binary" keys create --tenant cql2 --role reader --name ogc-check --database "$database" | head -1)
export MERIDIAN_KEY MERIDIAN_CQL2_KEY SERVER_DATABASE="$database"
scripts/with-server.sh "$binary" "$python" scripts/ogc-check.py "$@"
