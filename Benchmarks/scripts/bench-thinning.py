#!/usr/bin/env python3
"""Issue 5's thinning figures, Meridian beside pysupercluster on the same data and query boxes.

    Benchmarks/scripts/bench-thinning.py THINNING_BENCH MERIDIAN DATA_DIR

THINNING_BENCH is Benchmarks' release ThinningBench, MERIDIAN the release server binary.
Prints one table; every figure comes from this run.
"""
import http.client
import json
import math
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from benchlib import percentile, start_server

W = 2.0 ** 28


def rss() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def lonlat(x, y):
    return x / W * 360 - 180, math.degrees(math.atan(math.sinh(math.pi * (1 - 2 * y / W))))


def box(lat, lon, zoom, width=1024, height=768):
    """The (top-left, bottom-right) lon/lat of a view centred at (lat, lon), as Meridian's viewport has it."""
    scale = 2.0 ** (zoom - 20)
    s = math.sin(math.radians(lat))
    cx, cy = (lon + 180) / 360 * W, (0.5 - math.log((1 + s) / (1 - s)) / (4 * math.pi)) * W
    w, h = width / scale, height / scale
    west, north = lonlat(max(cx - w / 2, 0), max(cy - h / 2, 0))
    east, south = lonlat(min(cx + w / 2, W), min(cy + h / 2, W))
    return (west, north), (east, south)


ROUNDS = 5  # odd: each figure is its rounds' middle one


class Views:
    """A process that builds one set's index, prints a JSON line (its build figures), then
    measures each view its standard input names ("<view> <queries>"), a JSON line each."""

    def __init__(self, command, env=None):
        self.command = command
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
        self.built = self.read()

    def read(self):
        line = self.process.stdout.readline()
        if not line:
            sys.exit(f"{self.command[:2]} ended with {self.process.wait()}")
        return json.loads(line)

    def measure(self, view, runs):
        self.process.stdin.write(f"{view} {runs}\n")
        self.process.stdin.flush()
        return self.read()

    def close(self):
        self.process.stdin.close()
        self.process.wait()


