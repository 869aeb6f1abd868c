#!/usr/bin/env python3
"""Issue 6's ingest figures: fixes/s through POST /v1/devices/{id}/locations with and without subscriptions.

    Benchmarks/scripts/bench-tracking.py MERIDIAN

MERIDIAN is the release server binary. Three configurations, each on a fresh SQLite file (WAL, on
disk) in its own server process, the same fixes posted to each:

  a. no subscriptions (the baseline);
  b. 10 000 region subscriptions for every device: 5 000 circles (radius 200–2 000 m) and 5 000
     convex polygons (6–12 vertices, 200–2 000 m around a centre), centres uniform over Portland's
     metro area (lat 45.3–45.8, lon −123.0…−122.3);
  c. the same 10 000 regions and one significant-change subscription for every device;
  d. the same 10 000 regions with `detect: ["cross"]` (a passage between two fixes outside);
  e. 1 000 corridors: routes of 5–20 legs of 300–1 500 m wandering across the area, 50–400 m wide;
  f. no subscriptions, the tracking apps' protocols (OwnTracks, OsmAnd query and JSON, Overland)
     against the native route storing the same fixes (the same attributes) in the same request
     shape (bench_protocols.py): 200 devices,
     BENCH_PROTOCOL_FIXES timed fixes per protocol (default 50 000, rounded up to 50 a device)
     after 10 000 of warm-up;
  g. a fleet of 10 000 vans (bench_fleet.py) without subscriptions (g0), then with one visits and
     one status subscription for every device (g1): BENCH_FLEET_FIXES timed fixes (default 200 000)
     after 100 000 of warm-up.
BENCH_PARTS picks configurations (default abcdefg; `f` alone measures only the protocols).

1 000 devices walk (1 s per fix in event time, 30–100 m steps, slowly turning heading) inside the
same area; each request is a batch of 50 fixes of one device, devices round-robin, 8 keep-alive
client threads (a device always on the same thread, so its batches arrive in order). A warm-up
of BENCH_WARMUP fixes, then BENCH_FIXES timed fixes (defaults 10 000 and 100 000; BENCH_THREADS
changes the 8 client threads). Events are counted from the answers. Prints one markdown table;
every figure comes from this run, and the seed (BENCH_SEED, default 6) fixes every coordinate.

Issue 6's anchor: Tile38 does ~22 k SET/s with its append-only file on one core and is ~5× slower
(ratio ~0.2) with 23 k geofences. Tile38 is not run here; the ratios are against configuration a.
"""
import http.client
import json
import math
import os
import random
import sys
import tempfile
import threading
import time
from datetime import datetime, timedelta, timezone

import bench_fleet
import bench_protocols
from benchlib import LISTENING, start_server

SOUTH, NORTH, WEST, EAST = 45.3, 45.8, -123.0, -122.3
DEVICES = 1000
CIRCLES = 5000
POLYGONS = 5000
BATCH = 50
THREADS = int(os.environ.get("BENCH_THREADS", "8"))
SUBSCRIPTION_THREADS = 4
METRES_PER_DEGREE = 111_320.0
START = datetime(2026, 1, 1, tzinfo=timezone.utc)

FIXES = int(os.environ.get("BENCH_FIXES", "100000"))
WARMUP = int(os.environ.get("BENCH_WARMUP", "10000"))
SEED = int(os.environ.get("BENCH_SEED", "6"))
PROTOCOL_FIXES = int(os.environ.get("BENCH_PROTOCOL_FIXES", "50000"))
PROTOCOL_DEVICES = 200
PARTS = os.environ.get("BENCH_PARTS", "abcdefg")
FLEET_FIXES = int(os.environ.get("BENCH_FLEET_FIXES", "200000"))


def offset(lat, lon, north_m, east_m):
    """(lat, lon) moved by metres north and east (flat-earth, fine at these distances)."""
    return (lat + north_m / METRES_PER_DEGREE,
            lon + east_m / (METRES_PER_DEGREE * math.cos(math.radians(lat))))


