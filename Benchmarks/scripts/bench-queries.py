#!/usr/bin/env python3
"""Spatial queries at scale: 10 nearest, a city-sized polygon and an attribute search over HTTP,
beside cKDTree, shapely's STRtree and SQLite's R*Tree in process, all on the same data in one run.

    Benchmarks/scripts/bench-queries.py MERIDIAN [--query-bench QUERYBENCH] [--points 1000000] [--queries 300] [--seed 1] [--function-rounds 5]

MERIDIAN is the server binary; QUERYBENCH the in-process benchmark (Benchmarks/, `QueryBench`). Needs numpy, scipy, shapely (Benchmarks/scripts/requirements-queries.txt) and
pyproj (scripts/requirements.txt).

  data      POINTS points from a seeded generator (the seed is printed): 80 % in eight dense
            "cities" (Gaussian, σ 3–12 km; one straddles the antimeridian, two lie beyond 77°),
            18 % uniform on the sphere, 2 % in a band within 0.5° of ±180° and in the caps beyond
            85°. Each has a `kind` from KINDS and a free `properties.rating` in 0.0–5.0. They are
            written as a GeoJSON FeatureCollection to a temporary folder and loaded with
            `meridian import FILE --database DB` (timed); then `meridian serve` on that database, in
            open mode on loopback with the rate limit out of the way.
  HTTP      after the server has filled its annotation cache (the JSON of each annotation, kept by
            id and version; `meridian_annotation_cache_bytes` stops growing), one keep-alive
            connection, sequential requests, a warm-up of WARMUP each first, then
            QUERIES each: (a) POST /v1/annotations/nearest limit 10 at points half in the cities,
            half in the background, the band and the caps; (b) POST /v1/annotations/search with an
            s_intersects polygon (a regular 32-gon centred near a city, sized to hold ~1 000 points;
            split at 180° into a MultiPolygon where it crosses), every page followed; (c) the same
            attribute search `kind = 'shop' AND rating >= 4.5`, limit 100; (e) CASEI, ACCENTI and
            T_* filters beside the same filters as plain comparisons, each reading every annotation
            (FUNCTION_ROUNDS alternating searches; see function_filters.py; target ≤ 2×); (d) the
            polygons again on a server started with `--annotation-cache-mb 0`, every annotation
            from its row. Times are the request's round trip, the answer read but not parsed.
  in process Meridian's point index as `serve` loads it, on the same database and queries: 10 nearest
            pulled from the index, and the polygons' ids (the index alone), then the whole verb as
            the handler calls it (index, rows from SQLite, the filter on each row), without HTTP.
            cKDTree 10 nearest on 3-D unit-sphere coordinates (chord distance); shapely STRtree
            query with predicate intersects on the same polygons; SQLite R*Tree (a temporary file)
            for each polygon part's bounding box, then shapely's exact test on the candidates.
  checks    per nearest query, the server's 10 against a recheck (cKDTree's 40 nearest measured with
            pyproj's WGS84 geodesic, nearest 10): same points, or the same distances (a tie), or
            different; per polygon, the server's count against shapely's and the R*Tree's; the
            attribute search against the first 100 matching points in file order.

Percentiles are nearest-rank. Targets (the issue's): 10 nearest p95 ≤ 0.2 ms in process and ≤ 2 ms
over HTTP; a city-sized polygon (~1 000 results) p95 ≤ 2 ms over HTTP. Exits 1 when a request
failed, a polygon count differs, or a nearest answer differs beyond a tie.
"""
import argparse, json, math, os, shutil, sqlite3, subprocess, sys, tempfile, time
import numpy as np
import shapely
import shapely.affinity
from pyproj import Geod
from scipy.spatial import cKDTree
from shapely.geometry import MultiPolygon, Polygon, box, mapping
from shapely.geometry.polygon import orient
from benchlib import Client, percentile, start_server, start_watchdog, stop_servers
from function_filters import extra_columns, feature_extras, function_filters, report

SERVER_FLAGS = ["--rate-limit", "1000000", "--rate-burst", "1000000", "--log-level", "warning"]
# name, longitude, latitude, σ km, share of the city points
CITIES = [("Paris", 2.3522, 48.8566, 6, 0.18), ("Tokyo", 139.6917, 35.6895, 12, 0.22),
          ("New York", -73.9857, 40.7484, 8, 0.16), ("São Paulo", -46.6333, -23.5505, 10, 0.14),
          ("Lagos", 3.3792, 6.5244, 8, 0.10), ("Taveuni (180°)", 179.99, -16.85, 5, 0.08),
          ("Longyearbyen (78° N)", 15.6356, 78.2232, 3, 0.06), ("McMurdo (78° S)", 166.6681, -77.8463, 3, 0.06)]
