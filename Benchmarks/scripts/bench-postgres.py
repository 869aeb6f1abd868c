"""make bench-postgres: the same server on SQLite, on PostgreSQL with one instance, two and four,
same data, same run; then nearest and within-a-radius over HTTP beside PostGIS's own `<->` and
`ST_DWithin` on the same rows.

Run under scripts/with-postgres.sh (it names the throw-away server in MERIDIAN_POSTGRES_URL):
    scripts/with-postgres.sh .venv-postgres/bin/python Benchmarks/scripts/bench-postgres.py BINARY [--points N]

Per configuration, with the same annotations imported first:
- annotation writes/s: 8 clients POST new annotations, round-robin over the instances;
- fixes/s ingested: 8 feeds post batches of 10 fixes of their own device (each feed's batches
  cycling over the instances);
- thin p50/p95: 400 thin requests of random views (zoom 2–14), round-robin over the instances;
- with two instances, write → other instance: a write on A until B's thin answer holds it (p50/p99);
- beside writes and ingest on PostgreSQL, the share of its active backends waiting on a lock (sampled).
Each configuration is measured once its servers settle (their start-up work, such as filling the JSON cache, done).
Writes and ingest each run PHASES times in turn (each phase takes about a second); the table shows
the median and the spread (min–max) beside it. Ratios are against SQLite in the same run.
Absolute times on a shared 2-core machine are noisy.
"""
import argparse, json, os, random, shutil, statistics, subprocess, sys, tempfile, threading, time
from urllib.parse import urlparse, urlunparse

import benchlib
import psycopg

WRITERS, WRITES_EACH, THINS, VISIBILITY_WRITES, QUERIES = 8, 250, 400, 100, 300
FEEDS, BATCHES_EACH, FIXES_PER_BATCH = 8, 100, 10
PHASES = 3
# PostGIS answers whole rows, as Meridian's answers hold whole annotations.
ROW = ("id::text, external_id, latitude, longitude, title, subtitle, kind, clustering_identifier, display_priority, properties, "
       "version, created_at, updated_at")


def points(rng, count):
    """Half spread over the land-ish latitudes, half in 50 clusters (cities)."""
    centres = [(rng.uniform(-60, 70), rng.uniform(-180, 180)) for _ in range(50)]
    out = []
    for index in range(count):
        if index % 2:
            lat, lon = centres[index % 50]
            out.append((max(-85, min(85, rng.gauss(lat, 0.5))), (rng.gauss(lon, 0.5) + 540) % 360 - 180))
        else:
            out.append((rng.uniform(-60, 70), rng.uniform(-180, 180)))
    return out


def write_geojson(path, coordinates):
    features = [{"type": "Feature", "geometry": {"type": "Point", "coordinates": [lon, lat]},
                 "properties": {"externalId": f"p{index}", "title": f"point {index}", "kind": "poi" if index % 3 else "shop"}}
                for index, (lat, lon) in enumerate(coordinates)]
    with open(path, "w") as file:
        json.dump({"type": "FeatureCollection", "features": features}, file)


def fresh_database(admin_url, name):
    with psycopg.connect(admin_url, autocommit=True) as connection:
        connection.execute(f"CREATE DATABASE {name}" + (" TEMPLATE meridian_template" if os.environ.get("MERIDIAN_POSTGRES_TEMPLATE") else ""))
    return urlunparse(urlparse(admin_url)._replace(path="/" + name))


def import_into(binary, database, geojson):
    began = time.monotonic()
    run = subprocess.run([binary, "import", geojson, "--database", database], capture_output=True, text=True, timeout=1800)
    if run.returncode != 0:
        sys.exit(f"import into {database} failed: {run.stdout}{run.stderr}")
    return time.monotonic() - began


def concurrently(count, work):
    """Runs work(number) on `count` threads at once; seconds from the first start to the last end.
    Exits the script when any raised."""
    errors = []

    def guarded(number):
        try:
            work(number)
        except Exception as error:  # noqa: BLE001 — counted and reported
            errors.append(str(error))
    threads = [threading.Thread(target=guarded, args=(number,)) for number in range(count)]
    began = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        sys.exit(f"{len(errors)} clients failed, e.g. {errors[0]}")
    return time.monotonic() - began