def regions(rng):
    """10 000 region subscription bodies: circles, then polygons."""
    bodies = []
    for _ in range(CIRCLES):
        lat, lon = rng.uniform(SOUTH, NORTH), rng.uniform(WEST, EAST)
        bodies.append({"type": "region", "maxLocationAge": None, "region": {"circle": {
            "center": {"latitude": round(lat, 6), "longitude": round(lon, 6)},
            "radius": round(rng.uniform(200, 2000), 1)}}})
    for _ in range(POLYGONS):
        lat, lon = rng.uniform(SOUTH, NORTH), rng.uniform(WEST, EAST)
        radius, n = rng.uniform(200, 2000), rng.randint(6, 12)
        # Points on one circle at increasing angles (gaps 0.6–1.4 × 2π/n < π): convex, counter-clockwise.
        step = 2 * math.pi / n
        start = rng.uniform(0, 2 * math.pi)
        ring = []
        for k in range(n):
            angle = start + step * (k + rng.uniform(-0.2, 0.2))
            p_lat, p_lon = offset(lat, lon, radius * math.sin(angle), radius * math.cos(angle))
            ring.append([round(p_lon, 6), round(p_lat, 6)])
        ring.append(ring[0])
        bodies.append({"type": "region", "maxLocationAge": None,
                       "region": {"type": "Polygon", "coordinates": [ring]}})
    return bodies


def corridors(rng, count=1000):
    """Corridor subscription bodies: random walks of 5–20 legs, 50–400 m wide."""
    bodies = []
    for _ in range(count):
        lat, lon = rng.uniform(SOUTH, NORTH), rng.uniform(WEST, EAST)
        heading = rng.uniform(0, 2 * math.pi)
        line = [[round(lon, 6), round(lat, 6)]]
        for _ in range(rng.randint(5, 20)):
            heading += rng.gauss(0, 0.6)
            leg = rng.uniform(300, 1500)
            lat, lon = offset(lat, lon, leg * math.sin(heading), leg * math.cos(heading))
            line.append([round(lon, 6), round(lat, 6)])
        bodies.append({"type": "region", "maxLocationAge": None, "region": {"corridor": {
            "line": {"type": "LineString", "coordinates": line}, "width": round(rng.uniform(50, 400), 1)}}})
    return bodies


def walk(rng, length):
    """One device's walk: (second, lat, lon) per fix, 30–100 m steps, slowly turning, kept in the area."""
    lat, lon = rng.uniform(SOUTH, NORTH), rng.uniform(WEST, EAST)
    heading = rng.uniform(0, 2 * math.pi)
    fixes = []
    for k in range(length):
        fixes.append((k, lat, lon))
        heading += rng.gauss(0, 0.35)
        step = rng.uniform(30, 100)
        lat, lon = offset(lat, lon, step * math.sin(heading), step * math.cos(heading))
        if not SOUTH < lat < NORTH or not WEST < lon < EAST:
            lat, lon = min(max(lat, SOUTH), NORTH), min(max(lon, WEST), EAST)
            heading += math.pi
    return fixes


def requests(rng, total_fixes):
    """(device index, body bytes) in posting order: round r of every device, then round r + 1."""
    rounds = math.ceil(total_fixes / BATCH / DEVICES)
    per_device = rounds * BATCH
    tracks = []
    for d in range(DEVICES):
        tracks.append(['{"coordinate":{"latitude":%.6f,"longitude":%.6f},"timestamp":"%s","horizontalAccuracy":10}'
                       % (lat, lon, (START + timedelta(seconds=k + 1)).strftime("%Y-%m-%dT%H:%M:%S.000000Z"))
                       for k, lat, lon in walk(rng, per_device)])
    out = []
    for r in range(rounds):
        for d in range(DEVICES):
            if len(out) * BATCH >= total_fixes:
                return out
            body = '{"locations":[' + ",".join(tracks[d][r * BATCH:(r + 1) * BATCH]) + "]}"
            out.append((d, body.encode()))
    return out


class Server:
    """`meridian serve` on a fresh SQLite file in a temporary directory, output kept for the report."""

    def __init__(self, binary):
        self.directory = tempfile.TemporaryDirectory(prefix="bench-tracking-")
        self.database = os.path.join(self.directory.name, "meridian.sqlite")
        self.process, self.port, self.log = start_server(binary, self.database, ["--log-level", "warning"], keep=None)

    @property
    def output(self):
        """What the server printed, but for the line saying it listens."""
        return [line for line in self.log if not LISTENING.search(line)]

    def cpu_seconds(self):
        fields = open(f"/proc/{self.process.pid}/stat").read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def database_bytes(self):
        return sum(os.path.getsize(os.path.join(self.directory.name, f)) for f in os.listdir(self.directory.name))

    def stop(self):
        self.process.terminate()
        code = self.process.wait()
        self.process.drain.join(timeout=5)
        self.directory.cleanup()
        return code


class Tally:
    def __init__(self):
        self.lock = threading.Lock()
        self.fixes = self.events = self.requests = self.ok = 0
        self.statuses = {}  # fix status (and reason) -> count, beyond "accepted"
        self.errors = {}  # HTTP status -> (count, first body)
        self.skipped = 0
        self.event_kinds = {}

    def error(self, status, payload):
        with self.lock:
            count, first = self.errors.get(status, (0, payload[:300]))
            self.errors[status] = (count + 1, first)


