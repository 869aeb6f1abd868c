"""Conversions against independent oracles: coordinates ↔ map points and CRS transforms against
pyproj (PROJ), geodesics, metres per map point and regions against geographiclib (Karney), and
screen points against DESIGN.md's viewport formula written out here.
"""
import math

from geographiclib.geodesic import Geodesic
from pyproj import Transformer

from .common import A, N, W, check, coordinates, get, map_point, post, rng

from_mercator = Transformer.from_crs("EPSG:3857", "EPSG:4326", always_xy=True)


def conversion_checks():
    """Each conversion endpoint on random inputs against its oracle."""
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
