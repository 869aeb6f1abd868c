#!/usr/bin/env bash
# HTTP throughput of the conversion API with wrk, one run, side by side:
# GET /healthz vs a 1-coordinate conversion (target ratio ≥ 0.5), and points/s in 1 000-point
# batches (target ≥ 5 million/s). Usage: Benchmarks/scripts/bench-http.sh BINARY [seconds]
source "$(dirname "$0")/bench-common.sh" "$@"

python3 - "$work" <<'PY'
import json, random, sys
work = sys.argv[1]
rng = random.Random(42)
one = {"coordinates": [{"latitude": 35.681236, "longitude": 139.767125}]}
batch = {"coordinates": [{"latitude": rng.uniform(-85, 85), "longitude": rng.uniform(-180, 180)} for _ in range(1000)]}
for name, body in (("one", one), ("batch", batch)):
    with open(f"{work}/{name}.json", "w") as f:
        json.dump(body, f)
    with open(f"{work}/{name}.lua", "w") as f:
        f.write('wrk.method = "POST"\nwrk.headers["Content-Type"] = "application/json"\n')
        f.write(f'local f = io.open("{work}/{name}.json"); wrk.body = f:read("*a"); f:close()\n')
PY

measure() {
    run_wrk /healthz >/dev/null  # warm-up
    health=$(run_wrk /healthz)
    one=$(run_wrk /v1/convert/coordinates-to-map-points "$work/one.lua")
    batch=$(run_wrk /v1/convert/coordinates-to-map-points "$work/batch.lua")
    python3 - "$health" "$one" "$batch" <<'PY'
import sys
health, one, batch = map(float, sys.argv[1:])
print(f"GET /healthz                          {health:12,.0f} req/s")
print(f"POST coordinates-to-map-points, 1     {one:12,.0f} req/s   ratio to healthz {one / health:.2f} (target >= 0.5)")
print(f"POST coordinates-to-map-points, 1000  {batch:12,.0f} req/s = {batch * 1000:,.0f} points/s (target >= 5,000,000)")
PY
}
export -f measure
"$with_server" "$binary" bash -c measure
