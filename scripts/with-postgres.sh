#!/usr/bin/env bash
# Starts a throw-away PostgreSQL 15 with PostGIS on a free loopback port (Debian's packages,
# installed when missing; initdb in a temp dir as an unprivileged user: `postgres` when run as
# root), runs COMMAND with MERIDIAN_POSTGRES_URL naming its empty database (and
# MERIDIAN_POSTGRES_TEMPLATE a database with PostGIS that tests copy, MERIDIAN_POSTGRES_CTL a
# command that stops (immediately) or starts it again), then stops it and
# removes its files. Trust authentication on loopback only; fsync off (nothing outlives the run).
# Usage: scripts/with-postgres.sh COMMAND [ARGS…]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh postgresql-15 postgresql-15-postgis-3
bin=/usr/lib/postgresql/15/bin
dir=$(mktemp -d /tmp/meridian-pg.XXXXXX)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
as_owner=()
if [ "$(id -u)" -eq 0 ]; then
    chown postgres "$dir"
    as_owner=(runuser -u postgres --)
fi
stop() {
    "${as_owner[@]}" "$bin/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true
    rm -rf "$dir"
}
trap stop EXIT
"${as_owner[@]}" "$bin/initdb" -D "$dir/data" -U meridian --auth=trust -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 \
    || { cat "$dir/initdb.log"; exit 1; }
# $dir/ctl stop|start: an immediate stop (as a crash or a failover does) and a start with the same
# settings, for tests that take the database away under load (MERIDIAN_POSTGRES_CTL).
cat >"$dir/ctl" <<CTL
#!/usr/bin/env bash
set -euo pipefail
case "\$1" in
    stop) ${as_owner[*]} "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null ;;
    start) ${as_owner[*]} "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \\
        -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=1000" start >/dev/null ;;
esac
CTL
chmod +x "$dir/ctl"
"$dir/ctl" start || { cat "$dir/server.log"; exit 1; }
"${as_owner[@]}" "$bin/createdb" -h 127.0.0.1 -p "$port" -U meridian meridian
# Tests copy fresh databases from this one: PostGIS is installed once, not per test.
"${as_owner[@]}" "$bin/createdb" -h 127.0.0.1 -p "$port" -U meridian meridian_template
"${as_owner[@]}" "$bin/psql" -q -h 127.0.0.1 -p "$port" -U meridian -d meridian_template -c "CREATE EXTENSION postgis"
MERIDIAN_POSTGRES_URL="postgres://meridian@127.0.0.1:$port/meridian" MERIDIAN_POSTGRES_TEMPLATE=meridian_template \
    MERIDIAN_POSTGRES_CTL="$dir/ctl" "$@"