CITY_SHARE, RIM_SHARE = 0.80, 0.02
KINDS = ["shop", "cafe", "restaurant", "school", "park", "hotel"]
KIND_WEIGHTS = [0.25, 0.20, 0.20, 0.10, 0.15, 0.10]
WARMUP = 20
POLYGON_POINTS = 1000   # points a polygon is sized to hold
POLYGON_SIDES = 32
ATTRIBUTE_FILTER = "kind = 'shop' AND rating >= 4.5"
KM_PER_DEGREE = 111.2
TARGETS = {"nearest-process": 0.0002, "nearest-http": 0.002, "polygon-http": 0.002}
GEOD = Geod(ellps="WGS84")


def ms(value, digits=2):
    return f"{value * 1e3:.{digits}f}" if value == value else "–"


def sphere_latitudes(rng, count, low=-90.0, high=90.0):
    """Latitudes uniform over the sphere's area between `low` and `high` degrees."""
    s = rng.uniform(math.sin(math.radians(low)), math.sin(math.radians(high)), count)
    return np.degrees(np.arcsin(s))


def wrap(longitudes):
    return (longitudes + 180.0) % 360.0 - 180.0


def around(rng, count, lon, lat, sigma_km):
    """`count` points Gaussian around (lon, lat), σ in km, longitudes wrapped."""
    dy = rng.normal(0, sigma_km, count) / KM_PER_DEGREE
    dx = rng.normal(0, sigma_km, count) / (KM_PER_DEGREE * math.cos(math.radians(lat)))
    return wrap(lon + dx), np.clip(lat + dy, -90, 90)


def rim(rng, count):
    """Half within 0.5° of ±180°, half in the caps beyond 85°."""
    band, caps = count // 2, count - count // 2
    lon_band = rng.choice([-1.0, 1.0], band) * rng.uniform(179.5, 180.0, band)
    lat_band = sphere_latitudes(rng, band)
    lon_caps = rng.uniform(-180, 180, caps)
    lat_caps = sphere_latitudes(rng, caps, 85, 90) * rng.choice([-1.0, 1.0], caps)
    return np.concatenate([lon_band, lon_caps]), np.concatenate([lat_band, lat_caps])


def make_points(rng, total):
    """(lon, lat, kind index, rating) arrays: cities, background, rim; coordinates to 7 decimals."""
    lons, lats = [], []
    city_total = int(total * CITY_SHARE)
    counts = rng.multinomial(city_total, [c[4] for c in CITIES])
    for (_, lon, lat, sigma, _), count in zip(CITIES, counts):
        x, y = around(rng, count, lon, lat, sigma)
        lons.append(x)
        lats.append(y)
    rim_total = int(total * RIM_SHARE)
    background = total - city_total - rim_total
    lons.append(rng.uniform(-180, 180, background))
    lats.append(sphere_latitudes(rng, background))
    x, y = rim(rng, rim_total)
    lons.append(x)
    lats.append(y)
    lon, lat = np.round(np.concatenate(lons), 7), np.round(np.concatenate(lats), 7)
    order = rng.permutation(total)  # file order mixes cities and background
    kind = rng.choice(len(KINDS), total, p=KIND_WEIGHTS)
    rating = np.round(rng.uniform(0, 5, total), 1)
    return lon[order], lat[order], kind, rating


def write_geojson(path, lon, lat, kind, rating, titles, seen):
    with open(path, "w") as f:
        f.write('{"type":"FeatureCollection","features":[\n')
        f.write(",\n".join(
            f'{{"type":"Feature","geometry":{{"type":"Point","coordinates":[{x!r},{y!r}]}},'
            f'"properties":{{"kind":"{KINDS[k]}",{title},"properties":{{"rating":{r!r},{stamp}}}}}}}'
            for x, y, k, r, (title, stamp) in zip(lon.tolist(), lat.tolist(), kind.tolist(), rating.tolist(),
                                                   (feature_extras(t, s) for t, s in zip(titles, seen)))))
        f.write("\n]}\n")


