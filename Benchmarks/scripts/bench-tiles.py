#!/usr/bin/env python3
"""Cluster vector tiles at 1 M points: time per tile over HTTP, beside the same rect's thin answer.

One release server on a 1 000 000-point database (gaussian blobs around the demo cities, drawn by
population, plus a uniform tenth; deterministic). The tiles are those a map client fetches for
four kinds of view (the world at zoom 2, Europe at zoom 5, city regions at zoom 8, cities at zoom
12; 1024 × 768 views, every tile they touch). Each tile is asked for as MVT and, interleaved in
the same run, as the thin endpoint's JSON for a 256 × 256 view of exactly the tile (the same
thinning, written as JSON): the baseline. Also timed: a revalidation (If-None-Match → 304).
Usage: python3 Benchmarks/scripts/bench-tiles.py MERIDIAN_BINARY
"""
import http.client
import json
import math
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchlib import percentile, start_server

W = 2.0 ** 28
POINTS = 1_000_000
ROUNDS = 3


def data(path):
    """1 M points: nine tenths in blobs around the demo cities (by population), a tenth uniform."""
    rng = random.Random(19)
    cities = json.loads(Path("Data/cities.geojson").read_text())["features"]
    weights = [max(1, f["properties"].get("properties", {}).get("population", 1)) for f in cities]
    centres = rng.choices([f["geometry"]["coordinates"] for f in cities], weights=weights, k=POINTS)
    with open(path, "w") as out:
        out.write('{"type":"FeatureCollection","features":[')
        for i, (lon, lat) in enumerate(centres):
            if i % 10 == 9:
                lon, lat = rng.uniform(-180, 180), rng.uniform(-80, 80)
            else:
                sigma = rng.choice([0.02, 0.05, 0.2])
                lon, lat = (lon + rng.gauss(0, sigma) + 180) % 360 - 180, max(-85, min(85, lat + rng.gauss(0, sigma)))
            kind = "city" if i % 3 else "town"
            out.write(("," if i else "") + f'{{"type":"Feature","geometry":{{"type":"Point","coordinates":[{lon:.6f},{lat:.6f}]}},"properties":{{"kind":"{kind}"}}}}')
        out.write("]}")


def tiles_of_view(lat, lon, zoom, width=1024, height=768):
    """The tiles a 1024 × 768 view centred there touches (x wrapped, y clamped)."""
    side = W / 2 ** zoom
    scale = 256 / side  # screen points per map point
    x = (lon + 180) / 360 * W
    s = math.sin(math.radians(lat))
    y = (0.5 - math.log((1 + s) / (1 - s)) / (4 * math.pi)) * W
    x0, x1 = x - width / 2 / scale, x + width / 2 / scale
    y0, y1 = max(0, y - height / 2 / scale), min(W - 1, y + height / 2 / scale)
    return [(zoom, tx % 2 ** zoom, ty) for tx in range(int(x0 // side), int(x1 // side) + 1)
            for ty in range(int(y0 // side), int(y1 // side) + 1)][: 4 ** zoom]


def views():
    rng = random.Random(7)
    cities = [(48.8566, 2.3522), (40.7128, -74.006), (35.6762, 139.6503), (-23.5505, -46.6333), (28.6139, 77.209), (51.5074, -0.1278)]
    chosen = {"world z2": tiles_of_view(20, 0, 2), "Europe z5": tiles_of_view(50, 10, 5)}
    chosen["cities z8"] = [t for lat, lon in cities for t in tiles_of_view(lat + rng.uniform(-1, 1), lon + rng.uniform(-1, 1), 8)]
    chosen["cities z12"] = [t for lat, lon in cities for t in tiles_of_view(lat, lon, 12)]
    return chosen


def timed(connection, method, path, body=None, headers=None):
    start = time.perf_counter()
    connection.request(method, path, body, headers or {})
    response = connection.getresponse()
    payload = response.read()
    return time.perf_counter() - start, response, payload


def main():
    binary = sys.argv[1]
    with tempfile.TemporaryDirectory() as folder:
        geojson, database = f"{folder}/points.geojson", f"{folder}/tiles.sqlite"
        print("writing and importing 1 M points…", file=sys.stderr)
        data(geojson)
        subprocess.run([binary, "import", geojson, "--database", database], check=True, stdout=subprocess.DEVNULL)
        server, port, _ = start_server(binary, database, ["--log-level", "warning"])
        try:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            _, response, root = timed(connection, "GET", "/v1/tiles/clusters/0/0/0.mvt")
            assert response.status == 200, root[:200]
            print(f"{'view':<11} {'tiles':>5} {'MVT p50':>9} {'MVT p95':>9} {'thin p50':>9} {'thin p95':>9} {'p95 ratio':>9} {'MVT bytes':>10} {'JSON bytes':>11} {'304 p95':>8}")
            everything = {"mvt": [], "thin": [], "304": []}
            for name, tiles in views().items():
                times = {"mvt": [], "thin": [], "304": []}
                sizes = {"mvt": [], "thin": []}
                for round_ in range(ROUNDS):
                    for z, x, y in tiles:
                        side = W / 2 ** z
                        body = json.dumps({"viewport": {"size": {"width": 256, "height": 256}, "visibleMapRect": {
                            "origin": {"x": x * side, "y": y * side}, "size": {"width": side, "height": side}}}, "limit": 10000})
                        order = ["mvt", "thin"] if (round_ + x + y) % 2 == 0 else ["thin", "mvt"]
                        for kind in order:
                            if kind == "mvt":
                                elapsed, response, payload = timed(connection, "GET", f"/v1/tiles/clusters/{z}/{x}/{y}.mvt")
                                tag = response.getheader("ETag")
                            else:
                                elapsed, response, payload = timed(connection, "POST", "/v1/annotations/thin", body, {"Content-Type": "application/json"})
                            assert response.status == 200, payload[:200]
                            if round_ > 0:  # the first round warms up
                                times[kind].append(elapsed)
                                sizes[kind].append(len(payload))
                        elapsed, response, _ = timed(connection, "GET", f"/v1/tiles/clusters/{z}/{x}/{y}.mvt", headers={"If-None-Match": tag})
                        assert response.status == 304
                        if round_ > 0:
                            times["304"].append(elapsed)
                for kind in times:
                    times[kind].sort()
                    everything[kind] += times[kind]
                ms = lambda kind, p: percentile(times[kind], p) * 1e3
                print(f"{name:<11} {len(tiles):>5} {ms('mvt', 50):>7.2f}ms {ms('mvt', 95):>7.2f}ms {ms('thin', 50):>7.2f}ms {ms('thin', 95):>7.2f}ms"
                      f" {ms('mvt', 95) / ms('thin', 95):>9.2f} {sum(sizes['mvt']) / len(sizes['mvt']):>10.0f} {sum(sizes['thin']) / len(sizes['thin']):>11.0f} {ms('304', 95):>6.2f}ms")
            for kind in everything:
                everything[kind].sort()
            p95 = {kind: percentile(values, 95) * 1e3 for kind, values in everything.items()}
            print(f"{'all':<11} {len(everything['mvt']):>5} requests each: MVT p95 {p95['mvt']:.2f} ms, thin JSON p95 {p95['thin']:.2f} ms"
                  f" (ratio {p95['mvt'] / p95['thin']:.2f}), 304 p95 {p95['304']:.2f} ms; root tile {len(root)} bytes")
        finally:
            server.terminate()
            server.wait()


if __name__ == "__main__":
    main()
