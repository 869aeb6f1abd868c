"""Random annotations and random CQL2 filters over them, for the filter and nearest checks.

A filter is a tree of tuples, written out as CQL2-JSON and CQL2-Text by cql2_writers and evaluated
by pygeofilter's native backend (attribute filters) or shapely (spatial predicates) in filters:
  ("cmp", op, lhs, rhs), lhs and rhs ("prop", name) or ("lit", value)
  ("like", name, pattern, negated)    ("in", name, [values], negated)
  ("between", name, low, high, negated)    ("isnull", name, negated)
  ("and", [trees])    ("or", [trees])    ("not", tree)
  ("guarded", tree): `rating IS NOT NULL AND tree`, see attribute_leaf
  ("spatial", op, geometry, point_first), geometry a dict (see random_geometry)
"""
import json
import math

from shapely.geometry import MultiPoint, MultiPolygon, Point, Polygon, box

from .common import rng

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
    """A property's value on an item, a dotted name reading into objects; None where missing."""
    value = record(item)
    for part in name.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    return value


def string_literal(items, name):
    """A string for a property: a value an item holds, a prefix of one, one with a character added, or a word."""
    value = value_of(rng.choice(items), name)
    r = rng.random()
    if r < 0.5:
        return value
    if r < 0.75:
        return value[:rng.randint(0, len(value))]
    return value + rng.choice(["a", " ", "Z", "é", "~"]) if r < 0.9 else rng.choice(FILTER_WORDS)


def number_literal(items, name):
    """A number for a property: a value a rated item holds, or a random one around the property's range."""
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
    """An and/or/not tree of attribute leaves, at most `depth` levels deep."""
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
    """An and/or/not tree of spatial leaves (and a few attribute ones), at most `depth` levels deep."""
    if depth == 0 or rng.random() < 0.5:
        return spatial_leaf(items, points) if rng.random() < 0.8 else attribute_leaf(items)
    r = rng.random()
    if r < 0.8:
        return ("and" if r < 0.4 else "or", [spatial_tree(items, points, depth - 1) for _ in range(2)])
    return ("not", spatial_tree(items, points, depth - 1))


def has_spatial(tree):
    """Whether the tree has a spatial predicate anywhere."""
    return tree[0] == "spatial" or (tree[0] in ("and", "or") and any(map(has_spatial, tree[1]))) or (tree[0] == "not" and has_spatial(tree[1]))


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