def unit_vectors(lon, lat):
    lon, lat = np.radians(lon), np.radians(lat)
    return np.column_stack([np.cos(lat) * np.cos(lon), np.cos(lat) * np.sin(lon), np.sin(lat)])


def query_points(rng, count):
    """Half in the cities (weighted, Gaussian), 35 % uniform on the sphere, 15 % band and caps;
    returns the (lon, lat) points and the area each is in."""
    city = count // 2
    uniform = int(count * 0.35)
    rest = count - city - uniform
    which = rng.choice(len(CITIES), city, p=[c[4] for c in CITIES])
    lons, lats = np.empty(city), np.empty(city)
    for i, c in enumerate(which):
        _, lon, lat, sigma, _ = CITIES[c]
        x, y = around(rng, 1, lon, lat, sigma)
        lons[i], lats[i] = x[0], y[0]
    x, y = rim(rng, rest)
    lon = np.concatenate([lons, rng.uniform(-180, 180, uniform), x])
    lat = np.concatenate([lats, sphere_latitudes(rng, uniform), y])
    area = ["city"] * city + ["background"] * uniform + ["±180° band, caps"] * rest
    order = rng.permutation(count)
    return list(zip(lon[order].tolist(), lat[order].tolist())), [area[i] for i in order]


def make_polygons(rng, count, tree, lon, lat):
    """`count` regular POLYGON_SIDES-gons, each centred near a city (chosen in turn) and inscribed in
    the circle (in local degrees: Δlon·cos φ₀, Δlat) through its POLYGON_POINTS-th nearest point, so
    each holds just under POLYGON_POINTS. One that crosses ±180° becomes a MultiPolygon split there."""
    polygons = []
    k = min(len(lon), POLYGON_POINTS + 600)
    for i in range(count):
        _, clon, clat, sigma, _ = CITIES[i % len(CITIES)]
        x, y = around(rng, 1, clon, clat, 0.7 * sigma)
        lon0, lat0 = float(x[0]), float(y[0])
        _, near = tree.query(unit_vectors(np.array([lon0]), np.array([lat0]))[0], k=k)
        cos0 = math.cos(math.radians(lat0))
        d = np.hypot(wrap(lon[near] - lon0) * cos0, lat[near] - lat0)
        radius = float(np.sort(d)[min(POLYGON_POINTS, k) - 1])
        turn = rng.uniform(0, 2 * math.pi)
        angles = turn + np.arange(POLYGON_SIDES) * 2 * math.pi / POLYGON_SIDES
        ring = list(zip((lon0 + radius * np.cos(angles) / cos0).tolist(), (lat0 + radius * np.sin(angles)).tolist()))
        shape = Polygon(ring)
        west, _, east, _ = shape.bounds
        if west >= -180 and east <= 180:
            polygons.append(orient(shape))
            continue
        parts = [shape.intersection(box(-180, -90, 180, 90))]
        if east > 180:
            parts.append(shapely.affinity.translate(shape.intersection(box(180, -90, 540, 90)), -360))
        if west < -180:
            parts.append(shapely.affinity.translate(shape.intersection(box(-540, -90, -180, 90)), 360))
        polygons.append(MultiPolygon([orient(p) for p in parts if not p.is_empty]))
    return polygons


def load(binary, path, database, problems):
    began = time.monotonic()
    done = subprocess.run([binary, "import", path, "--database", database], capture_output=True, text=True)
    took = time.monotonic() - began
    if done.returncode != 0:
        sys.exit(f"meridian import failed ({done.returncode}) after {took:.1f} s:\n{done.stdout}{done.stderr[-2000:]}")
    return took, done.stdout.strip()


def timed_http(client, path, bodies, problems, label, each=None):
    """Sorted round-trip times (s) and the parsed answers, in the order of `bodies`; with `each`, a
    list that gets every body's time in order (NaN for a transport error)."""
    times, answers = [], []
    for body in bodies:
        began = time.perf_counter()
        try:
            status, payload = client.request("POST", path, body)
        except Exception as error:  # transport error or timeout: note it and go on
            problems.append(f"{label}: {error!r}")
            answers.append(None)
            if each is not None:
                each.append(float("nan"))
            continue
        times.append(time.perf_counter() - began)
        if each is not None:
            each.append(times[-1])
        if status != 200:
            problems.append(f"{label}: {status} {payload[:200]!r}")
            answers.append(None)
        else:
            answers.append(json.loads(payload))
    return sorted(times), answers


