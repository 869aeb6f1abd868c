"""XYZ tiles against mercantile (the tile of a coordinate, its bounds and quadkey, covers), and
cluster vector tiles, decoded with mapbox-vector-tile (PyPI), against the thin endpoint's JSON.

The cluster tiles' data is its own kind (`mvt`), and every request filters on it, so other
checks' data stays out.
"""
import json
import math
import urllib.parse

import mapbox_vector_tile
import mercantile

from .common import N, URL, W, check, coordinates, get, map_point, post, request, rng

EXTENT = 4096
KIND = "mvt"
QUERY = "kinds=" + KIND


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


def fnv_feature_id(text):
    """FNV-1a, 64 bits, shifted right by 11 (the contract's feature id), written out here."""
    h = 14695981039346656037
    for byte in text.encode():
        h = ((h ^ byte) * 1099511628211) % 2 ** 64
    return h >> 11


def cluster_tile(z, x, y, headers=None):
    """(decoded layers, answer headers) of a cluster tile of the `mvt` kind; an empty tile has no layers."""
    status, answer_headers, data = request(f"/v1/tiles/clusters/{z}/{x}/{y}.mvt?{QUERY}", headers=headers)
    assert status == 200, f"tile {z}/{x}/{y}: HTTP {status} {data[:200]!r}"
    layers = mapbox_vector_tile.decode(data, default_options={"y_coord_down": True}) if data else {}
    return layers, answer_headers


def tile_features(z, x, y):
    """Every feature of the tile, with its layer's name as `layer`."""
    layers, _ = cluster_tile(z, x, y)
    return [dict(feature, layer=name) for name, layer in layers.items() for feature in layer["features"]]


def thin_inside(z, x, y):
    """The thin answer for a 256 × 256 view of exactly the tile, kept to the items whose map
    point (from their coordinate, through pyproj) lies in the tile: {id: (count, tile x, tile y)}."""
    side = W / 2 ** z
    body = {"viewport": {"size": {"width": 256, "height": 256},
                         "visibleMapRect": {"origin": {"x": x * side, "y": y * side}, "size": {"width": side, "height": side}}},
            "kinds": [KIND], "limit": 10000}
    status, _, data = request("/v1/annotations/thin", "POST", body)
    assert status == 200, data
    answer = json.loads(data)
    assert answer["zoomLevel"] == z and not answer["truncated"], (answer["zoomLevel"], answer["truncated"])
    inside = {}
    for item in answer["items"]:
        if item["type"] == "cluster":
            key, count, coordinate = item["id"], item["count"], item["coordinate"]
        else:
            key, count, coordinate = item["annotation"]["id"], 1, item["annotation"]["coordinate"]
        mx, my = map_point(coordinate)
        mx %= W
        if math.floor(mx / side) == x and min(math.floor(my / side), 2 ** z - 1) == y:
            inside[key] = (count, (mx - x * side) / side * EXTENT, (my - y * side) / side * EXTENT)
    return inside


