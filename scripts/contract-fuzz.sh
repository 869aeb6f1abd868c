#!/usr/bin/env bash
# Runs schemathesis (pinned in scripts/requirements-contract.txt, its own venv) over the whole contract, served as JSON
# by a live server holding the demo cities, with every check on; any failure fails the build.
# Long polls and event streams are capped at 1 s for the run (`--max-wait`), not excluded.
# It runs with an API key; every operation must also refuse requests without a valid one (401).
# On the PostgreSQL database MERIDIAN_POSTGRES_URL names when it is set (scripts/with-postgres.sh), else on a SQLite file.
# Usage: scripts/contract-fuzz.sh BINARY VENV_BIN [EXAMPLES]
set -euo pipefail
cd "$(dirname "$0")/.."
binary=$1; venv=$2; examples=${3:-${CONTRACT_EXAMPLES:-50}}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
database=${MERIDIAN_POSTGRES_URL:-$work/fuzz.sqlite}
echo "contract fuzzing on $database"
"$binary" import Data/cities.geojson --database "$database" >/dev/null
# The secured contract: every request carries an admin key of the default tenant (whose data the
# import filled, and whose admins may read /metrics); schemathesis's ignored_auth check sends each
# operation again without it and with a wrong one, and fails unless the server answers 401.
key=$("$binary" keys create --tenant default --role admin --name contract-fuzz --database "$database" | head -1)
# The contract's own formats (proj-crs) are taught to schemathesis by a hooks module.
export SERVER_DATABASE="$database" MERIDIAN_MAX_WAIT=1 MERIDIAN_WEBHOOK_ALLOW_CIDR=127.0.0.0/8 MERIDIAN_WEBHOOK_TIMEOUT=2 PYTHONPATH="$PWD/scripts" SCHEMATHESIS_HOOKS=schemathesis_hooks
scripts/with-server.sh "$binary" bash -c '
    "$0/st" --config-file schemathesis.toml run "$MERIDIAN_URL/openapi.json" --checks all --max-examples "$1" --seed 14 \
        --request-timeout 10 --generation-database none --no-color --header "Authorization: Bearer $3" \
        --report junit --report-dir "$2"
' "$venv" "$examples" "$work" "$key"
