# Shared by the bench scripts (sourced): arguments, a scratch folder, and wrk.
# Usage inside a script: source "$(dirname "$0")/bench-common.sh" "$@"
set -euo pipefail
binary=$1
seconds=${2:-${BENCH_SECONDS:-10}}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
with_server="$here/../../scripts/with-server.sh"  # shared with the tests, so it stays in scripts/
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

run_wrk() { # path [script] → requests/s; wrk's whole output goes to $work/wrk.log
    local path=$1 script=${2:-}
    local args=(-t1 -c32 -d"${seconds}s" --latency)
    [ -n "$script" ] && args+=(-s "$script")
    wrk "${args[@]}" "$MERIDIAN_URL$path" | tee -a "$work/wrk.log" | awk '/Requests\/sec/ {print $2}'
}
export -f run_wrk
export work seconds