def cluster_data(n):
    """Blobs (one across the antimeridian), stacks of coincident points, and a uniform sprinkle."""
    centers = [(48.85, 2.35), (40.7, -74.0), (-33.9, 151.2), (64.1, -21.9), (-17.7, 179.9), (1.3, 103.8)]
    features = []
    for i in range(n):
        if i % 10 < 6:
            lat0, lon0 = centers[i % len(centers)]
            lat, lon = lat0 + rng.gauss(0, 2), lon0 + rng.gauss(0, 2)
        elif i % 10 == 6:
            lat, lon = 10.0 + (i // 100), 20.0 + (i // 100)  # stacks of ~10 coincident points
        else:
            lat, lon = rng.uniform(-80, 80), rng.uniform(-180, 180)
        lon = (lon + 180) % 360 - 180
        lat = max(-85, min(85, lat))
        properties = {"kind": KIND, "title": f"p{i}"}
        if i % 7 == 0:
            properties["clusteringIdentifier"] = "a"
        features.append({"type": "Feature", "geometry": {"type": "Point", "coordinates": [lon, lat]}, "properties": properties})
    status, _, data = request("/v1/annotations/import", "POST", {"type": "FeatureCollection", "features": features})
    assert status == 200, data[:300]
    return n


def cluster_leaves(cluster_id):
    """The ids of a cluster's annotations (every page of its leaves)."""
    ids, cursor = set(), None
    while True:
        query = urllib.parse.urlencode({"limit": 1000, **({"cursor": cursor} if cursor else {})})
        status, _, data = request(f"/v1/clusters/{cluster_id}/leaves?{query}")
        assert status == 200, data
        page = json.loads(data)
        ids |= {a["id"] for a in page["annotations"]}
        cursor = page.get("nextCursor")
        if not cursor:
            return ids


def cluster_tile_checks(n=4000):
    """Imports n annotations of the `mvt` kind, then checks its cluster tiles: counts at zooms 0–3,
    against the thin answer, a cluster against its child tiles, and revalidation."""
    total = cluster_data(n)
    # The root tile counts every annotation once.
    root = tile_features(0, 0, 0)
    check("cluster tile 0/0/0: the counts sum to every annotation", [("sum", sum(f["properties"]["count"] for f in root), total)], 0)
    # Each zoom's tiles together count every annotation once (zooms 1–3, every tile).
    pairs = []
    for z in range(1, 4):
        counted = sum(f["properties"]["count"] for x in range(2 ** z) for y in range(2 ** z) for f in tile_features(z, x, y))
        pairs.append((f"zoom {z}", counted, total))
    check("cluster tiles of zooms 1–3: every annotation in exactly one tile", pairs, 0)
    # Tiles against the thin answer for the same rect: ids, counts, feature ids, positions.
    ids, counts, positions = [], [], []
    for _ in range(40):
        z = rng.randint(1, 12)
        lat, lon = rng.choice([(48.85, 2.35), (-17.7, 179.9), (40.7, -74.0), (10.0, 20.0)])
        side = W / 2 ** z
        mx, my = map_point({"latitude": lat + rng.gauss(0, 1), "longitude": (lon + rng.gauss(0, 1) + 180) % 360 - 180})
        x, y = int(mx // side) % 2 ** z, min(int(my // side), 2 ** z - 1)
        expected = thin_inside(z, x, y)
        got = {f["properties"]["id"]: f for f in tile_features(z, x, y)}
        ids.append((f"{z}/{x}/{y} ids", len(set(got) ^ set(expected)), 0))
        for key in set(got) & set(expected):
            feature, (count, ex, ey) = got[key], expected[key]
            counts.append((f"{z}/{x}/{y} {key} count", feature["properties"]["count"], count))
            ids.append((f"{z}/{x}/{y} {key} feature id", feature["id"], fnv_feature_id(key)))
            px, py = feature["geometry"]["coordinates"]
            positions += [(f"{z}/{x}/{y} {key} x", px, round(ex)), (f"{z}/{x}/{y} {key} y", py, round(ey))]
    check("cluster tiles vs the thin answer for the same rect: which items, feature ids (FNV-1a)", ids, 0)
    check("cluster tiles vs the thin answer: counts", counts, 0)
    # Rounded to the nearest unit from pyproj's map point: off by one only at a half.
    check("cluster tiles vs the thin answer: positions in tile coordinates (y down)", positions, 1)
    children_check()
    revalidation_check()
    tilejson_check()


def tilejson_check():
    """The TileJSON describes what the tiles hold, as a TileJSON reader (MapLibre, GDAL) needs it:
    an absolute tile URL that fetches the same bytes, and every property of every decoded feature
    (zooms 0–3) listed with its type in its layer's `fields`."""
    info = get("/tiles/clusters.json")
    template = info["tiles"][0]
    pairs = [("tilejson", 0 if info["tilejson"] == "3.0.0" else 1, 0),
             ("tiles is absolute, on this server", 0 if template == URL + "/v1/tiles/clusters/{z}/{x}/{y}.mvt" else 1, 0),
             ("minzoom", info["minzoom"], 0), ("maxzoom", info["maxzoom"], 22)]
    fields = {layer["id"]: layer["fields"] for layer in info["vector_layers"]}
    kinds = {"String": str, "Number": (int, float), "Boolean": bool}
    for z in range(4):
        for x in range(2 ** z):
            for y in range(2 ** z):
                layers, _ = cluster_tile(z, x, y)
                for name, layer in layers.items():
                    for feature in layer["features"]:
                        for key, value in feature["properties"].items():
                            declared = fields.get(name, {}).get(key)
                            ok = declared in kinds and isinstance(value, kinds[declared]) and (declared == "Boolean") == isinstance(value, bool)
                            pairs.append((f"{z}/{x}/{y} {name}.{key} ({type(value).__name__}, declared {declared})", 0 if ok else 1, 0))
    check("cluster TileJSON: absolute tiles URL, every decoded property in vector_layers with its type", pairs, 0)


def children_check():
    """A cluster wholly inside its tile splits over the four child tiles: the children's items
    (annotations, and clusters by their leaves) are exactly its members."""
    pairs, checked = [], 0
    for z, x, y in [(3, 4, 2), (4, 8, 5), (5, 16, 11), (2, 2, 1), (6, 32, 22), (3, 7, 4)]:
        side = W / 2 ** z
        for feature in tile_features(z, x, y):
            properties = feature["properties"]
            if feature["layer"] != "clusters" or properties["count"] > 300 or checked >= 8:
                continue
            members = cluster_leaves(properties["id"])
            if not all(inside_tile(member, z, x, y, side) for member in members):
                continue
            found, counted = set(), 0
            for cx in (2 * x, 2 * x + 1):
                for cy in (2 * y, 2 * y + 1):
                    for child in tile_features(z + 1, cx, cy):
                        child_id = child["properties"]["id"]
                        child_members = cluster_leaves(child_id) if child["layer"] == "clusters" else {child_id}
                        if child_members & members:
                            found |= child_members
                            counted += child["properties"]["count"]
            pairs += [(f"{properties['id']} count", counted, properties["count"]), (f"{properties['id']} members", len(found ^ members), 0)]
            checked += 1
    pairs.append(("clusters checked (at least 3)", min(checked, 3), 3))
    check(f"a cluster inside its tile = the four child tiles' items ({checked} clusters)", pairs, 0)


def inside_tile(annotation_id, z, x, y, side):
    """Whether the annotation's map point (through pyproj) lies in tile z/x/y, `side` map points wide."""
    status, _, data = request(f"/v1/annotations/{annotation_id}")
    mx, my = map_point(json.loads(data)["coordinate"])
    return math.floor(mx % W / side) == x and math.floor(my / side) == y


def revalidation_check():
    """If-None-Match with the current ETag is 304 with no body; a write changes the ETag."""
    _, headers = cluster_tile(2, 1, 1)
    tag = headers["ETag"]
    status, _, body = request(f"/v1/tiles/clusters/2/1/1.mvt?{QUERY}", headers={"If-None-Match": tag})
    request("/v1/annotations", "POST", {"coordinate": {"latitude": 1, "longitude": 1}, "kind": KIND})
    _, after = cluster_tile(2, 1, 1)
    check("cluster tiles: 304 for the current ETag, a new ETag after a write",
          [("status", status, 304), ("body", len(body), 0), ("tag changed", int(after["ETag"] != tag), 1)], 0)
