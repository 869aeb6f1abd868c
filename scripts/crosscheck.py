#!/usr/bin/env python3
"""Cross-checks a running Meridian against independent oracles: pyproj (PROJ) and
geographiclib (Karney), plus the viewport formula of DESIGN.md written out again here; and its
webhooks against the standardwebhooks package (a receiver in this script; the server must allow
127.0.0.0/8, e.g. MERIDIAN_WEBHOOK_ALLOW_CIDR=127.0.0.0/8).

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
import urllib.request

import mercantile
from geographiclib.geodesic import Geodesic
from pyproj import Transformer
from shapely.geometry import Point, Polygon
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
    webhook_checks()

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
                      (f"z{zoom}.{i}.south", t["bounds"]["south"], bounds.south)]
    check("coordinates-to-tiles vs mercantile (tile, bounds, quadkey)", pairs, 1e-9)
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


if __name__ == "__main__":
    sys.exit(main())