def writes_per_second(ports, rng):
    """Each phase's points its own (drawn from `rng`): coincident copies of one phase's points
    would tie in the nearest queries below."""
    seed = rng.randrange(1 << 30)

    def writer(number):
        client = benchlib.Client(ports[number % len(ports)])
        local = random.Random(seed * 64 + number)
        for index in range(WRITES_EACH):
            body = {"coordinate": {"latitude": local.uniform(-60, 70), "longitude": local.uniform(-180, 180)}, "title": f"w{number}-{index}"}
            client.call("POST", "/v1/annotations", body, expected=201)
    return WRITERS * WRITES_EACH / concurrently(WRITERS, writer)


def ingest_per_second(ports, label):
    """8 feeds, each its own device, post batches of 10 fixes; with two instances each feed's
    batches alternate between them (the worst case: every batch finds the other's commit first).
    One subscription turns every fix into an event; it is deleted after the phase, so each phase
    (and each configuration on the same database) evaluates one."""
    _, subscription = benchlib.Client(ports[0]).call(
        "POST", "/v1/subscriptions", {"type": "significantChange", "distanceFilter": 0, "minimumInterval": 0, "maxLocationAge": None}, expected=201)
    start_us = int(time.time() * 1_000_000) - 3_600_000_000

    def feed(number):
        clients = [benchlib.Client(port) for port in ports]
        for batch in range(BATCHES_EACH):
            fixes = [{"coordinate": {"latitude": 10 + number + 0.001 * (batch * FIXES_PER_BATCH + index), "longitude": 20.0},
                      "timestamp": benchlib.rfc3339(start_us + (batch * FIXES_PER_BATCH + index) * 1_000_000), "horizontalAccuracy": 5}
                     for index in range(FIXES_PER_BATCH)]
            clients[(number + batch) % len(clients)].call("POST", f"/v1/devices/{label}-{number}/locations", {"locations": fixes}, expected=200)
    rate = FEEDS * BATCHES_EACH * FIXES_PER_BATCH / concurrently(FEEDS, feed)
    benchlib.Client(ports[0]).call("DELETE", f"/v1/subscriptions/{subscription['id']}", expected=200)
    return rate


class LockWaits:
    """The lock-wait share of the database's busy backends while a phase runs: pg_stat_activity
    sampled every 20 ms on its own connection, backends that are `active` and waiting on a `Lock`
    over all `active` ones (the issue's measure of how much writers queue on each other). Each
    `with` samples one phase; the counts add up over phases. No URL (SQLite): nothing sampled,
    share None."""

    def __init__(self, url):
        self.url, self.waiting, self.active = url, 0, 0
        self.stop = threading.Event()

    def __enter__(self):
        self.stop.clear()
        if self.url:
            self.thread = threading.Thread(target=self.sample, daemon=True)
            self.thread.start()
        return self

    def __exit__(self, *_):
        self.stop.set()
        if self.url:
            self.thread.join()

    def sample(self):
        with psycopg.connect(self.url, autocommit=True) as connection:
            while not self.stop.wait(0.02):
                waiting, active = connection.execute(
                    "SELECT count(*) FILTER (WHERE wait_event_type = 'Lock'), count(*) FROM pg_stat_activity "
                    "WHERE datname = current_database() AND state = 'active' AND pid <> pg_backend_pid()").fetchone()
                self.waiting, self.active = self.waiting + waiting, self.active + active

    @property
    def share(self):
        return self.waiting / self.active if self.active else None


def spread(values):
    return f"{min(values):.0f}–{max(values):.0f}"


def share(value):
    return "—" if value is None else f"{value:.2f}"


def views(rng, count):
    return [{"viewport": {"size": {"width": 1024, "height": 768}, "zoomLevel": rng.randint(2, 14),
                          "center": {"latitude": rng.uniform(-55, 65), "longitude": rng.uniform(-180, 180)}}} for _ in range(count)]


def thin_latencies(ports, bodies):
    clients = [benchlib.Client(port) for port in ports]
    latencies = []
    for index, body in enumerate(bodies):
        began = time.perf_counter()
        clients[index % len(clients)].call("POST", "/v1/annotations/thin", body, expected=200)
        latencies.append(time.perf_counter() - began)
    return sorted(latencies)


