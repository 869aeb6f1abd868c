"""CQL2 beyond Basic CQL2 — CASEI, ACCENTI, arithmetic, DATE/TIMESTAMP/INTERVAL and the T_* functions,
A_* on arrays, all eight S_* on literal geometries, property-to-property comparisons — on random
annotations, sent by CQL2-Text (query) and CQL2-JSON (body) and judged by the `cql2` package
(cql2-rs 0.6, `Expr.matches`), an evaluator written apart from Meridian's.

cql2-rs answers only where every property it reads has a value: an item whose verdict it cannot
reduce (a null, a missing `t`) is left out of that filter's judgement, and the check says how many
verdicts it gave. Two forms it reads otherwise than CQL2 1.0 are not drawn: a chain of `^` (it
associates to the left) and a BBOX across the antimeridian (it reads west > east as empty; the
filters check covers those boxes with shapely). And no two words differ only by ß and ss: cql2-rs
lowercases where CQL2 folds case (CASEI('Straße') = CASEI('STRASSE') holds; the Swift tests cover it).
"""
import json

import cql2

from .common import N, check, rng
from .filters import import_items, matched

WORDS = ["Chișinău", "Chicago", "Chengdu", "København", "Köln", "Koln", "ZÜRICH", "zürich", "São Paulo", "Sao Paulo",
         "Ålesund", "ÅLESUND", "Straße", "STRAẞE", "Île-de-France", "ile-de-france", "Crème", "creme", "Œuvre", "東京"]
TAGS = ["a", "b", "c", "d", "e"]
# (longitude, latitude, spread): Paris, and both sides of the antimeridian near Fiji.
PLACES = [(2.35, 48.85, 0.5), (179.5, -17.5, 0.5), (-179.5, -17.5, 0.5)]


def functions_data(tag, n):
    """n items (dicts: lon, lat, title, properties) with values of every kind the functions read; a few lack some."""
    items = []
    for i in range(n):
        lon, lat, spread = rng.choice(PLACES)
        lon = max(-180.0, min(180.0, round(lon + rng.uniform(-spread, spread), 4)))
        day = rng.randint(1, 28)
        month = rng.randint(1, 12)
        properties = {"name": rng.choice(WORDS), "n": rng.randint(-20, 20), "x": round(rng.uniform(-10, 10), 2),
                      "t": f"2025-{month:02d}-{day:02d}T{rng.randint(0, 23):02d}:{rng.choice([0, 30]):02d}:00Z",
                      "d": f"2025-{month:02d}-{day:02d}", "tags": sorted(rng.sample(TAGS, rng.randint(1, 3)))}
        if i % 17 == 16:
            del properties[rng.choice(["n", "t", "name"])]
        items.append({"externalId": f"xc-fn-{tag}-{i:03d}", "title": rng.choice(WORDS), "lon": lon, "lat": lat,
                      "clusteringIdentifier": tag, "properties": properties})
    return items


def string_leaf(items):
    word = rng.choice(WORDS + [rng.choice(items)["properties"].get("name", "Köln")])
    subject = rng.choice(["name", "title"])
    pattern = word[:rng.randint(1, 4)].replace("%", "") + "%"
    return rng.choice([
        f"CASEI({subject}) = CASEI('{word}')",
        f"ACCENTI({subject}) = ACCENTI('{word}')",
        f"ACCENTI(CASEI({subject})) = ACCENTI(CASEI('{word}'))",
        f"CASEI({subject}) LIKE CASEI('{pattern}')",
        f"ACCENTI({subject}) LIKE ACCENTI('{pattern}')",
        f"CASEI({subject}) <> CASEI('{word}')",
        f"{subject} < '{word}'",
        f"CASEI(name) = CASEI(title)",
    ])


def arithmetic_leaf():
    a, b, c = rng.randint(1, 9), rng.randint(-9, 9), rng.randint(-30, 30)
    op = rng.choice(["=", "<>", "<", "<=", ">", ">="])
    return rng.choice([
        f"n * {a} + {b} {op} {c}",
        f"n div {a} {op} {b}",
        f"n % {a} {op} {abs(b) % a}",
        f"x - n {op} {b}.5",
        f"{a} ^ 2 {op} n + {c}",
        f"(n + {b}) * {a} {op} x * {a}",
        f"n-{a} {op} {b}",  # a binary minus without spaces is arithmetic
        f"-n {op} {b}",
        f"n {op} x",
        f"n / {a} {op} {b}",
    ])


def instant(date_only=False):
    month, day = rng.randint(1, 12), rng.randint(1, 28)
    if date_only:
        return f"2025-{month:02d}-{day:02d}"
    return f"2025-{month:02d}-{day:02d}T{rng.randint(0, 23):02d}:{rng.choice([0, 30]):02d}:00Z"


def temporal_leaf():
    functions = ["T_AFTER", "T_BEFORE", "T_DISJOINT", "T_EQUALS", "T_INTERSECTS"]
    interval_functions = ["T_DURING", "T_INTERSECTS", "T_DISJOINT", "T_STARTS", "T_FINISHES", "T_OVERLAPS", "T_OVERLAPPEDBY",
                          "T_MEETS", "T_METBY", "T_CONTAINS", "T_STARTEDBY", "T_FINISHEDBY", "T_EQUALS", "T_BEFORE", "T_AFTER"]
    a, b = sorted([instant(), instant()])
    start = rng.choice([a, "..", a])
    end = rng.choice([b, "..", b])
    return rng.choice([
        f"{rng.choice(functions)}(t, TIMESTAMP('{instant()}'))",
        f"{rng.choice(['T_DURING', 'T_INTERSECTS', 'T_DISJOINT', 'T_BEFORE', 'T_AFTER'])}(t, INTERVAL('{start}', '{end}'))",
        f"{rng.choice(interval_functions)}(INTERVAL(t, '{b}'), INTERVAL('{a}', '{end}'))",
        f"d {rng.choice(['=', '<', '>=', '<>'])} DATE('{instant(True)}')",
        f"t {rng.choice(['=', '<', '>=', '<>'])} TIMESTAMP('{rng.choice([instant(), a])}')",
        f"{rng.choice(functions)}(DATE('{instant(True)}'), d)",
    ])


