"""Thinning's aggregates, weights, maxZoom and deltas against a brute-force reference written
here from the README's rules: every annotation placed in its grid cell (pyproj's map point, x
shifted a third of the world east), grouped per cell and clustering identifier, and each cluster's
count, aggregates, weight, weighted centroid and expansion zoom computed from its members'
values; a delta applied to the earlier answer compared with the whole answer, item for item.

Random viewports, writes (created, moved, values changed, deleted) and properties; its own
generator (seeded from the run's seed), and its own kind, which every request filters on.
"""
import math
import random

from .common import SEED, W, answer, check, map_point, request

KIND = "thin-oracle"
SHIFT = float(2 ** 28 // 3)  # the grid's x shift: ⌊2^28 / 3⌋
OPS = ["count", "max", "mean", "min", "sum"]


def value(rng):
    """A property value of every kind the rules name: none, not a number, negative, zero, whole, fractional."""
    return rng.choice([None, "text", -rng.randint(1, 50), 0, rng.randint(1, 100000), round(rng.uniform(0, 10), 6), True])


def content(rng):
    """A new annotation near one of a few centres (one across 180°), some required, two groups."""
    lat0, lon0 = rng.choice([(48.85, 2.35), (-17.7, 179.95), (40.7, -74.0), (0.05, 0.05)])
    spread = rng.choice([0.001, 0.05, 1.5])
    lon = (lon0 + rng.uniform(-spread, spread) + 180) % 360 - 180
    properties = {}
    for name in ("pop", "score"):
        v = value(rng)
        if v is not None:
            properties[name] = v
    body = {"coordinate": {"latitude": lat0 + rng.uniform(-spread, spread), "longitude": lon}, "kind": KIND, "properties": properties,
            "displayPriority": 1000 if rng.random() < 0.03 else rng.choice([250, 500, 750])}
    if rng.random() < 0.3:
        body["clusteringIdentifier"] = "g"
    return body


def number(v):
    """The value as the rules read it: a finite number (not a boolean), else None."""
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) else None


def weight(v):
    n = number(v)
    return n if n is not None and n >= 0 else 1.0


def cell(point, level):
    """The grid cell of a map point at a level: x shifted, whole map points."""
    sx = (point[0] + SHIFT) % W
    return int(math.floor(sx)) >> level, int(math.floor(min(max(point[1], 0), W - 1))) >> level


def touches(column, row, level, rect):
    side = float(1 << level)
    min_x, min_y, max_x, max_y = rect
    top = row * side
    if not (top < min(max_y, W) and top + side > max(min_y, 0)):
        return False
    west = column * side - SHIFT
    return any(west + k * W < max_x and west + k * W + side > min_x for k in range(-2, 3))


def reference(annotations, view, options):
    """The items of the brute-force thinning: {"singles": ids, "clusters": {representative: members}}."""
    zoom = min(max(math.floor(view["zoomLevel"]), 0), 22)
    exponent = round(math.log2(options.get("cellSize", 64)))
    level = min(20 - zoom + exponent, 28)
    scale = 2 ** (20 - view["zoomLevel"])
    cx, cy = map_point(view["center"])
    w, h = view["size"]["width"] * scale, view["size"]["height"] * scale
    rect = (cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2)
    singles, cells = set(), {}
    for a in annotations.values():
        point = map_point(a["coordinate"])
        column, row = cell(point, level)
        if not touches(column, row, level, rect):
            continue
        max_zoom = options.get("maxZoom")
        if a["displayPriority"] == 1000 or (max_zoom is not None and zoom > max_zoom):
            singles.add(a["id"])
            continue
        cells.setdefault((column, row, a.get("clusteringIdentifier")), []).append(a)
    clusters = {}
    for members in cells.values():
        if len(members) == 1:
            singles.add(members[0]["id"])
            continue
        best = min(members, key=lambda a: (-a["displayPriority"], a["id"]))
        clusters[best["id"]] = (members, zoom, exponent)
    return singles, clusters


