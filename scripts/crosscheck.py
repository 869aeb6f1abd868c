#!/usr/bin/env python3
"""Cross-checks a running Meridian against independent oracles: pyproj (PROJ) and
geographiclib (Karney), plus the viewport formula of DESIGN.md written out again here; its
webhooks against the standardwebhooks package (a receiver in this script; the server must allow
127.0.0.0/8, e.g. MERIDIAN_WEBHOOK_ALLOW_CIDR=127.0.0.0/8); and its CQL2 annotation filters against
pygeofilter (attributes) and shapely (GEOS; spatial predicates); its cluster vector tiles, decoded
with mapbox-vector-tile, against its thin answers (crosscheck_mvt.py).

Random cases, seeded (MERIDIAN_SEED, default: random; the seed is printed so a failure can be
replayed). Prints one line per check and a closing 'N passed, N failed' line; exits 1 on failure.
"""
import base64
import http.server
import json
import math
import os
import random
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

import mercantile
from crosscheck_mvt import TileChecks
from geographiclib.geodesic import Geodesic
from pygeofilter import ast as cql2_ast
from pygeofilter.backends.native.evaluate import NativeEvaluator
from pygeofilter.parsers.cql2_json import parse as parse_cql2_json
from pygeofilter.parsers.cql2_text import parse as parse_cql2_text
from pyproj import Transformer
from shapely.geometry import LineString, MultiPoint, MultiPolygon, Point, Polygon, box
from standardwebhooks.webhooks import Webhook, WebhookVerificationError

URL = os.environ.get("MERIDIAN_URL", "http://127.0.0.1:8080")
SEED = int(os.environ.get("MERIDIAN_SEED", random.randrange(1 << 30)))
N = int(os.environ.get("MERIDIAN_CASES", "250"))
W = 2.0 ** 28
A = 6378137.0
rng = random.Random(SEED)
passed = failed = 0


def post(path, body):
    request = urllib.request.Request(URL + path, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request) as response:
        return json.load(response)


def get(path):
    with urllib.request.urlopen(URL + path) as response:
        return json.load(response)


def check(name, pairs, tolerance):
    """pairs: (label, got, expected); each must agree within tolerance (absolute)."""
    global passed, failed
    worst, bad = 0.0, []
    for label, got, expected in pairs:
        error = abs(got - expected)
        worst = max(worst, error)
        if not error <= tolerance:
            bad.append(f"{label}: got {got!r}, expected {expected!r}")
    status = "ok  " if not bad else "FAIL"
    print(f"{status} {name}: {len(pairs)} values, worst difference {worst:.3g} (tolerance {tolerance:g})")
    for line in bad[:5]:
        print("     " + line)
    passed, failed = passed + (not bad), failed + bool(bad)


def coordinates(n, max_lat=85.0):
    return [{"latitude": rng.uniform(-max_lat, max_lat), "longitude": rng.uniform(-180, 180)} for _ in range(n)]


to_mercator = Transformer.from_crs("EPSG:4326", "EPSG:3857", always_xy=True)
from_mercator = Transformer.from_crs("EPSG:3857", "EPSG:4326", always_xy=True)


def map_point(c):
    """MapKit map point of a coordinate via PROJ's EPSG:3857 (metres → 2^28 world, origin NW)."""
    x, y = to_mercator.transform(c["longitude"], c["latitude"])
    return (x / (2 * math.pi * A) + 0.5) * W, (0.5 - y / (2 * math.pi * A)) * W


