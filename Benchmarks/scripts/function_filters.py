"""CQL2's functions at scale, for bench-queries: each of CASEI, ACCENTI and a T_* function beside the
same filter written as a plain comparison, over every annotation (no spatial bound, few matches, so
each search reads all of them), alternating on one connection in the same run.

The data gets a `title` (a place name of NAMES and a number 0–999, ~1 in 20 000 points each) and a
free `properties.seen` (an RFC 3339 instant in 2025, to the second) from its own generator, so the
other sections' data and queries stay as they were for a seed. Each pair must find the same points;
the target (issue 35) is the function's p50 within 2× of the plain one's.
"""
import json
import time

import numpy as np

# No two names fold to one another, so CASEI and ACCENTI find exactly what `=` finds.
NAMES = ["Köln", "Zürich", "São Paulo", "Ålesund", "Chișinău", "Kraków", "Łódź", "Malmö", "Reykjavík", "Besançon",
         "Straße", "Île-Rousse", "Crème", "Évora", "Århus", "Düsseldorf", "Nîmes", "Curaçao", "Øvre", "Göteborg"]
NUMBERS = 1000
YEAR_START = 1735689600  # 2025-01-01T00:00:00Z
YEAR_SECONDS = 365 * 86400

PAIRS = [
    ("CASEI", "title = 'Zürich 7'", "CASEI(title) = CASEI('ZÜRICH 7')"),
    ("ACCENTI", "title = 'Chișinău 7'", "ACCENTI(title) = ACCENTI('Chisinau 7')"),
    ("CASEI+ACCENTI", "title = 'Île-Rousse 7'", "ACCENTI(CASEI(title)) = ACCENTI(CASEI('ILE-ROUSSE 7'))"),
    ("T_AFTER", "seen > '2025-12-31T23:50:00Z'", "T_AFTER(seen, TIMESTAMP('2025-12-31T23:50:00Z'))"),
    # An instant is during an interval strictly inside it (CQL2 1.0, T_DURING); T_INTERSECTS takes the ends.
    ("T_DURING", "seen > '2025-06-01T00:00:00Z' AND seen < '2025-06-01T00:10:00Z'",
     "T_DURING(seen, INTERVAL('2025-06-01T00:00:00Z', '2025-06-01T00:10:00Z'))"),
    ("T_INTERSECTS", "seen >= '2025-03-01T00:00:00Z' AND seen <= '2025-03-01T00:10:00Z'",
     "T_INTERSECTS(seen, INTERVAL('2025-03-01T00:00:00Z', '2025-03-01T00:10:00Z'))"),
]


def extra_columns(seed, total):
    """(title, seen) per point, from a generator of their own."""
    rng = np.random.default_rng(seed + 1_000_003)
    names, numbers = rng.integers(0, len(NAMES), total), rng.integers(0, NUMBERS, total)
    seen = YEAR_START + rng.integers(0, YEAR_SECONDS, total)
    titles = [f"{NAMES[a]} {b}" for a, b in zip(names.tolist(), numbers.tolist())]
    stamps = np.datetime_as_string(seen.astype("datetime64[s]"), unit="s")
    return titles, [f"{s}Z" for s in stamps.tolist()]


def feature_extras(title, seen):
    """What write_geojson adds to a feature's properties: the title field and the free `seen` (JSON text)."""
    return f'"title":{json.dumps(title, ensure_ascii=False)}', f'"seen":"{seen}"'


def search_all(client, text, problems, label):
    """(seconds, the sorted ids of every page) of one search, following cursors."""
    began, found, cursor = time.perf_counter(), [], None
    for _ in range(100):
        body = {"filter": text, "limit": 100, **({"cursor": cursor} if cursor else {})}
        try:
            status, payload = client.request("POST", "/v1/annotations/search", body)
        except Exception as error:  # transport error or timeout: note it and go on
            problems.append(f"{label}: {error!r}")
            return None, None
        if status != 200:
            problems.append(f"{label}: {status} {payload[:200]!r}")
            return None, None
        page = json.loads(payload)
        found += [a["id"] for a in page["annotations"]]
        cursor = page.get("nextCursor")
        if not cursor:
            return time.perf_counter() - began, sorted(found)
    problems.append(f"{label}: more than 100 pages")
    return None, None


def function_filters(client, problems, rounds):
    """Per pair: (name, plain p50 s, function p50 s, matches, same answers?) over `rounds` alternating searches after one warm-up each."""
    results = []
    for name, plain, function in PAIRS:
        search_all(client, plain, problems, f"{name} plain warm-up")
        search_all(client, function, problems, f"{name} warm-up")
        plain_times, function_times, same, matches = [], [], True, None
        for _ in range(rounds):
            took, plain_ids = search_all(client, plain, problems, f"{name} plain")
            plain_times += [took] if took is not None else []
            took, function_ids = search_all(client, function, problems, name)
            function_times += [took] if took is not None else []
            same = same and plain_ids is not None and plain_ids == function_ids
            matches = len(plain_ids) if plain_ids is not None else matches
        if not same:
            problems.append(f"{name}: {function} did not find what {plain} finds")
        if plain_times and function_times:
            results.append((name, plain, function, float(np.median(plain_times)), float(np.median(function_times)), matches, same))
    return results


def report(results):
    """The section's lines: each pair's p50s and their ratio against the 2× target."""
    lines = [f"{'CQL2 function over every annotation':<44} {'plain p50':>10} {'function p50':>13} {'ratio':>6}  matches  target ≤ 2×"]
    for name, plain, function, plain_p50, function_p50, matches, same in results:
        ratio = function_p50 / plain_p50
        verdict = "ok" if ratio <= 2 else "MISSED"
        lines.append(f"  {name:<42} {plain_p50 * 1000:>8.0f} ms {function_p50 * 1000:>10.0f} ms {ratio:>5.2f}×  {matches:>7}  {verdict}"
                     + ("" if same else "  (answers differ)"))
        lines.append(f"    {function}  vs  {plain}")
    return lines