def polygon_search(client, geometry, problems):
    """(seconds, ids, pages) of every page of the polygon search."""
    body = {"filter": {"op": "s_intersects", "args": [{"property": "geometry"}, mapping(geometry)]}, "limit": 1000}
    ids, pages, took = [], 0, 0.0
    while True:
        began = time.perf_counter()
        status, payload = client.request("POST", "/v1/annotations/search", body)
        took += time.perf_counter() - began
        pages += 1
        if status != 200:
            problems.append(f"polygon search: {status} {payload[:200]!r}")
            return took, None, pages
        page = json.loads(payload)
        ids += [(a["coordinate"]["longitude"], a["coordinate"]["latitude"]) for a in page["annotations"]]
        if not page.get("nextCursor"):
            return took, ids, pages
        body = body | {"cursor": page["nextCursor"]}


def nearest_recheck(tree, lon, lat, point, k=40):
    """The 10 nearest by WGS84 geodesic among cKDTree's k chord-nearest: [(metres, (lon, lat))]."""
    _, near = tree.query(unit_vectors(np.array([point[0]]), np.array([point[1]]))[0], k=min(k, len(lon)))
    near = np.atleast_1d(near)
    _, _, metres = GEOD.inv(np.full(len(near), point[0]), np.full(len(near), point[1]), lon[near], lat[near])
    ranked = sorted(zip(metres.tolist(), lon[near].tolist(), lat[near].tolist()))[:10]
    return [(m, (x, y)) for m, x, y in ranked]


def compare_nearest(answer, expected):
    """'same', 'tie' (other points at the same distances, within 1 mm) or 'differ'."""
    got = [(r["distance"], (r["annotation"]["coordinate"]["longitude"], r["annotation"]["coordinate"]["latitude"]))
           for r in answer["results"]]
    if sorted(p for _, p in got) == sorted(p for _, p in expected):
        return "same", got
    if len(got) == len(expected) and all(abs(a - b) <= 1e-3 for (a, _), (b, _) in zip(got, expected)):
        return "tie", got
    return "differ", got


def in_process_nearest(tree, points):
    vectors = unit_vectors(np.array([p[0] for p in points]), np.array([p[1] for p in points]))
    times = []
    for v in vectors:
        began = time.perf_counter()
        tree.query(v, k=10)
        times.append(time.perf_counter() - began)
    return sorted(times)


def in_process_strtree(strtree, polygons):
    times, counts = [], []
    for geometry in polygons:
        began = time.perf_counter()
        hits = strtree.query(geometry, predicate="intersects")
        times.append(time.perf_counter() - began)
        counts.append(len(hits))
    return sorted(times), counts


def build_rtree(path, lon, lat):
    began = time.monotonic()
    db = sqlite3.connect(path)
    db.execute("CREATE VIRTUAL TABLE point USING rtree(id, minX, maxX, minY, maxY)")
    db.executemany("INSERT INTO point VALUES (?, ?, ?, ?, ?)",
                   ((i, x, x, y, y) for i, (x, y) in enumerate(zip(lon.tolist(), lat.tolist()))))
    db.commit()
    return db, time.monotonic() - began


def in_process_rtree(db, lon, lat, polygons):
    """Per polygon: each part's bounding box from the R*Tree (overlap, since the tree stores 32-bit
    floats rounded outwards), then shapely's exact test on the candidates' true coordinates."""
    sql = "SELECT id FROM point WHERE maxX >= ? AND minX <= ? AND maxY >= ? AND minY <= ?"
    times, counts = [], []
    for geometry in polygons:
        parts = list(geometry.geoms) if isinstance(geometry, MultiPolygon) else [geometry]
        began = time.perf_counter()
        ids = []
        for part in parts:
            w, s, e, n = part.bounds
            ids += [row[0] for row in db.execute(sql, (w, e, s, n))]
        ids = np.unique(np.array(ids, dtype=np.int64))
        shapely.prepare(geometry)
        inside = shapely.intersects_xy(geometry, lon[ids], lat[ids])
        times.append(time.perf_counter() - began)
        counts.append(int(np.count_nonzero(inside)))
    return sorted(times), counts