def main():
    print(f"crosscheck against {URL}, seed {SEED}, {N} cases per check")

    # Coordinates → map points (pyproj EPSG:3857).
    cs = coordinates(N)
    got = post("/v1/convert/coordinates-to-map-points", {"coordinates": cs})["mapPoints"]
    pairs = []
    for i, (c, p) in enumerate(zip(cs, got)):
        x, y = map_point(c)
        pairs += [(f"{i}.x", p["x"], x), (f"{i}.y", p["y"], y)]
    check("coordinates-to-map-points vs pyproj EPSG:3857", pairs, 1e-6)

    # Map points → coordinates.
    ps = [{"x": rng.uniform(0, W), "y": rng.uniform(0, W)} for _ in range(N)]
    got = post("/v1/convert/map-points-to-coordinates", {"mapPoints": ps})["coordinates"]
    pairs = []
    for i, (p, c) in enumerate(zip(ps, got)):
        lon, lat = from_mercator.transform((p["x"] / W - 0.5) * 2 * math.pi * A, (0.5 - p["y"] / W) * 2 * math.pi * A)
        pairs += [(f"{i}.latitude", c["latitude"], lat), (f"{i}.longitude", c["longitude"], lon)]
    check("map-points-to-coordinates vs pyproj EPSG:3857", pairs, 1e-9)

    # Geodesic inverse and direct (geographiclib).
    items = [{"from": a, "to": b} for a, b in zip(coordinates(N, 89), coordinates(N, 89))]
    got = post("/v1/geodesic/inverse", {"pairs": items})["results"]
    pairs = []
    for i, (item, r) in enumerate(zip(items, got)):
        g = Geodesic.WGS84.Inverse(item["from"]["latitude"], item["from"]["longitude"], item["to"]["latitude"], item["to"]["longitude"])
        pairs += [(f"{i}.distance", r["distance"], g["s12"])]
    check("geodesic inverse distance vs geographiclib", pairs, 1e-6)
    azimuths = []
    for i, (item, r) in enumerate(zip(items, got)):
        g = Geodesic.WGS84.Inverse(item["from"]["latitude"], item["from"]["longitude"], item["to"]["latitude"], item["to"]["longitude"])
        if g["s12"] < 19_000_000:  # near-antipodal azimuths are ill-conditioned
            azimuths += [(f"{i}.initialAzimuth", r["initialAzimuth"], g["azi1"]), (f"{i}.finalAzimuth", r["finalAzimuth"], g["azi2"])]
    check("geodesic inverse azimuths vs geographiclib", azimuths, 1e-7)

    items = [{"from": c, "azimuth": rng.uniform(-180, 180), "distance": rng.uniform(0, 15_000_000)} for c in coordinates(N, 89)]
    got = post("/v1/geodesic/direct", {"items": items})["results"]
    pairs = []
    for i, (item, r) in enumerate(zip(items, got)):
        g = Geodesic.WGS84.Direct(item["from"]["latitude"], item["from"]["longitude"], item["azimuth"], item["distance"])
        dlon = (r["coordinate"]["longitude"] - g["lon2"] + 180) % 360 - 180
        pairs += [(f"{i}.latitude", r["coordinate"]["latitude"], g["lat2"]), (f"{i}.longitude", dlon, 0.0)]
    check("geodesic direct vs geographiclib", pairs, 1e-9)

    # CRS transforms (pyproj).
    for target, lon_range, lat_range, tolerance in [
        ("EPSG:6677", (138.5, 141.0), (34.5, 37.0), 1e-4),
        ("EPSG:32633", (10.0, 20.0), (0.0, 70.0), 1e-4),
        ("EPSG:3035", (-10.0, 30.0), (35.0, 70.0), 1e-4),
    ]:
        positions = [[rng.uniform(*lon_range), rng.uniform(*lat_range)] for _ in range(N)]
        got = post("/v1/crs/transform", {"source": "EPSG:4326", "target": target, "positions": positions})["positions"]
        oracle = Transformer.from_crs("EPSG:4326", target, always_xy=True)
        pairs = []
        for i, (p, q) in enumerate(zip(positions, got)):
            x, y = oracle.transform(*p)
            pairs += [(f"{i}.x", q[0], x), (f"{i}.y", q[1], y)]
        check(f"crs/transform EPSG:4326 → {target} vs pyproj", pairs, tolerance)

    # Metres per map point: geographiclib's length of a tiny step along the parallel.
    pairs = []
    for i in range(50):
        lat = rng.uniform(-85, 85)
        got = get(f"/v1/meters-per-map-point?latitude={lat!r}")["metersPerMapPoint"]
        step = 1e-6
        expected = Geodesic.WGS84.Inverse(lat, 0, lat, step)["s12"] / (step / 360 * W)
        pairs.append((f"{lat}", got / expected, 1.0))
    check("meters-per-map-point vs geographiclib (ratio)", pairs, 1e-8)

    # Region with distance: the span measured back with geographiclib.
    pairs = []
    for i in range(50):
        lat, meters = rng.uniform(-80, 80), rng.uniform(10, 5000)
        region = post("/v1/regions/with-distance", {"center": {"latitude": lat, "longitude": 0}, "latitudinalMeters": meters, "longitudinalMeters": meters})["region"]
        d = region["span"]["latitudeDelta"]
        measured = Geodesic.WGS84.Inverse(lat - d / 2, 0, lat + d / 2, 0)["s12"]
        pairs.append((f"{lat}", measured / meters, 1.0))
    check("regions/with-distance vs geographiclib (ratio)", pairs, 1e-6)

    # Screen points: pyproj map points, then DESIGN.md's viewport formula written out here.
    pairs = []
    for i in range(N // 10):
        center = coordinates(1, 80)[0]
        zoom, heading = rng.uniform(2, 20), rng.uniform(0, 360)
        width, height = rng.choice([(1024, 768), (390, 844), (256, 256)])
        view = {"size": {"width": width, "height": height}, "heading": heading, "center": center, "zoomLevel": zoom}
        zs = 2 ** (zoom - 20)
        cx, cy = map_point(center)
        targets = [{"latitude": min(85, max(-85, center["latitude"] + rng.uniform(-1, 1) * 90 / 2 ** zoom)),
                    "longitude": center["longitude"] + rng.uniform(-1, 1) * 180 / 2 ** zoom} for _ in range(10)]
        targets = [{"latitude": t["latitude"], "longitude": (t["longitude"] + 180) % 360 - 180} for t in targets]
        got = post("/v1/convert/coordinates-to-screen-points", {"viewport": view, "coordinates": targets})["points"]
        h = math.radians(heading)
        for j, (t, p) in enumerate(zip(targets, got)):
            x, y = map_point(t)
            x += round((cx - x) / W) * W  # nearest copy of the world
            dx, dy = (x - cx) * zs, (y - cy) * zs
            ex, ey = width / 2 + dx * math.cos(h) + dy * math.sin(h), height / 2 - dx * math.sin(h) + dy * math.cos(h)
            pairs += [(f"{i}.{j}.x", p["x"], ex), (f"{i}.{j}.y", p["y"], ey)]
    check("coordinates-to-screen-points vs pyproj + DESIGN.md formula", pairs, 1e-6)

    fit_checks()
    tile_checks()
    tracking_checks()
    crossing_checks()
    webhook_checks()
    filter_checks()
    TileChecks(URL, check, map_point, rng).run()

    print(f"crosscheck: {passed} passed, {failed} failed")
    return 1 if failed else 0


def fit_checks():
    """A visibleMapRect viewport as MKMapView.setVisibleMapRect shows it (mapRectThatFits:): the whole
    rect, centred, zoomScale = min(width / rect.width, height / rect.height); written out here."""
    pairs = []
    for i in range(N // 5):
        width, height = rng.choice([(800, 400), (400, 800), (1024, 768), (390, 844), (728, 728)])
        rw, rh = W * rng.uniform(1e-6, 1), W * rng.uniform(1e-6, 1)
        ox, oy = rng.uniform(0, W - rw), rng.uniform(0, W - rh)
        view = {"size": {"width": width, "height": height}, "visibleMapRect": {"origin": {"x": ox, "y": oy}, "size": {"width": rw, "height": rh}}}
        zs = min(width / rw, height / rh)
        if not 0 <= 20 + math.log2(zs) <= 30:
            continue
        mx, my = ox + rw / 2, oy + rh / 2
        screen = [(rng.uniform(0, width), rng.uniform(0, height)) for _ in range(5)]
        got = post("/v1/convert/screen-points-to-map-points", {"viewport": view, "points": [{"x": x, "y": y} for x, y in screen]})["mapPoints"]
        for j, ((sx, sy), p) in enumerate(zip(screen, got)):
            ex, ey = (mx + (sx - width / 2) / zs) % W, my + (sy - height / 2) / zs
            pairs += [(f"{i}.{j}.x", p["x"], ex), (f"{i}.{j}.y", p["y"], ey)]
        described = post("/v1/viewport", {"viewport": view})
        pairs.append((f"{i}.zoomLevel", described["zoomLevel"], 20 + math.log2(zs)))
    check("visibleMapRect viewport vs mapRectThatFits written out", pairs, 1e-6)


def tile_checks():
    """XYZ tiles against mercantile: the tile of a coordinate, its bounds and quadkey, and covers."""
    cs = coordinates(N, 89.9)
    pairs = []
    for zoom in (0, 1, 5, 12, 19, 28):
        got = post("/v1/convert/coordinates-to-tiles", {"zoom": zoom, "coordinates": cs})["tiles"]
        for i, (c, t) in enumerate(zip(cs, got)):
            tile = mercantile.tile(c["longitude"], c["latitude"], zoom)
            bounds = mercantile.bounds(tile)
            pairs += [(f"z{zoom}.{i}.x", t["x"], tile.x), (f"z{zoom}.{i}.y", t["y"], tile.y),
                      (f"z{zoom}.{i}.quadkey", 0 if t["quadkey"] == mercantile.quadkey(tile) else 1, 0),
                      (f"z{zoom}.{i}.west", t["bounds"]["west"], bounds.west), (f"z{zoom}.{i}.north", t["bounds"]["north"], bounds.north),
                      (f"z{zoom}.{i}.south", t["bounds"]["south"], bounds.south), (f"z{zoom}.{i}.east", t["bounds"]["east"], bounds.east)]
    check("coordinates-to-tiles vs mercantile (tile, bounds, quadkey)", pairs, 1e-9)
    # tiles-to-regions: each tile's bounds as mercantile gives them.
    tiles = [mercantile.Tile(x, y, z) for z in (0, 3, 10, 22) for x, y in
             [(rng.randrange(2 ** z), rng.randrange(2 ** z)) for _ in range(20)] + [(0, 0), (2 ** z - 1, 2 ** z - 1)]]
    got = post("/v1/convert/tiles-to-regions", {"tiles": [{"z": t.z, "x": t.x, "y": t.y} for t in tiles]})["bounds"]
    pairs = []
    for i, (t, b) in enumerate(zip(tiles, got)):
        expected = mercantile.bounds(t)
        pairs += [(f"{t}.{side}", b[side], getattr(expected, side)) for side in ("west", "south", "east", "north")]
    check("tiles-to-regions bounds vs mercantile.bounds", pairs, 1e-9)
    pairs = []
    for i in range(20):
        zoom = rng.randint(0, 8)
        west, east = rng.uniform(-180, 180), rng.uniform(-180, 180)
        south, north = sorted((rng.uniform(-85, 85), rng.uniform(-85, 85)))
        bbox = ",".join(f"{v:.6f}" for v in (west, south, east, north))
        got, cursor = set(), ""
        while cursor is not None:
            page = get(f"/v1/tiles/cover?bbox={bbox}&zoom={zoom}&limit=4000" + (f"&cursor={cursor}" if cursor else ""))
            got |= {(t["x"], t["y"]) for t in page["tiles"]}
            cursor = page.get("nextCursor")
        expected = {(t.x, t.y) for t in mercantile.tiles(float(bbox.split(",")[0]), south, float(bbox.split(",")[2]), north, zoom)}
        pairs.append((f"cover {i} z{zoom} {bbox}", len(got ^ expected), 0))
    check("tiles/cover vs mercantile.tiles (antimeridian split)", pairs, 0)


def fix(latitude, longitude, second):
    stamp = f"2026-01-01T{second // 3600:02d}:{second // 60 % 60:02d}:{second % 60:02d}Z"
    return {"coordinate": {"latitude": latitude, "longitude": longitude}, "timestamp": stamp, "horizontalAccuracy": 0}


def first_fix_events(subscription, latitude, longitude, device):
    """Events of a device's first fix under a subscription made for that device alone."""
    post("/v1/subscriptions", dict(subscription, deviceIds=[device], maxLocationAge=None))
    return post(f"/v1/devices/{device}/locations", {"locations": [fix(latitude, longitude, 0)]})["events"]


def near_threshold(origin, threshold):
    """A point 0.05 %–50 % nearer or farther than `threshold` metres from `origin`, and geographiclib's distance to it."""
    reach = threshold * (1 + rng.choice([-1, 1]) * rng.uniform(0.0005, 0.5))
    end = Geodesic.WGS84.Direct(origin["latitude"], origin["longitude"], rng.uniform(-180, 180), reach)
    distance = Geodesic.WGS84.Inverse(origin["latitude"], origin["longitude"], end["lat2"], end["lon2"])["s12"]
    return end["lat2"], end["lon2"], distance


def tracking_checks():
    """Region and significant-change decisions against geographiclib distances and shapely (GEOS) containment."""
    run = rng.randrange(1 << 30)
    pairs = []
    for i in range(N // 2):
        center = coordinates(1, 70)[0]
        radius = rng.uniform(10, 50_000)
        latitude, longitude, distance = near_threshold(center, radius)
        events = first_fix_events({"type": "region", "region": {"circle": {"center": center, "radius": radius}}},
                                  latitude, longitude, f"circle-{run}-{i}")
        pairs.append((f"circle {i} r={radius:.1f} d={distance:.1f}", len(events), 1 if distance <= radius else 0))
    check("circle region enter on a first fix vs geographiclib distance", pairs, 0)

    pairs = []
    for i in range(N // 5):
        lat, lon, size = rng.uniform(-60, 60), rng.uniform(-170, 170), rng.uniform(0.01, 0.3)
        # A star-shaped ring: angles in order, radii varied, so it is simple (and concave).
        ring = [(lon + math.cos(a) * r, lat + math.sin(a) * r) for a, r in
                ((2 * math.pi * k / 12, size * rng.uniform(0.3, 1)) for k in range(12))]
        ring.append(ring[0])
        shape = Polygon(ring)
        for j in range(5):
            x, y = lon + rng.uniform(-size, size), lat + rng.uniform(-size, size)
            if shape.exterior.distance(Point(x, y)) < 1e-7:
                continue
            events = first_fix_events({"type": "region", "region": {"type": "Polygon", "coordinates": [[list(p) for p in ring]]}},
                                      y, x, f"polygon-{run}-{i}-{j}")
            pairs.append((f"polygon {i}.{j}", len(events), 1 if shape.covers(Point(x, y)) else 0))
    check("polygon region enter on a first fix vs shapely (GEOS) containment", pairs, 0)

    pairs, near = [], 0
    geod = Geodesic.WGS84
    for i in range(10):
        # A route of 3–6 legs of 200–2 000 m somewhere (also near 180° and at 70°), buffered by shapely in an
        # azimuthal equidistant projection about its first vertex (pyproj), so width means metres on the ground.
        lat, lon = rng.choice([(rng.uniform(-60, 60), rng.uniform(-180, 180)), (70 + rng.uniform(-1, 1), rng.uniform(-180, 180)),
                               (rng.uniform(-30, 30), 179.99)])
        line, heading = [(lon, lat)], rng.uniform(0, 360)
        for _ in range(rng.randint(3, 6)):
            heading += rng.uniform(-70, 70)
            step = geod.Direct(line[-1][1], line[-1][0], heading, rng.uniform(200, 2_000))
            line.append((step["lon2"], step["lat2"]))
        width = rng.uniform(20, 2_000)
        local = Transformer.from_crs("EPSG:4326", f"+proj=aeqd +lat_0={lat} +lon_0={lon} +ellps=WGS84 +units=m", always_xy=True)
        projected = LineString([local.transform(x, y) for x, y in line])
        area = projected.buffer(width / 2, quad_segs=256)
        for j in range(25):
            vertex = rng.choice(line)
            p = geod.Direct(vertex[1], vertex[0], rng.uniform(0, 360), rng.uniform(0, width))
            point = Point(local.transform(p["lon2"], p["lat2"]))
            if abs(projected.distance(point) - width / 2) < 1.0:
                near += 1
                continue
            events = first_fix_events({"type": "region", "region": {"corridor": {"line": {"type": "LineString", "coordinates": [list(v) for v in line]}, "width": width}}},
                                      p["lat2"], p["lon2"], f"corridor-{run}-{i}-{j}")
            pairs.append((f"corridor {i}.{j} width {width:.0f}", len(events), 1 if area.covers(point) else 0))
    check(f"corridor region enter on a first fix vs shapely's buffer in a pyproj aeqd projection ({near} within 1 m of the edge skipped)", pairs, 0)

    pairs = []
    for i in range(N // 2):
        start = coordinates(1, 70)[0]
        threshold = rng.uniform(1, 5_000)
        latitude, longitude, distance = near_threshold(start, threshold)
        device = f"walker-{run}-{i}"
        post("/v1/subscriptions", {"type": "significantChange", "deviceIds": [device], "maxLocationAge": None,
                                   "distanceFilter": threshold, "minimumInterval": 0})
        answer = post(f"/v1/devices/{device}/locations", {"locations": [
            fix(start["latitude"], start["longitude"], 0), fix(latitude, longitude, 1)]})
        kinds = [event["type"] for event in answer["events"]]
        pairs.append((f"walker {i} filter={threshold:.1f} d={distance:.1f}", kinds.count("significantChange"), 1 if distance >= threshold else 0))
    check("significantChange distanceFilter vs geographiclib distance", pairs, 0)


def crossing_checks():
    """Regions with detect: ["cross"] against a dense sampling of the geodesic between two fixes
    outside (geographiclib, every 2 m): enter + exit exactly when the path comes hysteresis (+ the
    fixes' zero accuracy) inside, the interpolated entry and exit where the sampling first and last
    is inside. Cases within 1.5 m of the threshold are too close to call at that step and skipped."""
    run = rng.randrange(1 << 30)
    geod, step = Geodesic.WGS84, 2.0
    pairs, skipped, checked = [], 0, 0
    for i in range(2 * N):
        if checked == N:
            break
        center = coordinates(1, 70)[0]
        radius, hysteresis = rng.uniform(30, 600), rng.uniform(0, 60)
        heading, offset = rng.uniform(0, 360), rng.uniform(-1.2, 1.2) * radius
        abeam = geod.Direct(center["latitude"], center["longitude"], heading + 90, offset)
        reach = radius + rng.uniform(20, 1_500)
        a = geod.Direct(abeam["lat2"], abeam["lon2"], heading, -reach)
        b = geod.Direct(abeam["lat2"], abeam["lon2"], heading, reach)
        line = geod.InverseLine(a["lat2"], a["lon2"], b["lat2"], b["lon2"])
        samples = []
        for k in range(int(line.s13 // step) + 2):
            s = min(k * step, line.s13)
            p = line.Position(s)
            samples.append((s, geod.Inverse(center["latitude"], center["longitude"], p["lat2"], p["lon2"])["s12"] - radius, p))
        deepest = min(d for _, d, _ in samples)
        if abs(deepest + hysteresis) < 1.5 or samples[0][1] < 1.5 or samples[-1][1] < 1.5:
            skipped += 1
            continue
        checked += 1
        device = f"crosser-{run}-{i}"
        post("/v1/subscriptions", {"type": "region", "deviceIds": [device], "maxLocationAge": None, "hysteresis": hysteresis,
                                   "detect": ["cross"], "region": {"circle": {"center": center, "radius": radius}}})
        post(f"/v1/devices/{device}/locations", {"locations": [fix(a["lat2"], a["lon2"], 0)]})
        events = post(f"/v1/devices/{device}/locations", {"locations": [fix(b["lat2"], b["lon2"], 300)]})["events"]
        passes = deepest <= -hysteresis
        pairs.append((f"case {i} r={radius:.0f} deepest={deepest:.1f} h={hysteresis:.1f}", len(events), 2 if passes else 0))
        if passes and len(events) == 2:
            inside = [p for _, d, p in samples if d <= 0]
            for event, expected in zip(events, (inside[0], inside[-1])):
                got = event["location"]["coordinate"]
                metres = geod.Inverse(got["latitude"], got["longitude"], expected["lat2"], expected["lon2"])["s12"]
                pairs.append((f"case {i} {event['type']} place: {metres:.2f} m from the sampling's, more than its step by", max(0.0, metres - step), 0.0))
    check(f"crossings between fixes (detect: cross) vs a 2 m geographiclib sampling ({checked} cases, {skipped} more too close to call)", pairs, 0)


def call(method, path, body, content_type="application/json"):
    """(status, JSON answer or None) of any method; HTTP errors are answers, not exceptions."""
    request = urllib.request.Request(URL + path, method=method, data=json.dumps(body).encode(), headers={"Content-Type": content_type})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.load(response)
    except urllib.error.HTTPError as error:
        return error.code, None


class Receiver(http.server.ThreadingHTTPServer):
    """Webhook endpoint on 127.0.0.1:0 that answers 204 and keeps (headers, body) of every request."""
    daemon_threads = True

    def __init__(self):
        self.requests, self.arrived = [], threading.Condition()
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                self.send_response(204)
                self.end_headers()
                with receiver.arrived:
                    receiver.requests.append((dict(self.headers.items()), body))
                    receiver.arrived.notify_all()

            def log_message(self, *args):
                pass
        super().__init__(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.serve_forever, daemon=True).start()

    def wait_for(self, count, seconds=20):
        """The first `count` requests, or as many as came within `seconds`."""
        deadline = time.monotonic() + seconds
        with self.arrived:
            while len(self.requests) < count and (left := deadline - time.monotonic()) > 0:
                self.arrived.wait(left)
            return list(self.requests[:count])


def logged(subscription, after):
    """The subscription's events in the whole log (GET /v1/events?after=…, every page) after a sequence."""
    events = []
    while page := get(f"/v1/events?after={after}&limit=1000")["events"]:
        events += [e for e in page if e["subscriptionId"] == subscription]
        after = page[-1]["sequence"]
    return events


def verifies(secret, headers, body):
    try:
        Webhook(secret).verify(body, headers)
        return True
    except WebhookVerificationError:
        return False


def webhook_checks():
    """Webhook requests against the standardwebhooks package (signatures, before and after a secret
    rotation) and against the event log (bodies, order, webhook-id)."""
    run = rng.randrange(1 << 30)
    receiver = Receiver()
    try:
        device = f"hooked-{run}"
        subscription = post("/v1/subscriptions", {"type": "significantChange", "deviceIds": [device], "distanceFilter": 0,
                                                  "minimumInterval": 0, "maxLocationAge": None})["id"]
        status, hook = call("POST", "/v1/webhooks", {"url": f"http://127.0.0.1:{receiver.server_port}/hook/{run}",
                                                      "subscriptionIds": [subscription]})
        if status != 201:
            check("webhook: POST /v1/webhooks to a 127.0.0.1 receiver (the server needs MERIDIAN_WEBHOOK_ALLOW_CIDR=127.0.0.0/8)",
                  [("status", status, 201)], 0)
            return
        secret, base = hook["secret"], time.time_ns() // 1000

        def send(k):  # fix k of the device, 1 s after fix k − 1, a little farther north
            stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(base // 1_000_000 + k)) + f".{base % 1_000_000:06d}Z"
            return post(f"/v1/devices/{device}/locations", {"locations": [
                {"coordinate": {"latitude": 48.85 + k * 0.01, "longitude": 2.35}, "timestamp": stamp, "horizontalAccuracy": 5}]})["events"]
        expected = sum(len(send(k)) for k in range(5))
        got = receiver.wait_for(expected)
        events = logged(subscription, 0)

        pairs = [(f"request {i}", 0 if verifies(secret, h, b) else 1, 0) for i, (h, b) in enumerate(got)]
        pairs.append(("requests received", len(got), expected))
        check("webhook: every request verifies with standardwebhooks", pairs, 0)
        pairs = []
        for i, (h, b) in enumerate(got):
            tampered = b.replace(b'"deviceId":"', b'"deviceId":"x', 1)
            pairs.append((f"request {i} tampered", 1 if tampered != b and not verifies(secret, h, tampered) else 0, 1))
            pairs.append((f"request {i} other secret", 0 if verifies("whsec_" + base64.b64encode(os.urandom(32)).decode(), h, b) else 1, 1))
        check("webhook: a tampered body, or another secret, fails standardwebhooks", pairs, 0)
        pairs = [("requests vs events", len(got), len(events)), ("events", len(events), expected)]
        for i, ((h, b), event) in enumerate(zip(got, events)):
            pairs += [(f"request {i} body", 0 if json.loads(b) == event else 1, 0),
                      (f"request {i} webhook-id", 0 if h.get("webhook-id") == event["id"] else 1, 0)]
        check("webhook: bodies = GET /v1/events in order, webhook-id = event id", pairs, 0)

        rotated = "whsec_" + base64.b64encode(os.urandom(32)).decode()
        status, _ = call("PATCH", f"/v1/webhooks/{hook['id']}", {"secret": rotated}, "application/merge-patch+json")
        more = len(send(5))
        got = receiver.wait_for(expected + more)[expected:]
        events = logged(subscription, events[-1]["sequence"] if events else 0)
        pairs = [("PATCH status", status, 200), ("requests after the rotation", len(got), 1), ("events after the rotation", more, 1)]
        for i, ((h, b), event) in enumerate(zip(got, events)):
            pairs += [(f"request {i} new secret", 0 if verifies(rotated, h, b) else 1, 0),
                      (f"request {i} old secret", 0 if verifies(secret, h, b) else 1, 0),
                      (f"request {i} signatures", len(h.get("webhook-signature", "").split(" ")), 2),
                      (f"request {i} body", 0 if json.loads(b) == event else 1, 0)]
        check("webhook: after a secret rotation, verifies with the new and the old secret", pairs, 0)

        last = events[-1]["sequence"] if events else None
        deadline = time.monotonic() + 5
        while True:  # the cursor moves once the receiver's answer is processed
            state = get(f"/v1/webhooks/{hook['id']}")
            if state["cursor"] == last or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        check("webhook: GET /v1/webhooks/{id} cursor at the last event, no lag",
              [("cursor", state["cursor"], last or 0), ("lag.events", state["lag"]["events"], 0)], 0)
    finally:
        receiver.shutdown()
        receiver.server_close()


# CQL2 filters. A filter is built here as a tree of tuples, then written out as CQL2-JSON and as
# CQL2-Text for the server, and evaluated by pygeofilter's native backend (attribute filters) or
# by shapely (spatial predicates) over the same annotations:
#   ("cmp", op, lhs, rhs), lhs and rhs ("prop", name) or ("lit", value)
#   ("like", name, pattern, negated)    ("in", name, [values], negated)
#   ("between", name, low, high, negated)    ("isnull", name, negated)
#   ("and", [trees])    ("or", [trees])    ("not", tree)
#   ("guarded", tree): `rating IS NOT NULL AND tree`, see attribute_leaf
#   ("spatial", op, geometry, point_first), geometry a dict (see random_geometry)

FILTER_KINDS = ["cafe", "shop", "museum", "park", "station"]
FILTER_WORDS = ["Blue", "blue", "Red", "Old", "New", "Café", "Bar", "Tower", "Mill", "Bridge", "North", "東京", "Zoë"]
FILTER_CITIES = ["Oslo", "Rome", "Paris", "Lima", "Kyōto", "São Paulo", "Nuuk", "Suva"]
FILTER_TAGS = ["wifi", "quiet", "outdoor", "vegan", "late"]
STRING_PROPERTIES = ["kind", "title", "subtitle", "externalId", "id", "tags", "address.city"]
# Null for some annotations (rating) or for all (nickname, address.zip).
NULLABLE_PROPERTIES = ["rating", "subtitle", "address.city", "title", "nickname", "address.zip"]
# Where most points lie (longitude, latitude, spread in degrees).
HOTSPOTS = [(2.35, 48.85, 2), (-70, -30, 6), (120, 30, 10), (-100, 60, 15)]


def filter_point():
    """A random (longitude, latitude): near the antimeridian, a pole, a hotspot, or anywhere; never on ±180° or a pole."""
    r = rng.random()
    if r < 0.2:
        return rng.choice([-1, 1]) * (180 - rng.uniform(1e-6, 2)), rng.uniform(-60, 60)
    if r < 0.35:
        return rng.uniform(-180, 180), rng.choice([-1, 1]) * (90 - rng.uniform(1e-6, 1.5))
    if r < 0.5:
        return rng.uniform(-179.9, 179.9), rng.uniform(-89.9, 89.9)
    lon, lat, spread = rng.choice(HOTSPOTS)
    return lon + rng.uniform(-spread, spread), lat + rng.uniform(-spread, spread)


def filter_data(tag, run, n):
    """n annotations with every property set, then a few without `rating`: dicts of feature properties plus lon, lat."""
    items = []
    for i in range(n + 12):
        lon, lat = filter_point() if not items or rng.random() > 0.05 else (items[-1]["lon"], items[-1]["lat"])
        properties = {"rating": rng.choice([round(rng.uniform(0, 5), 1), rng.randint(0, 5)]), "open": rng.random() < 0.5,
                      "tags": ",".join(rng.sample(FILTER_TAGS, rng.randint(0, 3))), "address": {"city": rng.choice(FILTER_CITIES)}}
        if i >= n:
            del properties["rating"]
        items.append({"externalId": f"xc-{run}-{'n' if i >= n else ''}{i:03d}", "kind": rng.choice(FILTER_KINDS),
                      "title": " ".join(rng.sample(FILTER_WORDS, rng.randint(1, 3))) + rng.choice(["", f" {rng.randint(1, 99)}"]),
                      "subtitle": rng.choice(["", "", " ".join(rng.sample(FILTER_WORDS, 2))]),
                      "clusteringIdentifier": tag, "displayPriority": rng.randint(0, 1000), "properties": properties,
                      "lon": lon, "lat": lat})
    return items


def record(item):
    """An annotation as pygeofilter's native evaluator reads it: fields and free properties side by side."""
    fields = ("id", "externalId", "kind", "title", "subtitle", "clusteringIdentifier", "displayPriority")
    return {**item["properties"], **{name: item[name] for name in fields}}


def value_of(item, name):
    value = record(item)
    for part in name.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    return value


def string_literal(items, name):
    value = value_of(rng.choice(items), name)
    r = rng.random()
    if r < 0.5:
        return value
    if r < 0.75:
        return value[:rng.randint(0, len(value))]
    return value + rng.choice(["a", " ", "Z", "é", "~"]) if r < 0.9 else rng.choice(FILTER_WORDS)


def number_literal(items, name):
    rated = [item for item in items if "rating" in item["properties"]]
    if rng.random() < 0.5:
        return value_of(rng.choice(rated), name)
    if name == "rating":
        return round(rng.uniform(-1, 6), rng.choice([0, 1, 2]))
    return rng.choice([rng.randint(-5, 1005), rng.randint(0, 1000) + 0.5])


def like_pattern(value):
    """A LIKE pattern made from a value: characters kept, or turned into _ or %, or changed; sometimes case-swapped."""
    out, i = [], 0
    while i < len(value):
        r = rng.random()
        if r < 0.15:
            out.append("_")
            i += 1
        elif r < 0.25:
            out.append("%")
            i += rng.randint(0, 3)
        elif r < 0.28:
            out.append(rng.choice("xé%_"))
            i += 1
        else:
            out.append(value[i])
            i += 1
    pattern = ("%" if rng.random() < 0.2 else "") + "".join(out) + ("%" if rng.random() < 0.3 else "")
    return pattern.swapcase() if rng.random() < 0.15 else pattern


def attribute_leaf(items):
    """A random comparison, like, in, between or isNull. One that reads `rating` (null on a few
    annotations) is guarded by `rating IS NOT NULL AND …`: pygeofilter evaluates in two-valued Python
    (`not` of a comparison with None is True where SQL's is unknown; `None < 3` raises), but a guarded
    predicate is false, never unknown, on a null rating, in both. The server's unknowns are checked
    apart, in three_valued_checks."""
    r = rng.random()
    if r < 0.25:
        name = rng.choice(STRING_PROPERTIES + ["displayPriority", "rating"] * 2)
        literal = number_literal(items, name) if name in ("displayPriority", "rating") else string_literal(items, name)
        leaf = ("cmp", rng.choice(["=", "<>", "<", "<=", ">", ">="]), ("prop", name), ("lit", literal))
        if rng.random() < 0.2:
            leaf = (leaf[0], leaf[1], leaf[3], leaf[2])  # literal first
    elif r < 0.3:
        a, b = rng.choice([("displayPriority", "rating"), ("title", "subtitle"), ("kind", "tags"), ("title", "address.city")])
        leaf = ("cmp", rng.choice(["=", "<>", "<", "<=", ">", ">="]), ("prop", a), ("prop", b))
    elif r < 0.4:
        leaf = ("cmp", rng.choice(["=", "<>"]), ("prop", "open"), ("lit", rng.random() < 0.5))
    elif r < 0.55:
        name = rng.choice(STRING_PROPERTIES)
        leaf = ("like", name, like_pattern(value_of(rng.choice(items), name)), rng.random() < 0.3)
    elif r < 0.7:
        # At least two values: pygeofilter writes `x in (v)` for one, which Python reads as `x in v`.
        name = rng.choice(STRING_PROPERTIES + ["displayPriority", "rating"])
        make = number_literal if name in ("displayPriority", "rating") else string_literal
        leaf = ("in", name, [make(items, name) for _ in range(rng.randint(2, 4))], rng.random() < 0.3)
    elif r < 0.85:
        name = rng.choice(["displayPriority", "rating"])
        low, high = number_literal(items, name), number_literal(items, name)
        if rng.random() < 0.85:
            low, high = min(low, high), max(low, high)
        leaf = ("between", name, low, high, rng.random() < 0.3)
    else:
        return ("isnull", rng.choice(NULLABLE_PROPERTIES), rng.random() < 0.4)
    return ("guarded", leaf) if "rating" in json.dumps(leaf) else leaf


def attribute_tree(items, depth):
    if depth == 0 or rng.random() < 0.3:
        return attribute_leaf(items)
    r = rng.random()
    if r < 0.8:
        return ("and" if r < 0.4 else "or", [attribute_tree(items, depth - 1) for _ in range(rng.randint(2, 3))])
    return ("not", attribute_tree(items, depth - 1))


def star_ring(cx, cy, r, k, low):
    """A simple (star-shaped, so mostly concave) closed ring of k vertices around (cx, cy)."""
    phase = rng.uniform(0, 2 * math.pi)
    ring = [(cx + math.cos(a) * r * f, cy + math.sin(a) * r * f)
            for a, f in ((phase + 2 * math.pi * j / k, rng.uniform(low, 1)) for j in range(k))]
    return ring + ring[:1]


def random_polygon(items):
    """Rings ([shell, holes…]) of a convex or star-shaped polygon, sometimes with a hole, around a data point or anywhere."""
    while True:
        if rng.random() < 0.7:
            item = rng.choice(items)
            cx, cy = item["lon"] + rng.uniform(-1, 1), item["lat"] + rng.uniform(-1, 1)
        else:
            cx, cy = rng.uniform(-179, 179), rng.uniform(-89, 89)
        r = min(rng.choice([rng.uniform(0.05, 1), rng.uniform(1, 20)]), (180 - abs(cx)) * 0.999, (90 - abs(cy)) * 0.999)
        if r > 1e-3:
            break
    if rng.random() < 0.4:
        points = [(cx + math.cos(a) * r * f, cy + math.sin(a) * r * f)
                  for a, f in ((rng.uniform(0, 2 * math.pi), math.sqrt(rng.random())) for _ in range(rng.randint(3, 12)))]
        hull = MultiPoint(points).convex_hull
        if not isinstance(hull, Polygon):
            return random_polygon(items)
        shell = list(hull.exterior.coords)
    else:
        shell = star_ring(cx, cy, r, rng.randint(5, 20), 0.3)
    rings = [shell]
    if rng.random() < 0.3:
        inside = Polygon(shell).representative_point()
        room = Polygon(shell).exterior.distance(inside)
        hole = star_ring(inside.x, inside.y, room * 0.8, rng.randint(3, 10), 0.4)
        if Polygon(shell, [hole]).is_valid:
            rings.append(hole)
    return [ring[::-1] if rng.random() < 0.3 else ring for ring in rings]


def random_geometry(items):
    """A literal geometry: {"type", the GeoJSON-like coordinates or bbox, "shape": shapely's version}."""
    r = rng.random()
    if r < 0.3:
        item = rng.choice(items)
        cx, cy = (item["lon"], item["lat"]) if rng.random() < 0.7 else (rng.uniform(-180, 180), rng.uniform(-90, 90))
        hw, hh = rng.choice([rng.uniform(0.05, 2), rng.uniform(2, 40)]), rng.choice([rng.uniform(0.05, 2), rng.uniform(2, 30)])
        w, e = (cx - hw + 180) % 360 - 180, (cx + hw + 180) % 360 - 180  # west > east: across the antimeridian
        s, n = max(-90.0, cy - hh), min(90.0, cy + hh)
        shape = box(w, s, e, n) if w <= e else MultiPolygon([box(w, s, 180, n), box(-180, s, e, n)])
        return {"type": "bbox", "bbox": [w, s, e, n], "shape": shape}
    if r < 0.45:
        item = rng.choice(items)
        x, y = item["lon"], item["lat"]
        if rng.random() < 0.3:
            x, y = x + rng.choice([-1, 1]) * 1e-7, y
        return {"type": "Point", "coordinates": [x, y], "shape": Point(x, y)}
    if r < 0.85:
        rings = random_polygon(items)
        return {"type": "Polygon", "coordinates": rings, "shape": Polygon(rings[0], rings[1:])}
    polygons = []
    for _ in range(rng.randint(2, 3)):
        rings = random_polygon(items)
        if all(Polygon(rings[0]).disjoint(Polygon(other[0])) for other in polygons):
            polygons.append(rings)
    return {"type": "MultiPolygon", "coordinates": polygons, "shape": MultiPolygon([(p[0], p[1:]) for p in polygons])}


def spatial_leaf(items, points):
    """A spatial predicate on a geometry none of the points lies on the boundary of."""
    while True:
        geometry = random_geometry(items)
        if geometry["type"] == "Point" or min(geometry["shape"].boundary.distance(p) for p in points) > 1e-9:
            break
    r = rng.random()
    op, point_first = ("s_intersects", True) if r < 0.4 else ("s_within", True) if r < 0.7 else ("s_contains", False) if r < 0.85 else \
        rng.choice([("s_intersects", False), ("s_within", False), ("s_contains", True)])
    return ("spatial", op, geometry, point_first)


def spatial_tree(items, points, depth):
    if depth == 0 or rng.random() < 0.5:
        return spatial_leaf(items, points) if rng.random() < 0.8 else attribute_leaf(items)
    r = rng.random()
    if r < 0.8:
        return ("and" if r < 0.4 else "or", [spatial_tree(items, points, depth - 1) for _ in range(2)])
    return ("not", spatial_tree(items, points, depth - 1))


def has_spatial(tree):
    return tree[0] == "spatial" or (tree[0] in ("and", "or") and any(map(has_spatial, tree[1]))) or (tree[0] == "not" and has_spatial(tree[1]))


def cql2_json(tree, draft_between=False):
    """CQL2-JSON of a tree; draft_between writes between as pygeofilter 0.4 reads it ([x, [low, high]], a
    CQL2 draft's form), not as CQL2 1.0 does ([x, low, high])."""
    kind = tree[0]

    def scalar(s):
        return {"property": s[1]} if s[0] == "prop" else s[1]

    def negated(node, flag):
        return {"op": "not", "args": [node]} if flag else node
    if kind == "cmp":
        return {"op": tree[1], "args": [scalar(tree[2]), scalar(tree[3])]}
    if kind == "like":
        return negated({"op": "like", "args": [{"property": tree[1]}, tree[2]]}, tree[3])
    if kind == "in":
        return negated({"op": "in", "args": [{"property": tree[1]}, list(tree[2])]}, tree[3])
    if kind == "between":
        bounds = [[tree[2], tree[3]]] if draft_between else [tree[2], tree[3]]
        return negated({"op": "between", "args": [{"property": tree[1]}] + bounds}, tree[4])
    if kind == "isnull":
        return negated({"op": "isNull", "args": [{"property": tree[1]}]}, tree[2])
    if kind == "guarded":
        return cql2_json(("and", [("isnull", "rating", True), tree[1]]), draft_between)
    if kind in ("and", "or"):
        return {"op": kind, "args": [cql2_json(t, draft_between) for t in tree[1]]}
    if kind == "not":
        return {"op": "not", "args": [cql2_json(tree[1], draft_between)]}
    geometry = tree[2]
    literal = {"bbox": geometry["bbox"]} if geometry["type"] == "bbox" else {"type": geometry["type"], "coordinates": geometry["coordinates"]}
    return {"op": tree[1], "args": [{"property": "geometry"}, literal] if tree[3] else [literal, {"property": "geometry"}]}


def keyword(word):
    return rng.choice([word, word.lower(), word.capitalize()])


def text_literal(value):
    if isinstance(value, bool):
        return keyword("TRUE" if value else "FALSE")
    if isinstance(value, str):
        return "'" + value.replace("'", "''") + "'"
    return repr(value)


def wkt_ring(ring):
    return "(" + ", ".join(f"{x!r} {y!r}" for x, y in ring) + ")"


def cql2_text(tree):
    """(CQL2-Text of a tree, whether pygeofilter 0.4's grammar reads it the same). Its grammar has no
    NOT before a parenthesised and/or, and gives AND and OR one precedence; so compound children are
    parenthesised, except, sometimes, an and inside an or (CQL2's AND binds tighter), which is then
    left to the server alone."""
    kind = tree[0]
    if kind == "cmp":
        side = lambda s: s[1] if s[0] == "prop" else text_literal(s[1])  # noqa: E731
        return f"{side(tree[2])} {tree[1]} {side(tree[3])}", True
    if kind == "like":
        return f"{tree[1]} {keyword('NOT') + ' ' if tree[3] else ''}{keyword('LIKE')} {text_literal(tree[2])}", True
    if kind == "in":
        return f"{tree[1]} {keyword('NOT') + ' ' if tree[3] else ''}{keyword('IN')} ({', '.join(map(text_literal, tree[2]))})", True
    if kind == "between":
        return f"{tree[1]} {keyword('NOT') + ' ' if tree[4] else ''}{keyword('BETWEEN')} {text_literal(tree[2])} {keyword('AND')} {text_literal(tree[3])}", True
    if kind == "isnull":
        return f"{tree[1]} {keyword('IS')} {keyword('NOT') + ' ' if tree[2] else ''}{keyword('NULL')}", True
    if kind == "guarded":
        text, safe = cql2_text(tree[1])
        return f"rating {keyword('IS')} {keyword('NOT')} {keyword('NULL')} {keyword('AND')} {text}", safe
    if kind in ("and", "or"):
        parts, safe = [], True
        for child in tree[1]:
            text, child_safe = cql2_text(child)
            compound = child[0] in ("and", "or", "guarded")
            if compound and not (kind == "or" and child[0] in ("and", "guarded") and rng.random() < 0.3):
                text = f"({text})"
            elif compound:
                child_safe = False
            elif rng.random() < 0.3:
                text = f"({text})"
            parts.append(text)
            safe = safe and child_safe
        return f" {keyword(kind.upper())} ".join(parts), safe
    if kind == "not":
        text, safe = cql2_text(tree[1])
        compound = tree[1][0] in ("and", "or", "guarded", "not")
        bare = not compound and tree[1][0] != "cmp" and rng.random() < 0.3  # NOT x LIKE 'a', NOT x IS NULL …
        return (f"{keyword('NOT')} {text}" if bare else f"{keyword('NOT')} ({text})"), safe and not compound
    geometry = tree[2]
    if geometry["type"] == "bbox":
        literal = keyword("BBOX") + "(" + ", ".join(map(repr, geometry["bbox"])) + ")"
    elif geometry["type"] == "Point":
        literal = keyword("POINT") + "({!r} {!r})".format(*geometry["coordinates"])
    elif geometry["type"] == "Polygon":
        literal = keyword("POLYGON") + "(" + ", ".join(map(wkt_ring, geometry["coordinates"])) + ")"
    else:
        literal = keyword("MULTIPOLYGON") + "(" + ", ".join("(" + ", ".join(map(wkt_ring, p)) + ")" for p in geometry["coordinates"]) + ")"
    args = ["geometry", literal] if tree[3] else [literal, "geometry"]
    return f"{keyword(tree[1].upper())}({', '.join(args)})", False


def cql2_singlechar(node):
    """pygeofilter 0.4 reads `.` as LIKE's one-character wildcard; CQL2's is `_`: give its Like nodes `_`."""
    if isinstance(node, cql2_ast.Like):
        node.singlechar = "_"
    subs = node.get_sub_nodes() if isinstance(node, cql2_ast.Node) else None
    for sub in subs if isinstance(subs, list) else [subs] if subs is not None else []:
        cql2_singlechar(sub)
    return node


def pygeofilter_matches(tree, items, text=None):
    """Per item, whether pygeofilter's native backend matches it: the tree parsed from CQL2-Text when
    given (and readable by pygeofilter), else from CQL2-JSON."""
    parsed = cql2_singlechar(parse_cql2_text(text) if text is not None else parse_cql2_json(cql2_json(tree, draft_between=True)))
    test = NativeEvaluator(use_getattr=False).evaluate(parsed)
    return [bool(test(record(item))) for item in items]


def spatial_matches(tree, items, points):
    """Per item, whether the tree holds: spatial predicates by shapely, the rest by pygeofilter, and/or/not two-valued."""
    kind = tree[0]
    if kind == "spatial":
        shape = tree[2]["shape"]
        if tree[1] == "s_intersects":
            return [p.intersects(shape) for p in points]
        if (tree[1] == "s_within") == tree[3]:  # the point within the geometry, or the geometry contains the point
            return [p.within(shape) if tree[3] else shape.contains(p) for p in points]
        return [shape.within(p) if not tree[3] else p.contains(shape) for p in points]
    if kind in ("and", "or"):
        columns = [spatial_matches(t, items, points) for t in tree[1]]
        return [(all if kind == "and" else any)(row) for row in zip(*columns)]
    if kind == "not":
        return [not m for m in spatial_matches(tree[1], items, points)]
    return pygeofilter_matches(tree, items)


def answer(method, path, body=None, content_type="application/json"):
    """(status, JSON answer) of a request; an error's answer is its problem JSON, or its text."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(URL + path, method=method, data=data, headers={"Content-Type": content_type})
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, json.load(response)
    except urllib.error.HTTPError as error:
        text = error.read().decode(errors="replace")
        try:
            return error.code, json.loads(text)
        except ValueError:
            return error.code, text


ROUTES = {"json-body": "POST /v1/annotations/search CQL2-JSON", "text-query": "GET /v1/annotations?filter= CQL2-Text",
          "text-body": "POST /v1/annotations/search CQL2-Text string", "json-query": "GET /v1/annotations?filter-lang=cql2-json"}


def matched(sent, route, limit):
    """The externalIds the server pages out for a filter (a list, every page), or an error message."""
    ids, cursor = [], None
    for _ in range(1000):
        if route.endswith("body"):
            status, page = answer("POST", "/v1/annotations/search", dict({"filter": sent, "limit": limit}, **({"cursor": cursor} if cursor else {})))
        else:
            query = {"filter": sent if isinstance(sent, str) else json.dumps(sent, ensure_ascii=False),
                     "filter-lang": "cql2-text" if route.startswith("text") else "cql2-json", "limit": limit}
            status, page = answer("GET", "/v1/annotations?" + urllib.parse.urlencode(dict(query, **({"cursor": cursor} if cursor else {})), quote_via=urllib.parse.quote))
        if status != 200:
            return f"HTTP {status}: {page.get('detail', page) if isinstance(page, dict) else page}"
        ids += [a.get("externalId") for a in page["annotations"]]
        cursor = page.get("nextCursor")
        if not cursor:
            return ids
    return "more than 1000 pages"


def difference(got, expected):
    """0 when the server's list is the expected set without repeats; else how many ids differ (1 for an error), and why."""
    if isinstance(got, str):
        return 1, got
    extra, missing, repeated = set(got) - expected, expected - set(got), len(got) - len(set(got))
    why = f"server also returned {sorted(extra)[:4]}" * bool(extra) + f" server missed {sorted(missing)[:4]}" * bool(missing) + f" {repeated} repeated" * bool(repeated)
    return len(extra) + len(missing) + repeated, why.strip()


def smaller(tree):
    """Trees a step smaller: a child of an and/or/not in its place, an and/or with a child fewer, or a child made smaller."""
    kind = tree[0]
    if kind in ("and", "or"):
        children = tree[1]
        yield from children
        if len(children) > 2:
            for i in range(len(children)):
                yield (kind, children[:i] + children[i + 1:])
        for i, child in enumerate(children):
            for s in smaller(child):
                yield (kind, children[:i] + [s] + children[i + 1:])
    elif kind == "not":
        yield tree[1]
        for s in smaller(tree[1]):
            yield ("not", s)


class FilterCase:
    """Filters on the annotations of one tag, sent to the server and evaluated by the oracles."""

    def __init__(self, items, tag):
        self.items, self.points = items, [Point(item["lon"], item["lat"]) for item in items]
        self.tagged = ("cmp", "=", ("prop", "clusteringIdentifier"), ("lit", tag))
        self.by_id = {item["externalId"]: item for item in items}
        self.read_from_text = 0  # CQL2-Text filters pygeofilter evaluated as read from that text

    def expected(self, full, text=None):
        matches = spatial_matches(full, self.items, self.points) if has_spatial(full) else pygeofilter_matches(full, self.items, text)
        return {item["externalId"] for item, m in zip(self.items, matches) if m}

    def judge(self, tree, route, limit=None):
        """(ids differing, why, those ids, the filter's CQL2-Text) for a tree and the tag conjunct, sent by a route."""
        full = ("and", [self.tagged, tree])
        text, safe = cql2_text(full)
        self.read_from_text += route.startswith("text") and safe and not has_spatial(full)
        try:
            expected = self.expected(full, text if route.startswith("text") and safe else None)
        except Exception as error:  # noqa: BLE001 (an oracle that cannot read a filter is this script's failure)
            return 1, f"oracle: {type(error).__name__}: {error}", set(), text
        got = matched(cql2_json(full) if route.startswith("json") else text, route, limit or rng.choice([1000, 1000, 1000, 37]))
        count, why = difference(got, expected)
        return count, why, (set(got) ^ expected) if not isinstance(got, str) else set(), text

    def run(self, name, trees, routes):
        """One check of the trees (each by the next route in turn); the smallest disagreements after a failure."""
        pairs, failures, self.read_from_text = [], [], 0
        for tree, route in zip(trees, routes):
            count, why, _, text = self.judge(tree, route)
            pairs.append((f"{route}: {text[:400]} — {why}", count, 0))
            if count:
                failures.append((tree, route))
        check(name.format(read=self.read_from_text), pairs, 0)
        self.report_smallest(failures)

    def report_smallest(self, failures, budget=300):
        """Shrinks up to 3 failing trees (greedily, while the server still disagrees) and prints them with the items at odds."""
        unique = {json.dumps(cql2_json(tree)): (tree, route) for tree, route in reversed(failures)}  # one route a tree
        for tree, route in sorted(unique.values(), key=lambda f: len(cql2_text(f[0])[0]))[:3]:
            tries, shrunk = 0, True
            while shrunk and tries < budget:
                shrunk = False
                for candidate in smaller(tree):
                    tries += 1
                    if self.judge(candidate, route)[0]:
                        tree, shrunk = candidate, True
                        break
                    if tries >= budget:
                        break
            count, why, ids, text = self.judge(tree, route)
            print(f"     smallest disagreeing filter found ({ROUTES[route]}): {text}")
            print(f"       CQL2-JSON: {json.dumps(cql2_json(('and', [self.tagged, tree])), ensure_ascii=False)}")
            print(f"       {why}")
            for i in sorted(ids)[:3]:
                item = self.by_id[i]
                print(f"       {i}: id {item['id']}, (lon, lat) ({item['lon']!r}, {item['lat']!r}), kind {item['kind']!r}, title {item['title']!r}, "
                      f"subtitle {item['subtitle']!r}, displayPriority {item['displayPriority']}, properties {json.dumps(item['properties'], ensure_ascii=False)}")


def filter_checks():
    """CQL2 filters (POST /v1/annotations/search, GET /v1/annotations?filter=) against pygeofilter's native
    evaluator (attribute filters) and shapely (spatial ones), on annotations all tagged with one
    clusteringIdentifier, which every filter requires (other checks' annotations stay out)."""
    run = rng.randrange(1 << 30)
    tag = f"xc-filters-{run}"
    items = filter_data(tag, run, 400)
    features = [{"type": "Feature", "geometry": {"type": "Point", "coordinates": [item["lon"], item["lat"]]},
                 "properties": {k: v for k, v in item.items() if k not in ("lon", "lat")}} for item in items]
    status, imported = answer("POST", "/v1/annotations/import", {"type": "FeatureCollection", "features": features}, "application/geo+json")
    created = imported.get("created", 0) if isinstance(imported, dict) else 0
    check(f"filters: import of {len(items)} annotations", [("status", status, 200), ("created", created, len(items))], 0)
    if status != 200 or created != len(items):
        return
    for result in imported["results"]:
        items[result["index"]]["id"] = result["id"]
    case = FilterCase(items, tag)

    for route, name in (("json-body", "CQL2-JSON"), ("text-query", "CQL2-Text")):
        trees = [attribute_tree(items, rng.randint(1, 3)) for _ in range(N // 2 + N % 2 if route == "json-body" else N // 2)]
        partial = sum(0 < len(case.expected(("and", [case.tagged, tree]))) < len(items) for tree in trees)
        read = "; pygeofilter read {read} from the text, the rest (its grammar lacks NOT (…and/or…) and AND-over-OR precedence) from the tree's CQL2-JSON" * (route == "text-query")
        case.run(f"filters: {name} attribute filters ({ROUTES[route]}) vs pygeofilter native ({partial} of {len(trees)} match some, not all{read})",
                 trees, [route] * len(trees))

    three_valued_checks(case)
    nearest_checks(items, tag)

    for route, name in (("json-body", "CQL2-JSON"), ("text-query", "CQL2-Text")):
        trees = []
        while len(trees) < (N // 2 + N % 2 if route == "json-body" else N // 2):
            tree = spatial_tree(items, case.points, rng.choice([0, 0, 1, 2]))
            if has_spatial(tree):
                trees.append(tree)
        partial = sum(0 < len(case.expected(("and", [case.tagged, tree]))) < len(items) for tree in trees)
        case.run(f"filters: {name} spatial filters ({ROUTES[route]}) vs shapely ({partial} of {len(trees)} match some, not all)",
                 trees, [route] * len(trees))

    # The same filters by every route: CQL2-JSON or CQL2-Text, in the body or the query.
    trees = [attribute_tree(items, 2) for _ in range(10)]
    while len(trees) < 20:
        tree = spatial_tree(items, case.points, 1)
        if has_spatial(tree):
            trees.append(tree)
    case.run("filters: every route (CQL2-JSON and CQL2-Text, in the body and in the query) vs the oracles",
             [tree for tree in trees for _ in ROUTES], [route for _ in trees for route in ROUTES])


def nearest_checks(items, tag):
    """POST /v1/annotations/nearest against a brute-force scan of the tagged annotations measured with
    geographiclib's WGS84 geodesic (Karney, like PROJ's): the same distances in the same order, ids
    equal wherever a distance is not tied; three cases in four with an attribute filter, half of those
    with a maxDistance.
    Origins lie anywhere, near the antimeridian, near the poles and in the hotspots."""
    geod = Geodesic.WGS84
    pairs, differing = [], []
    for i in range(N):
        lon, lat = filter_point()
        k = rng.randint(1, 20)
        minimum = rng.choice([None, 1, 2.5, 4])
        max_distance = rng.choice([None, rng.uniform(1e3, 3e6)]) if minimum is not None else None
        expected = []
        for item in items:
            rating = item["properties"].get("rating")
            if minimum is not None and (rating is None or rating < minimum):
                continue
            metres = geod.Inverse(lat, lon, item["lat"], item["lon"])["s12"]
            if max_distance is None or metres <= max_distance:
                expected.append((metres, item["id"]))
        expected = sorted(expected)[:k]
        text = f"clusteringIdentifier = '{tag}'" + (f" AND rating >= {minimum}" if minimum is not None else "")
        body = {"point": {"latitude": lat, "longitude": lon}, "limit": k, "filter": text}
        if max_distance is not None:
            body["maxDistance"] = max_distance
        status, found = answer("POST", "/v1/annotations/nearest", body)
        got = [(r["distance"], r["annotation"]["id"]) for r in found["results"]] if status == 200 else []
        pairs.append((f"{i}.count", len(got), len(expected)))
        for j, ((d, id_), (e, eid)) in enumerate(zip(got, expected)):
            pairs.append((f"{i}.{j}.distance", d, e))
            tied = any(abs(e - other) <= 1e-6 for n, (other, _) in enumerate(expected) if n != j)
            if id_ != eid and not tied:
                differing.append(f"case {i} ({lat:.5f}, {lon:.5f}) rank {j}: got {id_}, expected {eid}")
    check(f"nearest vs geographiclib over a brute-force scan ({len(items)} annotations, {N} origins; filters, maxDistance)",
          pairs + [(line, 1, 0) for line in differing], 1e-6)


def three_valued_checks(case):
    """A missing property (null) on the annotations without `rating`: SQL's three-valued logic written
    out (a comparison with null is unknown; not unknown is unknown; unknown and false is false; unknown
    or true is true; only true matches)."""
    nulls = [item for item in case.items if "rating" not in item["properties"]]
    kind = max(FILTER_KINDS, key=lambda k: sum(item["kind"] == k for item in nulls))
    unknowns = [("cmp", ">=", ("prop", "rating"), ("lit", 0)), ("cmp", "<>", ("prop", "rating"), ("lit", -1)),
                ("cmp", "=", ("prop", "nickname"), ("lit", "x")), ("in", "rating", [1, 2], False), ("in", "rating", [1, 2], True),
                ("between", "rating", 0, 5, False), ("between", "rating", 0, 5, True), ("like", "nickname", "%", False),
                ("like", "nickname", "%", True), ("cmp", "<", ("prop", "address.zip"), ("lit", "z")),
                ("cmp", "<", ("prop", "displayPriority"), ("prop", "rating"))]
    same, other = ("cmp", "=", ("prop", "kind"), ("lit", kind)), ("cmp", "<>", ("prop", "kind"), ("lit", kind))
    cases = [("isnull", "rating", False), ("isnull", "rating", True), ("not", ("isnull", "rating", False))]
    expectations = [lambda item: True, lambda item: False, lambda item: False]
    for u in unknowns:
        cases += [u, ("not", u), ("not", ("not", u)), ("or", [u, same]), ("not", ("and", [u, same])), ("not", ("and", [u, other])),
                  ("not", ("or", [u, same])), ("or", [("not", u), same]), ("and", [u, ("isnull", "rating", False)])]
        expectations += [lambda item: False, lambda item: False, lambda item: False, lambda item: item["kind"] == kind,
                         lambda item: item["kind"] != kind, lambda item: item["kind"] == kind, lambda item: False,
                         lambda item: item["kind"] == kind, lambda item: False]
    only = ("in", "externalId", [item["externalId"] for item in nulls], False)
    pairs = []
    for i, (tree, expect) in enumerate(zip(cases, expectations)):
        route = ["json-body", "text-query"][i % 2]
        expected = {item["externalId"] for item in nulls if expect(item)}
        full = ("and", [case.tagged, only, tree])
        text = cql2_text(full)[0]
        count, why = difference(matched(cql2_json(full) if route == "json-body" else text, route, 1000), expected)
        pairs.append((f"{route}: {text} — {why}", count, 0))
    check(f"filters: SQL three-valued logic on null properties, written out ({len(nulls)} annotations without rating)", pairs, 0)


if __name__ == "__main__":
    sys.exit(main())