def post_all(port, items, tally, path_of, expected, threads=THREADS):
    """Posts (key, body) items on `threads` keep-alive connections; items with equal key share a thread."""
    lanes = [[] for _ in range(threads)]
    for key, body in items:
        lanes[key % threads].append((key, body))

    def run(lane):
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        fixes = events = done = ok = skipped = 0
        statuses, kinds = {}, {}
        for key, body in lane:
            try:
                connection.request("POST", path_of(key), body, {"Content-Type": "application/json"})
                response = connection.getresponse()
                payload = response.read()
            except (http.client.HTTPException, OSError) as error:
                tally.error(type(error).__name__, str(error).encode())
                connection.close()
                connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
                continue
            done += 1
            if response.status != expected:
                tally.error(response.status, payload)
                continue
            ok += 1
            if expected == 200:
                answer = json.loads(payload)
                for result in answer["results"]:
                    if result["status"] == "accepted":
                        fixes += 1
                    else:
                        label = result["status"] + ("/" + result["reason"] if "reason" in result else "")
                        statuses[label] = statuses.get(label, 0) + 1
                events += len(answer["events"])
                skipped += len(answer["skipped"])
                for event in answer["events"]:
                    kinds[event["type"]] = kinds.get(event["type"], 0) + 1
        connection.close()
        with tally.lock:
            tally.fixes += fixes
            tally.events += events
            tally.requests += done
            tally.ok += ok
            tally.skipped += skipped
            for k, v in statuses.items():
                tally.statuses[k] = tally.statuses.get(k, 0) + v
            for k, v in kinds.items():
                tally.event_kinds[k] = tally.event_kinds.get(k, 0) + v

    threads = [threading.Thread(target=run, args=(lane,)) for lane in lanes if lane]
    start = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return time.perf_counter() - start


def subscribe(port, bodies):
    tally = Tally()
    items = [(i, json.dumps(b).encode()) for i, b in enumerate(bodies)]
    seconds = post_all(port, items, tally, lambda _: "/v1/subscriptions", 201, SUBSCRIPTION_THREADS)
    return seconds, tally


def configuration(binary, name, subscription_bodies, warmup, timed, anomalies):
    server = Server(binary)
    figures = {"name": name, "subscriptions": len(subscription_bodies)}
    try:
        if subscription_bodies:
            print(f"  {name}: creating {len(subscription_bodies)} subscriptions…", file=sys.stderr)
            seconds, tally = subscribe(server.port, subscription_bodies)
            figures["subscribeSeconds"] = seconds
            for status, (count, first) in tally.errors.items():
                anomalies.append(f"{name}: POST /v1/subscriptions → {status} ×{count}: {first.decode(errors='replace')}")
            figures["subscribed"] = tally.ok
        path = lambda d: f"/v1/devices/dev-{d:04d}/locations"  # noqa: E731
        print(f"  {name}: warm-up ({sum(len(b) for _, b in warmup) // 1024} KiB, {len(warmup)} requests)…", file=sys.stderr)
        warm = Tally()
        post_all(server.port, warmup, warm, path, 200)
        print(f"  {name}: timed ({len(timed)} requests)…", file=sys.stderr)
        tally = Tally()
        server_cpu, client_cpu = server.cpu_seconds(), time.process_time()
        seconds = post_all(server.port, timed, tally, path, 200)
        figures.update(serverCPU=server.cpu_seconds() - server_cpu, clientCPU=time.process_time() - client_cpu)
        figures.update(seconds=seconds, fixes=tally.fixes, events=tally.events, warmEvents=warm.events,
                       kinds=tally.event_kinds, skipped=tally.skipped + warm.skipped,
                       databaseBytes=server.database_bytes())
        for label, t in (("warm-up", warm), ("timed", tally)):
            for status, (count, first) in t.errors.items():
                anomalies.append(f"{name} {label}: POST locations → {status} ×{count}: {first.decode(errors='replace')}")
            for status, count in t.statuses.items():
                anomalies.append(f"{name} {label}: {count} fixes {status} (expected accepted)")
            if t.skipped:
                anomalies.append(f"{name} {label}: {t.skipped} subscription skips")
    finally:
        code = server.stop()
        # The start lines (listening, then "  contract … · metrics …") are not anomalies.
        lines = [l.rstrip() for l in server.output if l.strip() and not l.startswith("  contract ")]
        if lines:
            anomalies.append(f"{name}: server printed {len(lines)} line(s), first: " + " | ".join(lines[:5]))
        if code not in (0, -15):
            anomalies.append(f"{name}: server exited with {code}")
    return figures