def wait_for_cache(client, limit=300):
    """(bytes, seconds) once the default tenant's annotation cache (meridian_annotation_cache_bytes)
    has stopped growing for a second, or after `limit` seconds."""
    began, last, still = time.monotonic(), -1.0, 0
    while time.monotonic() - began < limit:
        _, text = client.request("GET", "/metrics")
        found = [float(line.split()[-1]) for line in text.decode().splitlines()
                 if line.startswith("meridian_annotation_cache_bytes") and 'tenant="default"' in line]
        now = found[0] if found else 0.0
        still = still + 1 if now == last and now > 0 else 0
        if still >= 4:
            break
        last = now
        time.sleep(0.25)
    return last, time.monotonic() - began


def in_process_meridian(binary, database, nearest_points, polygons, folder):
    """QueryBench's times on the server's database and the same queries (warm-up included, it
    leaves those out), or None without the binary."""
    if not binary:
        return None
    path = os.path.join(folder, "queries.json")
    with open(path, "w") as f:
        json.dump({"warmup": WARMUP, "nearest": [list(p) for p in nearest_points],
                   "polygons": [{"op": "s_intersects", "args": [{"property": "geometry"}, mapping(g)]} for g in polygons]}, f)
    done = subprocess.run([binary, database, path], capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"QueryBench failed ({done.returncode}):\n{done.stderr[-2000:]}")
    return json.loads(done.stdout)