def array_leaf():
    values = ", ".join(f"'{v}'" for v in sorted(rng.sample(TAGS, rng.randint(1, 3))))
    return f"{rng.choice(['A_CONTAINS', 'A_CONTAINEDBY', 'A_OVERLAPS', 'A_EQUALS'])}(tags, ({values}))"


def spatial_leaf(items):
    item = rng.choice(items)
    x, y = item["lon"], item["lat"]
    w, s = round(max(-180.0, x - rng.uniform(0, 0.3)), 4), round(y - rng.uniform(0, 0.3), 4)
    e, n = round(min(180.0, x + rng.uniform(0, 0.3)), 4), round(y + rng.uniform(0, 0.3), 4)
    geometries = [
        f"POINT({x} {y})",
        f"BBOX({w}, {s}, {e}, {n})",
        f"POLYGON(({w} {s}, {e} {s}, {e} {n}, {w} {n}, {w} {s}))",
        f"POLYGON(({x} {y}, {e} {s}, {e} {n}, {x} {y}))",  # the item on a corner
        f"LINESTRING({w} {s}, {x} {y}, {e} {n})",  # through the item
        f"LINESTRING({w} {s}, {e} {n})",
        f"MULTIPOINT(({x} {y}), ({e} {n}))",
    ]
    op = rng.choice(["S_INTERSECTS", "S_DISJOINT", "S_WITHIN", "S_CONTAINS", "S_EQUALS", "S_TOUCHES", "S_CROSSES", "S_OVERLAPS"])
    geometry = rng.choice(geometries)
    return f"{op}(geometry, {geometry})" if rng.random() < 0.8 else f"{op}({geometry}, geometry)"


def leaf(items):
    return rng.choice([string_leaf, lambda _: arithmetic_leaf(), lambda _: temporal_leaf(), lambda _: array_leaf(), spatial_leaf])(items)


def expression(items, depth):
    if depth == 0 or rng.random() < 0.4:
        return leaf(items)
    r = rng.random()
    if r < 0.2:
        return f"NOT ({expression(items, depth - 1)})"
    joiner = " AND " if r < 0.6 else " OR "
    return "(" + joiner.join(expression(items, depth - 1) for _ in range(rng.randint(2, 3))) + ")"


def feature(item):
    """The item as cql2-rs reads it: the annotation's fields and its free properties side by side."""
    return {"type": "Feature", "geometry": {"type": "Point", "coordinates": [item["lon"], item["lat"]]},
            "properties": {**item["properties"], "title": item["title"], "clusteringIdentifier": item["clusteringIdentifier"]}}


def cql2_verdicts(text, items):
    """Per item True/False as cql2-rs evaluates the filter, or None where it cannot reduce it."""
    parsed = cql2.parse_text(text)
    verdicts = []
    for item in items:
        try:
            verdicts.append(bool(parsed.matches(feature(item))))
        except Exception:  # noqa: BLE001 (cql2-rs raises where a value is null or missing)
            verdicts.append(None)
    return verdicts


def found(text, tag, encoding):
    """The externalIds the server pages out for the tag and a filter (CQL2-Text in the query, or as CQL2-JSON in the
    search body), or an error message."""
    tagged = f"clusteringIdentifier = '{tag}' AND ({text})"
    if encoding == "text":
        return matched(tagged, "text-query", 1000)
    return matched(cql2.parse_text(tagged).to_json(), "json-body", 1000)


def cql2_function_checks():
    """Random filters over the functions and literals of CQL2 1.0 beyond Basic CQL2, by both encodings, against cql2-rs."""
    tag = f"xc-fn-{rng.randrange(1 << 30)}"
    items = functions_data(tag, 240)
    if import_items(items, "CQL2 functions") is None:
        return
    pairs, judged, verdicts = [], 0, 0
    for index in range(N):
        text = expression(items, rng.choice([0, 1, 1, 2]))
        expected = cql2_verdicts(text, items)
        encoding = "text" if index % 2 else "json"
        got = found(text, tag, encoding)
        judged += 1
        verdicts += sum(v is not None for v in expected)
        if isinstance(got, str):
            pairs.append((f"{encoding}: {text} — {got}", 1, 0))
            continue
        got = set(got)
        wrong = [i["externalId"] for i, v in zip(items, expected) if v is not None and v != (i["externalId"] in got)]
        pairs.append((f"{encoding}: {text} — {len(wrong)} items differ, e.g. "
                      + "; ".join(f"{w}: {json.dumps(feature(next(i for i in items if i['externalId'] == w)), ensure_ascii=False)}" for w in wrong[:2]),
                      len(wrong), 0))
    check(f"CQL2 functions: {judged} random filters (CASEI, ACCENTI, arithmetic, T_*, A_*, S_*) by CQL2-Text and CQL2-JSON vs cql2-rs "
          f"({verdicts} verdicts of {judged * len(items)})", pairs, 0)