def alternating_views(bench: str, data: Path, d, supercluster: bool):
    """One set's views in ROUNDS rounds, each round Meridian's plain answer, pysupercluster's and
    Meridian's with two aggregated properties, the order rotating every round; each figure the
    middle one of its rounds. A burst of the shared host's other work lands on one round of one
    measurement, not on every figure of one side, as when each side was measured in its own
    minute. Both sides build once in a fresh process of their own (build time and resident growth
    from there); the query counts are ThinningBench's (`viewRuns`), given to both."""
    sides = {"ours": Views([bench, str(data)], env={**os.environ, "THINNING_SERVE_SET": d["name"]})}
    if supercluster:
        sides["theirs"] = Views([sys.executable, __file__, "--supercluster", str(data), json.dumps(d)])
    figures = {side: {k: v for k, v in views.built.items() if k != "runs"} for side, views in sides.items()}
    for view, runs in sides["ours"].built["runs"].items():
        measurements = [("ours", view, "P"), ("theirs", view, "P"), ("ours", view + "+aggregates", "AggregatesP")]
        measurements = [m for m in measurements if m[0] in sides]
        rounds = {m: [] for m in measurements}
        for number in range(ROUNDS):
            turn = number % len(measurements)
            for m in measurements[turn:] + measurements[:turn]:
                rounds[m].append(sides[m[0]].measure(m[1], runs))
        for (side, _, prefix), measured in rounds.items():
            for p in ("50", "95"):
                figures[side][f"{view}{prefix}{p}"] = sorted(r[f"p{p}"] for r in measured)[ROUNDS // 2]
            if prefix == "P":
                figures[side][f"{view}Items"] = measured[0]["items"]
    for views in sides.values():
        views.close()
    return figures


def supercluster_one(data: Path, d):
    """Builds, prints its build figures, then measures the views standard input names (Views)."""
    import numpy as np
    import pysupercluster
    points = np.fromfile(data / f"{d['name']}.f64", dtype="<f8").reshape(-1, 2)
    before = rss()
    start = time.perf_counter()
    index = pysupercluster.SuperCluster(points, min_zoom=0, max_zoom=16, radius=40, extent=512)
    print(json.dumps({"buildSeconds": time.perf_counter() - start, "residentGrowthBytes": rss() - before}), flush=True)
    views = {"world": (0, 0, 2), "city": (d["city"]["latitude"], d["city"]["longitude"], 12)}
    for line in sys.stdin:
        view, runs = line.split()
        (lat, lon, zoom), runs = views[view], int(runs)
        top_left, bottom_right = box(lat, lon, zoom)
        for _ in range(max(3, runs // 20)):  # warm-up, as ThinningBench's
            items = index.getClusters(top_left=top_left, bottom_right=bottom_right, zoom=zoom)
        times = []
        for _ in range(runs):
            start = time.perf_counter()
            index.getClusters(top_left=top_left, bottom_right=bottom_right, zoom=zoom)
            times.append(time.perf_counter() - start)
        times.sort()
        print(json.dumps({"p50": percentile(times, 50), "p95": percentile(times, 95), "items": len(items)}), flush=True)


def http_figures(meridian: str, database: str):
    """p50/p95 of POST /v1/annotations/thin (world, zoom 2) on the 1 M-point database, one keep-alive client."""
    started = time.perf_counter()
    server, port, _ = start_server(meridian, database, ["--log-level", "warning"])
    try:
        connection = http.client.HTTPConnection("127.0.0.1", port)
        body = json.dumps({"viewport": {"size": {"width": 1024, "height": 768}, "center": {"latitude": 0, "longitude": 0}, "zoomLevel": 2}})
        times, size = [], 0
        for i in range(550):
            start = time.perf_counter()
            connection.request("POST", "/v1/annotations/thin", body, {"Content-Type": "application/json"})
            response = connection.getresponse()
            payload = response.read()
            elapsed = time.perf_counter() - start
            assert response.status == 200, payload[:300]
            if i == 0:
                first = time.perf_counter() - started
            if i >= 50:
                times.append(elapsed)
            size = len(payload)
        times.sort()
        return {"p50": percentile(times, 50), "p95": percentile(times, 95), "bytes": size, "startToFirstAnswer": first}
    finally:
        server.terminate()
        server.wait()


def main():
    bench, meridian, data = sys.argv[1], sys.argv[2], Path(sys.argv[3])
    datasets = json.loads((data / "datasets.json").read_text())
    database = str(data / "uniform.sqlite")
    print("measuring Meridian's index (ThinningBench)…", file=sys.stderr)
    run = subprocess.run([bench, str(data), database], capture_output=True, text=True)
    if run.returncode != 0:
        # A trap's message is on the child's stderr: show it rather than only the signal.
        sys.exit(f"ThinningBench failed ({run.returncode}):\n{run.stderr[-4000:]}")
    ours = json.loads(run.stdout)
    print(f"measuring the views, Meridian and pysupercluster in {ROUNDS} alternating rounds…", file=sys.stderr)
    try:
        import pysupercluster  # noqa: F401
        supercluster = True
    except ImportError as error:
        print(f"pysupercluster not available ({error}); Meridian's figures only", file=sys.stderr)
        supercluster = False
    theirs = {}
    for d in datasets:
        alternated = alternating_views(bench, data, d, supercluster)
        ours[d["name"]].update(alternated["ours"])
        if "theirs" in alternated:
            theirs[d["name"]] = alternated["theirs"]
    print("measuring HTTP…", file=sys.stderr)
    web = http_figures(meridian, database)

    def ms(v):
        # Views answered in microseconds keep their digits.
        return "–" if v is None else f"{v * 1e6:.2f} µs" if v < 1e-4 else f"{v * 1e3:.3f} ms"

    rows = [("build", lambda f: f"{f['buildSeconds']:.2f} s"),
            ("memory", lambda f: f"{f.get('indexBytes', f['residentGrowthBytes']) / 1e6:.0f} MB"),
            ("world z2 p50", lambda f: ms(f["worldP50"])), ("world z2 p95", lambda f: ms(f["worldP95"])),
            ("world z2 items", lambda f: f"{f['worldItems']:.0f}"),
            ("city z12 p50", lambda f: ms(f["cityP50"])), ("city z12 p95", lambda f: ms(f["cityP95"])),
            ("city z12 items", lambda f: f"{f['cityItems']:.0f}")]
    print(f"\n{'data set':<11} {'figure':<16} {'Meridian':>12} {'pysupercluster':>15} {'ratio':>7}")
    for d in datasets:
        name = d["name"]
        for label, show in rows:
            mine = show(ours[name])
            other = show(theirs[name]) if name in theirs else "–"
            ratio = ""
            key = {"build": "buildSeconds", "world z2 p95": "worldP95", "city z12 p95": "cityP95"}.get(label)
            if key and name in theirs and ours[name][key] > 0:
                ratio = f"{theirs[name][key] / ours[name][key]:.1f}×"
            print(f"{name:<11} {label:<16} {mine:>12} {other:>15} {ratio:>7}")
        print(f"{name:<11} {'resident growth':<16} {ours[name]['residentGrowthBytes'] / 1e6:>9.0f} MB {'–':>15}")
        print(f"{name:<11} {'write→answer':<16} {ours[name]['writeSeconds'] * 1e6:>9.2f} µs {'–':>15}")
        print(f"{name:<11} {'index apply':<16} {ours[name]['applySeconds'] * 1e6:>9.2f} µs {'–':>15}")
        for view in ("world", "city"):
            plain, aggregated = ours[name][f"{view}P95"], ours[name][f"{view}AggregatesP95"]
            print(f"{name:<11} {view + ' +2 aggr. p95':<16} {ms(aggregated):>12} {'plain ' + ms(plain):>15} {aggregated / plain:>6.2f}×")
    print(f"\nuniform: index loaded from SQLite (1 M rows) in {ours['uniform']['databaseBuildSeconds']:.2f} s")
    print(f"HTTP POST /v1/annotations/thin, world z2, 1 M points: p50 {ms(web['p50'])}, p95 {ms(web['p95'])}"
          f" ({web['bytes']} bytes; server start to first answer {web['startToFirstAnswer']:.2f} s)")
    print("build: one build in a fresh process on each side; memory: Meridian = bytes of the index's arrays,"
          " pysupercluster = resident growth during its build; resident growth: Meridian's process during its build")
    print(f"views: {ROUNDS} rounds, each Meridian's plain answer, pysupercluster's and Meridian's with two aggregated"
          " properties (sum, min, max, mean, count of each), the order rotating; each figure the middle one of its rounds;"
          " +2 aggr.: aggregated ÷ plain (target ≤ 1.5)")
    print("write→answer: a create, move or delete through the SQLite store (one committed transaction each),"
          " amortized until the next thin answer includes them all; index apply: the index's share of it,"
          " the same mix applied in batches of 64 as the follower applies the feed")


if __name__ == "__main__":
    if sys.argv[1] == "--supercluster":
        supercluster_one(Path(sys.argv[2]), json.loads(sys.argv[3]))
    else:
        main()
