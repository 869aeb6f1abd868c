"""CQL2 annotation filters (POST /v1/annotations/search, GET /v1/annotations?filter=) against
pygeofilter's native evaluator (attribute filters) and shapely (spatial predicates), by every
route, with SQL's three-valued logic on null properties written out; a failing filter is shrunk
to the smallest one the server still disagrees on.
"""
import json
import urllib.parse

from pygeofilter import ast as cql2_ast
from pygeofilter.backends.native.evaluate import NativeEvaluator
from pygeofilter.parsers.cql2_json import parse as parse_cql2_json
from pygeofilter.parsers.cql2_text import parse as parse_cql2_text
from shapely.geometry import Point

from .common import N, answer, check, rng
from .cql2_writers import cql2_json, cql2_text
from .filter_trees import FILTER_KINDS, attribute_tree, filter_data, has_spatial, record, smaller, spatial_tree
from .nearest import nearest_checks


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


class FilterCase:
    """Filters on the annotations of one tag, sent to the server and evaluated by the oracles."""

    def __init__(self, items, tag):
        self.items, self.points = items, [Point(item["lon"], item["lat"]) for item in items]
        self.tagged = ("cmp", "=", ("prop", "clusteringIdentifier"), ("lit", tag))
        self.by_id = {item["externalId"]: item for item in items}
        self.read_from_text = 0  # CQL2-Text filters pygeofilter evaluated as read from that text

    def expected(self, full, text=None):
        """The externalIds the oracles match for a whole tree (tag conjunct included); pygeofilter reads `text` when given."""
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


def import_items(items, area):
    """Imports items (dicts of feature properties plus lon, lat) as one FeatureCollection and checks it; the
    server's answer, or None when not every item was created."""
    features = [{"type": "Feature", "geometry": {"type": "Point", "coordinates": [item["lon"], item["lat"]]},
                 "properties": {k: v for k, v in item.items() if k not in ("lon", "lat")}} for item in items]
    status, imported = answer("POST", "/v1/annotations/import", {"type": "FeatureCollection", "features": features}, "application/geo+json")
    created = imported.get("created", 0) if isinstance(imported, dict) else 0
    check(f"{area}: import of {len(items)} annotations", [("status", status, 200), ("created", created, len(items))], 0)
    return imported if status == 200 and created == len(items) else None


def filter_checks():
    """CQL2 filters (POST /v1/annotations/search, GET /v1/annotations?filter=) against pygeofilter's native
    evaluator (attribute filters) and shapely (spatial ones), on annotations all tagged with one
    clusteringIdentifier, which every filter requires (other checks' annotations stay out)."""
    run = rng.randrange(1 << 30)
    tag = f"xc-filters-{run}"
    items = filter_data(tag, run, 400)
    imported = import_items(items, "filters")
    if imported is None:
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
