"""Tracking decisions on a device's fixes: circle, polygon and corridor regions entered on a first
fix, and significantChange's distanceFilter, against geographiclib distances and shapely (GEOS)
containment.
"""
import math

from geographiclib.geodesic import Geodesic
from pyproj import Transformer
from shapely.geometry import LineString, Point, Polygon

from .common import N, check, coordinates, post, rng


def fix(latitude, longitude, second):
    """A fix at a coordinate, `second` seconds after 2026-01-01T00:00:00Z, horizontal accuracy 0."""
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
