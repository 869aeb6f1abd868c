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


ROUNDS = 5  # as ThinningBench's alternatingRounds


class Views:
    """A process that builds one set's index, prints a JSON line (its build figures, if any), then
    measures each view its standard input names ("world", "city"), a JSON line each."""

    def __init__(self, command, env=None):
        self.command = command
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
        self.built = self.read()

    def read(self):
        line = self.process.stdout.readline()
        if not line:
            sys.exit(f"{self.command[:2]} ended with {self.process.wait()}")
        return json.loads(line)

    def measure(self, view):
        self.process.stdin.write(view + "\n")
        self.process.stdin.flush()
        return self.read()

    def close(self):
        self.process.stdin.close()
        self.process.wait()


def alternating_views(bench: str, data: Path, d):
    """Meridian's and pysupercluster's views of one set in ROUNDS rounds taken in turn (the order
    switching every round), each side's p50 and p95 the median of its rounds: a burst of the shared
    host's other work lands on one round of one side, not on every figure of one side as when
    each was measured in its own minute. Both sides' resident growth comes from these processes
    (each built nothing else); pysupercluster's build time too. Without pysupercluster: Meridian's
    rounds alone."""
    sides = {"ours": Views([bench, str(data)], env={**os.environ, "THINNING_SERVE_SET": d["name"]})}
    try:
        import pysupercluster  # noqa: F401
        sides["theirs"] = Views([sys.executable, __file__, "--supercluster", str(data), json.dumps(d)])
    except ImportError as error:
        print(f"pysupercluster not available ({error}); Meridian's figures only", file=sys.stderr)
    figures = {side: dict(views.built) for side, views in sides.items()}
    for view in ("world", "city"):
        rounds = {side: [] for side in sides}
        for number in range(ROUNDS):
            for side in (list(sides) if number % 2 == 0 else list(reversed(sides))):
                rounds[side].append(sides[side].measure(view))
        for side, measured in rounds.items():
            figures[side][f"{view}P50"] = statistics.median(m["p50"] for m in measured)
            figures[side][f"{view}P95"] = statistics.median(m["p95"] for m in measured)
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
    # As ThinningBench's viewRuns: each view measured over tens of milliseconds or more.
    big = d["count"] >= 100_000
    views = {"world": (0, 0, 2, 1_000 if big else 20_000), "city": (d["city"]["latitude"], d["city"]["longitude"], 12, 20_000)}
    for line in sys.stdin:
        lat, lon, zoom, runs = views[line.strip()]
        top_left, bottom_right = box(lat, lon, zoom)
        for _ in range(max(3, runs // 20)):
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
    theirs = {}
    for d in datasets:
        alternated = alternating_views(bench, data, d)
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
            plain, aggregated = ours[name][f"{view}PlainP95"], ours[name][f"{view}AggregatesP95"]
            print(f"{name:<11} {view + ' +2 aggr. p95':<16} {ms(aggregated):>12} {'plain ' + ms(plain):>15} {aggregated / plain:>6.2f}×")
    print(f"\nuniform: index loaded from SQLite (1 M rows) in {ours['uniform']['databaseBuildSeconds']:.2f} s")
    print(f"HTTP POST /v1/annotations/thin, world z2, 1 M points: p50 {ms(web['p50'])}, p95 {ms(web['p95'])}"
          f" ({web['bytes']} bytes; server start to first answer {web['startToFirstAnswer']:.2f} s)")
    print("memory: Meridian = bytes of the index's arrays; pysupercluster = resident growth during its build;"
          " resident growth: Meridian's process during its build, the process that measures the set's views (it builds nothing else)")
    print("+2 aggr.: the same view with two aggregated properties (sum, min, max, mean, count of each) beside the"
          f" plain answer, alternating, median of {ROUNDS} p95s each; the ratio is aggregated ÷ plain (target ≤ 1.5)")
    print(f"views: Meridian (in a process of its own, THINNING_SERVE_SET) and pysupercluster measured in {ROUNDS} rounds"
          " taken in turn, the median of each side's p50s and p95s")
    print("write→answer: a create, move or delete through the SQLite store (one committed transaction each),"
          " amortized until the next thin answer includes them all; index apply: the index's share of it,"
          " the same mix applied in batches of 64 as the follower applies the feed")


if __name__ == "__main__":
    if sys.argv[1] == "--supercluster":
        supercluster_one(Path(sys.argv[2]), json.loads(sys.argv[3]))
    else:
        main()