def row(label, count, values, target=None, digits=2):
    cells = f"{label:<44} {count:>7} {ms(percentile(values, 50), digits):>9} {ms(percentile(values, 95), digits):>9} {ms(percentile(values, 99), digits):>9}"
    if target is not None:
        key, text = target
        p95 = percentile(values, 95)
        cells += f"   {text:<24} {'met' if p95 <= TARGETS[key] else 'NOT met'}"
    return cells


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("binary")
    parser.add_argument("--query-bench", help="the QueryBench binary (Meridian's index in process)")
    parser.add_argument("--points", type=int, default=1_000_000)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--function-rounds", type=int, default=5, help="searches of each CQL2 function pair (each reads every annotation)")
    args = parser.parse_args()
    started = time.monotonic()
    folder = tempfile.mkdtemp(prefix="bench-queries-")
    servers, problems, stopped, log = [], [], "not started", []
    start_watchdog("bench-queries", 900 + args.points / 1_000_000 * 900, servers, folder)
    rng = np.random.default_rng(args.seed)
    print(f"bench-queries: {args.binary}")
    print(f"{args.points} points, {args.queries} queries of each kind (+{WARMUP} warm-up), seed {args.seed}\n", flush=True)
    try:
        # Data, then the in-process indexes the query shapes need (the polygons are sized on cKDTree).
        began = time.monotonic()
        lon, lat, kind, rating = make_points(rng, args.points)
        geojson = os.path.join(folder, "points.geojson")
        write_geojson(geojson, lon, lat, kind, rating, *extra_columns(args.seed, args.points))
        generated = time.monotonic() - began
        size = os.path.getsize(geojson)
        began = time.monotonic()
        tree = cKDTree(unit_vectors(lon, lat))
        kd_build = time.monotonic() - began
        nearest_points, areas = query_points(rng, WARMUP + args.queries)
        polygons = make_polygons(rng, WARMUP + args.queries, tree, lon, lat)
        print(f"data: generated and written in {generated:.1f} s ({size / 2**20:.0f} MiB of GeoJSON)", flush=True)

        database = os.path.join(folder, "meridian.sqlite")
        import_took, import_said = load(args.binary, geojson, database, problems)
        print(f"import: {import_took:.1f} s ({args.points / import_took:,.0f} points/s): {import_said}", flush=True)
        os.remove(geojson)
        began = time.monotonic()
        process, port, log = start_server(args.binary, database, SERVER_FLAGS)
        servers.append(process)
        serve_start = time.monotonic() - began
        client = Client(port, timeout=60)
        cache_bytes, cache_fill = wait_for_cache(client)
        print(f"server: started in {serve_start:.1f} s; annotation cache filled to {cache_bytes / 2**20:.0f} MiB in {cache_fill:.1f} s more", flush=True)

        # (a) nearest
        bodies = [{"point": {"latitude": y, "longitude": x}, "limit": 10} for x, y in nearest_points]
        timed_http(client, "/v1/annotations/nearest", bodies[:WARMUP], problems, "nearest warm-up")
        http_nearest, answers = timed_http(client, "/v1/annotations/nearest", bodies[WARMUP:], problems, "nearest", unsorted := [])
        by_area = {}
        for area, took in zip(areas[WARMUP:], unsorted):
            by_area.setdefault(area, []).append(took)
        # (b) polygon
        for geometry in polygons[:WARMUP]:
            polygon_search(client, geometry, problems)
        http_polygon, server_counts, max_pages, by_city = [], [], 1, {}
        for i, geometry in enumerate(polygons[WARMUP:], start=WARMUP):
            took, ids, pages = polygon_search(client, geometry, problems)
            http_polygon.append(took)
            by_city.setdefault(CITIES[i % len(CITIES)][0], []).append(took)
            if isinstance(geometry, MultiPolygon):
                by_city.setdefault("crossing", []).append(took)
            server_counts.append(None if ids is None else len(ids))
            max_pages = max(max_pages, pages)
        http_polygon.sort()
        # (c) attribute
        body = {"filter": ATTRIBUTE_FILTER, "limit": 100}
        timed_http(client, "/v1/annotations/search", [body] * WARMUP, problems, "attribute warm-up")
        http_attribute, attribute_answers = timed_http(client, "/v1/annotations/search", [body] * args.queries, problems, "attribute")
        # (e) CQL2 functions beside plain comparisons, every annotation read
        functions = function_filters(client, problems, args.function_rounds)
        stopped = stop_servers(servers, problems)
        # (d) the polygons again on a server that keeps no annotations' JSON: every answer from rows.
        process, port, _ = start_server(args.binary, database, SERVER_FLAGS + ["--annotation-cache-mb", "0"])
        servers[:] = [process]
        client = Client(port, timeout=60)
        for geometry in polygons[:WARMUP]:
            polygon_search(client, geometry, problems)
        http_polygon_rows = sorted(polygon_search(client, geometry, problems)[0] for geometry in polygons[WARMUP:])
    finally:
        stop_servers(servers, problems)

    # In process, with the server stopped so the two don't share the cores.
    try:
        meridian = in_process_meridian(args.query_bench, database, nearest_points, polygons, folder)
        kd_times = in_process_nearest(tree, nearest_points[:WARMUP])
        kd_times = in_process_nearest(tree, nearest_points[WARMUP:])
        began = time.monotonic()
        strtree = shapely.STRtree(shapely.points(lon, lat))
        str_build = time.monotonic() - began
        in_process_strtree(strtree, polygons[:WARMUP])
        str_times, str_counts = in_process_strtree(strtree, polygons[WARMUP:])
        db, rtree_build = build_rtree(os.path.join(folder, "rtree.sqlite"), lon, lat)
        in_process_rtree(db, lon, lat, polygons[:WARMUP])
        rtree_times, rtree_counts = in_process_rtree(db, lon, lat, polygons[WARMUP:])
        db.close()
    finally:
        shutil.rmtree(folder, ignore_errors=True)

    # Checks.
    verdicts = {"same": 0, "tie": 0, "differ": 0, "no answer": 0}
    example = None
    for point, answer in zip(nearest_points[WARMUP:], answers):
        if answer is None:
            verdicts["no answer"] += 1
            continue
        expected = nearest_recheck(tree, lon, lat, point)
        verdict, got = compare_nearest(answer, expected)
        verdicts[verdict] += 1
        if verdict == "differ" and example is None:
            example = (point, [round(d) for d, _ in got], [round(d) for d, _ in expected])
    polygon_same = sum(1 for s, t in zip(server_counts, str_counts) if s == t)
    rtree_same = sum(1 for r, t in zip(rtree_counts, str_counts) if r == t)
    matching = np.nonzero((kind == KINDS.index("shop")) & (rating >= 4.5))[0][:100]
    first = [(x, y) for x, y in zip(lon[matching].tolist(), lat[matching].tolist())]
    attribute_ok = attribute_first = 0
    for answer in attribute_answers:
        if answer is None:
            continue
        found = answer["annotations"]
        attribute_ok += all(a.get("kind") == "shop" and a["properties"].get("rating", -1) >= 4.5 for a in found) and len(found) == len(first)
        attribute_first += [(a["coordinate"]["longitude"], a["coordinate"]["latitude"]) for a in found] == first

    # Report.
    print(f"server: serve started in {serve_start:.1f} s; {stopped}")
    print(f"in process: cKDTree built in {kd_build:.1f} s, STRtree in {str_build:.1f} s, "
          f"SQLite R*Tree loaded in {rtree_build:.1f} s\n")
    print(f"{'path':<44} {'n':>7} {'p50 ms':>9} {'p95 ms':>9} {'p99 ms':>9}   {'target':<24} p95")
    print(row("10 nearest, HTTP (Meridian)", len(http_nearest), http_nearest, ("nearest-http", "p95 ≤ 2 ms over HTTP")))
    for area, values in sorted(by_area.items()):
        print(row(f"  points in {area}", len(values), sorted(v for v in values if v == v)))
    if meridian:
        print(row("10 nearest, Meridian index in process", len(meridian["nearest"]["index"]), sorted(meridian["nearest"]["index"]),
                  ("nearest-process", "p95 ≤ 0.2 ms in process"), 3))
        print(row("10 nearest, Meridian verb in process", len(meridian["nearest"]["verb"]), sorted(meridian["nearest"]["verb"]), None, 3))
    print(row("10 nearest, cKDTree in process", len(kd_times), kd_times, None, 3))
    print(row(f"polygon ~{POLYGON_POINTS}, HTTP (Meridian)", len(http_polygon), http_polygon, ("polygon-http", "p95 ≤ 2 ms over HTTP")))
    for city in (c[0] for c in CITIES if c[0] in by_city):
        print(row(f"  near {city}", len(by_city[city]), sorted(by_city[city])))
    if "crossing" in by_city:
        print(row("  those crossing ±180° (MultiPolygon)", len(by_city["crossing"]), sorted(by_city["crossing"])))
    print(row("  with --annotation-cache-mb 0 (rows)", len(http_polygon_rows), http_polygon_rows))
    if meridian:
        print(row("polygon, Meridian index in process", len(meridian["polygon"]["index"]), sorted(meridian["polygon"]["index"]), None, 3))
        print(row("polygon, Meridian verb in process", len(meridian["polygon"]["verb"]), sorted(meridian["polygon"]["verb"]), None, 3))
    print(row("polygon, STRtree query+intersects in process", len(str_times), str_times, None, 3))
    print(row("polygon, SQLite R*Tree bbox + shapely", len(rtree_times), rtree_times, None, 3))
    print(row("attribute search limit 100, HTTP (Meridian)", len(http_attribute), http_attribute))
    print()
    print("\n".join(report(functions)))
    print()
    print(f"{'load: meridian import':<44} {args.points:>7} {import_took:>8.1f} s   ({args.points / import_took:,.0f} points/s; "
          f"serve start {serve_start:.1f} s)")
    print()
    counts = sorted(c for c in str_counts)
    multi = sum(isinstance(g, MultiPolygon) for g in polygons[WARMUP:])
    print(f"polygon results (shapely): min {counts[0]}, median {counts[len(counts) // 2]}, max {counts[-1]}; "
          f"Meridian's count equal in {polygon_same}/{len(str_counts)}, R*Tree's in {rtree_same}/{len(str_counts)}; "
          f"at most {max_pages} page(s) per search; {multi} of the polygons cross ±180° (MultiPolygon)")
    print(f"nearest vs cKDTree + WGS84 geodesic recheck: {verdicts['same']}/{args.queries} same points, "
          f"{verdicts['tie']} other points at equal distances, {verdicts['differ']} differ, {verdicts['no answer']} without answer")
    if example:
        print(f"  first that differs: point {example[0]}, Meridian {example[1]} m, recheck {example[2]} m")
    print(f"attribute search: {attribute_ok}/{len(attribute_answers)} answers of 100 matching items, "
          f"{attribute_first}/{len(attribute_answers)} the first 100 matching points in file order")
    print(f"whole run: {time.monotonic() - started:.0f} s")
    if meridian:
        index_same = sum(1 for m, t in zip(meridian["polygon"]["counts"], str_counts) if m == t)
        print(f"Meridian's point index in process: loaded {meridian['points']} points in {meridian['load']:.1f} s; "
              f"polygon counts equal to shapely's in {index_same}/{len(str_counts)}")
        if index_same != len(str_counts):
            problems.append(f"{len(str_counts) - index_same} in-process polygon counts differ from shapely's")
    if polygon_same != len(str_counts):
        problems.append(f"{len(str_counts) - polygon_same} polygon counts differ from shapely's")
    if verdicts["differ"]:
        problems.append(f"{verdicts['differ']} nearest answers differ from the recheck beyond ties")
    for problem in problems[:10]:
        print(f"  problem: {problem}")
    if errors := [line for line in log if " error " in line or " critical " in line]:
        print(f"  server logged {len(errors)} error line(s), first: {errors[0].strip()[:300]}")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