def visibility(port_a, port_b, rng):
    """A write on A, then B's thin answer around it until it holds the write: seconds per write."""
    a, b = benchlib.Client(port_a), benchlib.Client(port_b)
    delays = []
    for index in range(VISIBILITY_WRITES):
        lat, lon = rng.uniform(-60, 70), rng.uniform(-180, 180)
        _, created = a.call("POST", "/v1/annotations", {"coordinate": {"latitude": lat, "longitude": lon}}, expected=201)
        acknowledged = time.perf_counter()
        view = {"viewport": {"size": {"width": 256, "height": 256}, "zoomLevel": 18, "center": {"latitude": lat, "longitude": lon}}}
        while True:
            _, thin = b.call("POST", "/v1/annotations/thin", view, expected=200)
            if any(item.get("annotation", {}).get("id") == created["id"] for item in thin["items"]):
                break
            if time.perf_counter() - acknowledged > 5:
                sys.exit("a write on A never reached B's thin answer within 5 s")
        delays.append(time.perf_counter() - acknowledged)
    return sorted(delays)


def queries(port, url, rng):
    """Nearest 10 and everything within 50 km of 300 random points: Meridian over HTTP beside
    PostGIS (`<->` on geography with the GiST index; `ST_DWithin` on geography) through psycopg,
    each with its own round trip and whole rows; how often the sets of ids agree (PostGIS's `<->`
    on geography measures on the sphere, Meridian on the ellipsoid: a tenth place may differ)."""
    client = benchlib.Client(port)
    centres = [(rng.uniform(-55, 65), rng.uniform(-180, 180)) for _ in range(QUERIES)]
    timings = {key: [] for key in ("nearest", "postgis_nearest", "within", "postgis_within")}
    agree = {"nearest": 0, "within": 0}
    with psycopg.connect(url) as connection:
        for lat, lon in centres:
            point = {"latitude": lat, "longitude": lon}
            began = time.perf_counter()
            _, near = client.call("POST", "/v1/annotations/nearest", {"point": point, "limit": 10}, expected=200)
            timings["nearest"].append(time.perf_counter() - began)
            began = time.perf_counter()
            rows = connection.execute(
                f"SELECT {ROW}, location <-> ST_SetSRID(ST_MakePoint(%s, %s), 4326)::geography AS distance FROM annotation "
                "WHERE tenant = 'default' ORDER BY distance LIMIT 10", (lon, lat)).fetchall()
            timings["postgis_nearest"].append(time.perf_counter() - began)
            agree["nearest"] += {r["annotation"]["id"] for r in near["results"]} == {row[0] for row in rows}
            began = time.perf_counter()
            _, within = client.call("POST", "/v1/annotations/nearest", {"point": point, "limit": 1000, "maxDistance": 50000}, expected=200)
            timings["within"].append(time.perf_counter() - began)
            began = time.perf_counter()
            rows = connection.execute(
                f"SELECT {ROW} FROM annotation WHERE tenant = 'default' "
                "AND ST_DWithin(location, ST_SetSRID(ST_MakePoint(%s, %s), 4326)::geography, 50000)", (lon, lat)).fetchall()
            timings["postgis_within"].append(time.perf_counter() - began)
            agree["within"] += {r["annotation"]["id"] for r in within["results"]} == {row[0] for row in rows}
    return {key: sorted(values) for key, values in timings.items()}, agree


