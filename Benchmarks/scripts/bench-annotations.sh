#!/usr/bin/env bash
# Annotation writes on the SQLite default (a WAL file, synchronous=NORMAL), one run, side by side:
# single creates/s with wrk (POST /v1/annotations, 32 connections) next to GET /healthz, and
# imported features/s for 50 000-feature GeoJSON bodies (target ≥ 50 000/s).
# Usage: Benchmarks/scripts/bench-annotations.sh BINARY [seconds]
source "$(dirname "$0")/bench-common.sh" "$@"

python3 - "$work" <<'PY'
import json, random, sys
work = sys.argv[1]
with open(f"{work}/create.lua", "w") as f:
    f.write('wrk.method = "POST"\nwrk.headers["Content-Type"] = "application/json"\n')
    f.write('wrk.body = \'{"coordinate":{"latitude":35.681236,"longitude":139.767125},"title":"Tokyo Station","kind":"station","properties":{"lines":12}}\'\n')
for run in range(5):
    rng = random.Random(run)
    features = [{
        "type": "Feature",
        "geometry": {"type": "Point", "coordinates": [round(rng.uniform(-180, 180), 6), round(rng.uniform(-85, 85), 6)]},
        "properties": {"externalId": f"bench:{run}:{i}", "title": f"Pin {i}", "kind": rng.choice(["shop", "cafe", "park"]),
                       "displayPriority": rng.randint(0, 999), "properties": {"rank": i, "open": i % 2 == 0}},
    } for i in range(50_000)]
    with open(f"{work}/import-{run}.geojson", "w") as f:
        json.dump({"type": "FeatureCollection", "features": features}, f, separators=(",", ":"))
PY

post_import() { # file → seconds
    curl -fsS -o "$work/answer.json" -w '%{time_total}' -H 'Content-Type: application/geo+json' \
        --data-binary "@$1" "$MERIDIAN_URL/v1/annotations/import"
}

measure() {
    run_wrk /healthz >/dev/null  # warm-up
    health=$(run_wrk /healthz)
    creates=$(run_wrk /v1/annotations "$work/create.lua")
    times=()
    for run in 0 1 2 3 4; do times+=("$(post_import "$work/import-$run.geojson")"); done
    again=$(post_import "$work/import-0.geojson")  # the same features again: all unchanged
    python3 - "$health" "$creates" "$again" "${times[@]}" <<'PY'
import statistics, sys
health, creates, again, *times = map(float, sys.argv[1:])
best = min(times)
print(f"GET /healthz                       {health:10,.0f} req/s")
print(f"POST /v1/annotations (create)      {creates:10,.0f} req/s   ratio to healthz {creates / health:.2f}")
print(f"POST /v1/annotations/import 50k    {50_000 / best:10,.0f} features/s created (best of 5; median {50_000 / statistics.median(times):,.0f}) target >= 50,000")
print(f"  the same 50k again               {50_000 / again:10,.0f} features/s unchanged")
PY
}
export -f post_import measure
SERVER_DATABASE="$work/bench.sqlite" "$with_server" "$binary" bash -c measure