def expansion_zoom(members, zoom, exponent, max_zoom):
    found = None
    for z in range(zoom + 1, 23):
        level = min(20 - z + exponent, 28)
        if len({cell(map_point(a["coordinate"]), level) for a in members}) > 1:
            found = z
            break
    if max_zoom is not None and max_zoom < 22:
        found = min(found if found is not None else max_zoom + 1, max_zoom + 1)
    return found


def expected_aggregates(members, asked):
    result = {}
    for name, ops in asked.items():
        values = [n for n in (number(a["properties"].get(name)) for a in members) if n is not None]
        full = {"count": len(values), "sum": math.fsum(values)}
        if values:
            full.update(min=min(values), max=max(values), mean=math.fsum(values) / len(values))
        result[name] = {op: full[op] for op in ops if op in full}
    return result


def compare_answer(annotations, view, options, got, pairs):
    """Adds (label, got, expected) pairs of one answer against the reference."""
    singles, clusters = reference(annotations, view, options)
    items = got["items"]
    got_singles = {i["annotation"]["id"] for i in items if i["type"] == "annotation"}
    got_clusters = {i["representative"]: i for i in items if i["type"] == "cluster"}
    pairs["items"].append(("annotations alone", len(got_singles ^ singles), 0))
    pairs["items"].append(("clusters", len(set(got_clusters) ^ set(clusters)), 0))
    asked = options.get("aggregates", {})
    for item in items:
        if item["type"] == "annotation":
            a = annotations[item["annotation"]["id"]]
            for name, values in expected_aggregates([a], asked).items():
                pairs["exact"].append((f"{a['id']} {name} ops", len(set(item["aggregates"][name]) ^ set(values)), 0))
                for op, v in values.items():
                    pairs["exact"].append((f"{a['id']} {name}.{op}", item["aggregates"][name].get(op, math.nan), v))
            if "weight" in options:
                pairs["exact"].append((f"{a['id']} weight", item["weight"], weight(a["properties"].get(options["weight"]))))
    for representative, (members, zoom, exponent) in clusters.items():
        c = got_clusters.get(representative)
        if c is None:
            continue
        pairs["exact"].append((f"{representative} count", c["count"], len(members)))
        ez = expansion_zoom(members, zoom, exponent, options.get("maxZoom"))
        pairs["exact"].append((f"{representative} expansionZoom", c.get("expansionZoom", -1), ez if ez is not None else -1))
        for name, values in expected_aggregates(members, asked).items():
            got_values = c["aggregates"][name]
            pairs["exact"].append((f"{representative} {name} ops", len(set(got_values) ^ set(values)), 0))
            for op, v in values.items():
                kind = "exact" if op in ("count", "min", "max") else "sums"
                pairs[kind].append((f"{representative} {name}.{op}", got_values.get(op, math.nan) / max(1.0, abs(v)), v / max(1.0, abs(v))))
        points = [map_point(a["coordinate"]) for a in members]
        xs = [(p[0] + SHIFT) % W - SHIFT for p in points]
        ys = [p[1] for p in points]
        ws = [weight(a["properties"].get(options["weight"])) if "weight" in options else 1.0 for a in members]
        total = math.fsum(ws)
        if total == 0:
            ws, total = [1.0] * len(members), float(len(members))
        if "weight" in options:
            pairs["sums"].append((f"{representative} weight", c["weight"] / max(1.0, total), math.fsum(weight(a["properties"].get(options["weight"])) for a in members) / max(1.0, total)))
        ex, ey = math.fsum(w * x for w, x in zip(ws, xs)) / total, math.fsum(w * y for w, y in zip(ws, ys)) / total
        gx, gy = map_point(c["coordinate"])
        pairs["centroids"].append((f"{representative} centroid x", ((gx - ex + W / 2) % W) - W / 2, 0))
        pairs["centroids"].append((f"{representative} centroid y", gy, ey))


def thin(view, options, since=None):
    body = {"viewport": view, "kinds": [KIND], "limit": 10000, **options}
    if since:
        body["since"] = since
    status, got = answer("POST", "/v1/annotations/thin", body)
    assert status == 200, got
    return got