def ms(value):
    return f"{value * 1000:.2f} ms"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binary")
    parser.add_argument("--points", type=int, default=100_000)
    args = parser.parse_args()
    admin = os.environ.get("MERIDIAN_POSTGRES_URL") or sys.exit("run under scripts/with-postgres.sh")
    rng = random.Random(20)
    folder = tempfile.mkdtemp(prefix="meridian-bench-pg-")
    servers, problems = [], []
    benchlib.start_watchdog("bench-postgres", 1800, servers, folder)
    try:
        geojson = os.path.join(folder, "points.geojson")
        write_geojson(geojson, points(rng, args.points))
        sqlite_path = os.path.join(folder, "bench.sqlite")
        pg_url = fresh_database(admin, "bench")
        loads = {"SQLite": import_into(args.binary, sqlite_path, geojson), "PostgreSQL": import_into(args.binary, pg_url, geojson)}
        print(f"{args.points} annotations imported: SQLite {loads['SQLite']:.1f} s, PostgreSQL {loads['PostgreSQL']:.1f} s")
        bodies = views(random.Random(5), THINS)
        results = {}
        for label, database, instances in (("SQLite", sqlite_path, 1), ("PostgreSQL ×1", pg_url, 1), ("PostgreSQL ×2", pg_url, 2),
                                           ("PostgreSQL ×4", pg_url, 4)):
            started = [benchlib.start_server(args.binary, database, ("--log-level", "warning")) for _ in range(instances)]
            servers.extend(process for process, _, _ in started)
            ports = [port for _, port, _ in started]
            thin_latencies(ports, bodies[:40])  # warm-up: every instance's index and connections
            benchlib.settle([process for process, _, _ in started])  # and their start-up work done
            sampled = None if label == "SQLite" else pg_url
            writes, ingest = [], []
            writes_waits, ingest_waits = LockWaits(sampled), LockWaits(sampled)
            for phase in range(PHASES):
                with writes_waits:
                    writes.append(writes_per_second(ports, rng))
                with ingest_waits:
                    ingest.append(ingest_per_second(ports, label.replace(" ", "").replace("×", "x") + f"p{phase}"))
            thin = thin_latencies(ports, bodies)
            row = {"writes": statistics.median(writes), "writesSpread": spread(writes), "thin": thin,
                   "ingest": statistics.median(ingest), "ingestSpread": spread(ingest),
                   "writesLockWaits": writes_waits.share, "ingestLockWaits": ingest_waits.share}
            if instances == 2:
                row["visibility"] = visibility(ports[0], ports[1], rng)
            if label == "PostgreSQL ×1":
                row["queries"] = queries(ports[0], pg_url, rng)
            results[label] = row
            benchlib.stop_servers([process for process, _, _ in started], problems)
        base = results["SQLite"]
        print(f"\n| store | annotation writes/s (spread) | vs SQLite | lock waits | fixes/s ingested (spread) | vs SQLite | lock waits | thin p50 | thin p95 | p95 vs SQLite |")
        print("|---|---|---|---|---|---|---|---|---|---|")
        for label, row in results.items():
            p50, p95 = benchlib.percentile(row["thin"], 50), benchlib.percentile(row["thin"], 95)
            print(f"| {label} | {row['writes']:.0f} ({row['writesSpread']}) | {row['writes'] / base['writes']:.2f} | {share(row['writesLockWaits'])} | "
                  f"{row['ingest']:.0f} ({row['ingestSpread']}) | {row['ingest'] / base['ingest']:.2f} | {share(row['ingestLockWaits'])} | "
                  f"{ms(p50)} | {ms(p95)} | {p95 / benchlib.percentile(base['thin'], 95):.2f} |")
        print(f"\nwrites/s and fixes/s: the median of {PHASES} phases each, taken in turn; spread: their min–max")
        print("lock waits: the share of the database's active backends waiting on a lock, pg_stat_activity sampled every 20 ms")
        one = results["PostgreSQL ×1"]
        for label, target in (("PostgreSQL ×2", "≥ 0.95"), ("PostgreSQL ×4", "not below ×2")):
            row = results[label]
            print(f"{label} ÷ ×1: writes {row['writes'] / one['writes']:.2f}, fixes {row['ingest'] / one['ingest']:.2f} (target {target})")
        delays = results["PostgreSQL ×2"]["visibility"]
        print(f"\nwrite on A → B's thin answer holds it ({len(delays)} writes): p50 {ms(benchlib.percentile(delays, 50))}, "
              f"p99 {ms(benchlib.percentile(delays, 99))} (target p99 < 100 ms)")
        timings, agree = results["PostgreSQL ×1"]["queries"]
        print(f"\n| query ({QUERIES} points) | Meridian p50 | p95 | PostGIS p50 | p95 | p50 ratio | same answer |")
        print("|---|---|---|---|---|---|---|")
        for key, label in (("nearest", "nearest 10"), ("within", "within 50 km")):
            ours, theirs = timings[key], timings["postgis_" + key]
            print(f"| {label} | {ms(benchlib.percentile(ours, 50))} | {ms(benchlib.percentile(ours, 95))} | "
                  f"{ms(benchlib.percentile(theirs, 50))} | {ms(benchlib.percentile(theirs, 95))} | "
                  f"{benchlib.percentile(ours, 50) / benchlib.percentile(theirs, 50):.2f} | {agree[key]}/{QUERIES} |")
        if problems:
            sys.exit("problems: " + "; ".join(problems))
    finally:
        for process in servers:
            if process.poll() is None:
                process.kill()
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