def main():
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    binary = sys.argv[1]
    rng = random.Random(SEED)
    region_bodies = regions(rng)
    items = requests(rng, WARMUP + FIXES)
    corridor_bodies = corridors(rng)
    warmup_count = WARMUP // BATCH
    warmup, timed = items[:warmup_count], items[warmup_count:]
    print(f"seed {SEED}: {DEVICES} devices, {len(timed) * BATCH} timed fixes after {len(warmup) * BATCH} warm-up, "
          f"batches of {BATCH}, {THREADS} client threads", file=sys.stderr)

    anomalies = []
    results = []
    significant = {"type": "significantChange", "maxLocationAge": None}
    for name, bodies in (("a. no subscriptions", []),
                         ("b. 10 000 regions", region_bodies),
                         ("c. 10 000 regions + significant change", region_bodies + [significant]),
                         ("d. 10 000 regions, detect: cross", [dict(body, detect=["cross"]) for body in region_bodies]),
                         ("e. 1 000 corridors", corridor_bodies)):
        if name[0] not in PARTS:
            continue
        print(f"configuration {name}", file=sys.stderr)
        results.append(configuration(binary, name, bodies, warmup, timed, anomalies))

    protocol_rows = {}
    if "f" in PARTS:
        print("configuration f. the apps' protocols", file=sys.stderr)
        warmup_rounds, timed_rounds = 50, max(50, math.ceil(PROTOCOL_FIXES / PROTOCOL_DEVICES / 50) * 50)
        walks = [walk(rng, warmup_rounds + timed_rounds) for _ in range(PROTOCOL_DEVICES)]
        protocol_rows = bench_protocols.run(lambda: Server(binary), walks, warmup_rounds, timed_rounds, THREADS, anomalies)

    fleet = []
    if "g" in PARTS:
        fleet_items = bench_fleet.requests(rng, FLEET_FIXES + 100_000, (SOUTH, NORTH, WEST, EAST))
        fleet_warmup, fleet_timed = fleet_items[:100_000 // bench_fleet.BATCH], fleet_items[100_000 // bench_fleet.BATCH:]
        for name, bodies in (("g0. 10 000 devices, no subscriptions", []),
                             ("g1. 10 000 devices, visits + status", [bench_fleet.VISITS, bench_fleet.STATUS])):
            print(f"configuration {name}", file=sys.stderr)
            fleet.append(configuration(binary, name, bodies, fleet_warmup, fleet_timed, anomalies))

    if results:
        base = results[0]["fixes"] / results[0]["seconds"]
        print()
        print(f"Ingest, {DEVICES} devices, {len(timed) * BATCH} fixes in batches of {BATCH}, {THREADS} client threads, "
              f"fresh SQLite file (WAL) per configuration, seed {SEED}")
        print()
        print("| configuration | subscriptions created | fixes/s | events/s | events/fix | ratio to a |")
        print("| --- | --- | ---: | ---: | ---: | ---: |")
        for r in results:
            rate = r["fixes"] / r["seconds"]
            created = (f"{r['subscribed']} in {r['subscribeSeconds']:.1f} s ({r['subscribed'] / r['subscribeSeconds']:,.0f}/s)"
                       if r["subscriptions"] else "–")
            print(f"| {r['name']} | {created} | {rate:,.0f} | {r['events'] / r['seconds']:,.0f} | "
                  f"{r['events'] / max(r['fixes'], 1):.3f} | {rate / base:.2f} |")
        print()
        for r in results:
            kinds = ", ".join(f"{k} {v}" for k, v in sorted(r["kinds"].items())) or "none"
            print(f"{r['name']}: {r['fixes']} fixes accepted in {r['seconds']:.2f} s; events {r['events']} ({kinds}); "
                  f"{r['warmEvents']} more in the warm-up; CPU server {r['serverCPU']:.1f} s, client {r['clientCPU']:.1f} s; "
                  f"database + WAL {r['databaseBytes'] / 1e6:.1f} MB")
    if fleet:
        bench_fleet.print_table(fleet)
    if protocol_rows:
        bench_protocols.print_table(protocol_rows, PROTOCOL_DEVICES, THREADS)
    print()
    print("Tile38 (issue 6, not run here): ~22 k SET/s with its AOF on one core, ~5× slower (ratio ~0.2) with 23 k geofences")
    if anomalies:
        print("\nanomalies:")
        for a in anomalies:
            print(f"- {a}")
    else:
        print("no anomalies: every request answered 200/201, every fix accepted, no server output")


if __name__ == "__main__":
    main()