def random_view(rng):
    lat, lon = rng.choice([(48.85, 2.35), (-17.7, 179.95), (40.7, -74.0), (0.05, 0.05), (20.0, 100.0)])
    return {"size": {"width": rng.randint(300, 1400), "height": rng.randint(300, 1000)},
            "center": {"latitude": lat + rng.gauss(0, 0.5), "longitude": (lon + rng.gauss(0, 0.5) + 180) % 360 - 180},
            "zoomLevel": round(rng.uniform(0, 15), 3)}


def random_options(rng):
    options = {"cellSize": rng.choice([32, 64, 128]), "aggregates": {"pop": rng.sample(OPS, rng.randint(1, 5))}}
    if rng.random() < 0.5:
        options["aggregates"]["score"] = rng.sample(OPS, rng.randint(1, 5))
    if rng.random() < 0.6:
        options["weight"] = rng.choice(["pop", "score"])
    if rng.random() < 0.5:
        options["maxZoom"] = rng.randint(2, 14)
    return options


def keyed(items):
    return {(i["annotation"]["id"] if i["type"] == "annotation" else i["id"]): i for i in items}


def thinning_checks(n=600, rounds=4, views=25):
    """n annotations, then `rounds` of random writes, each round checking `views` random viewports
    (aggregates, weights, maxZoom against the reference) and their deltas across the writes."""
    rng = random.Random(SEED ^ 0x7417)
    annotations = {}
    for _ in range(n):
        status, created = answer("POST", "/v1/annotations", content(rng))
        assert status == 201, created
        annotations[created["id"]] = created
    pairs = {"items": [], "exact": [], "sums": [], "centroids": []}
    delta_pairs, carried = [], 0
    for _ in range(rounds):
        cases = [(random_view(rng), random_options(rng)) for _ in range(views)]
        earlier = [thin(view, options) for view, options in cases]
        for (view, options), got in zip(cases, earlier):
            compare_answer(annotations, view, options, got, pairs)
        # Writes: created, moved, values changed, deleted.
        for _ in range(40):
            kind = rng.randrange(4)
            if kind == 0 or not annotations:
                status, created = answer("POST", "/v1/annotations", content(rng))
                annotations[created["id"]] = created
            elif kind == 3:
                victim = rng.choice(list(annotations))
                status, _, _ = request(f"/v1/annotations/{victim}", "DELETE")
                assert status == 204
                del annotations[victim]
            else:
                target = rng.choice(list(annotations))
                patch = {"coordinate": content(rng)["coordinate"]} if kind == 1 else {"properties": content(rng)["properties"]}
                status, changed = answer("PATCH", f"/v1/annotations/{target}", patch, "application/merge-patch+json")
                assert status == 200, changed
                annotations[target] = changed
        for (view, options), before in zip(cases, earlier):
            delta = thin(view, options, since=before["deltaToken"])
            whole = thin(view, options)
            compare_answer(annotations, view, options, whole, pairs)
            applied = keyed(before["items"])
            if delta.get("reset") is not False:
                delta_pairs.append(("a held token answers a delta", 1, 0))
                continue
            carried += bool(delta["removed"] or delta["changed"] or delta["added"])
            for key in delta["removed"]:
                applied.pop(key, None)
            applied.update(keyed(delta["changed"]))
            applied.update(keyed(delta["added"]))
            expected = keyed(whole["items"])
            delta_pairs.append(("items after the delta", len(set(applied) ^ set(expected)), 0))
            delta_pairs.append(("items that differ", sum(applied[k] != expected[k] for k in set(applied) & set(expected)), 0))
    check("thinning vs the brute-force reference: which items (annotations alone, clusters by representative)", pairs["items"], 0)
    check("thinning: counts, expansion zooms (maxZoom), count/min/max, weights of annotations alone", pairs["exact"], 0)
    check("thinning: sums, means and weights of clusters (relative)", pairs["sums"], 1e-9)
    check("thinning: weighted centroids (map points, via pyproj)", pairs["centroids"], 1e-3)
    delta_pairs.append(("deltas that carry a change (at least a fifth)", min(0, carried - len(cases) * rounds // 5), 0))
    check("thinning deltas: the earlier answer with the delta applied is the whole new answer", delta_pairs, 0)
