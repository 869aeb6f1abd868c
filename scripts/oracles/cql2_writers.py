"""A filter tree (see filter_trees) written out as CQL2-JSON and as CQL2-Text, keywords in a random
case, with what pygeofilter 0.4 reads differently from CQL2 1.0 noted where it matters.
"""
from .common import rng


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
    """A CQL2-Text keyword in a random case (keywords are case-insensitive)."""
    return rng.choice([word, word.lower(), word.capitalize()])


def text_literal(value):
    """A CQL2-Text literal: TRUE or FALSE, a quoted string (' doubled), or a number."""
    if isinstance(value, bool):
        return keyword("TRUE" if value else "FALSE")
    if isinstance(value, str):
        return "'" + value.replace("'", "''") + "'"
    return repr(value)


def wkt_ring(ring):
    """A ring in WKT: (x y, x y, …)."""
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
