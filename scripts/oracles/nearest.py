"""POST /v1/annotations/nearest against a brute-force scan measured with geographiclib, over the
filter checks' annotations.
"""
from geographiclib.geodesic import Geodesic

from .common import N, answer, check, rng
from .filter_trees import filter_point


def nearest_checks(items, tag):
    """POST /v1/annotations/nearest against a brute-force scan of the tagged annotations measured with
    geographiclib's WGS84 geodesic (Karney, like PROJ's): the same distances in the same order, ids
    equal wherever a distance is not tied; three cases in four with an attribute filter, half of those
    with a maxDistance.
    Origins lie anywhere, near the antimeridian, near the poles and in the hotspots."""
    geod = Geodesic.WGS84
    pairs, differing = [], []
    for i in range(N):
        lon, lat = filter_point()
        k = rng.randint(1, 20)
        minimum = rng.choice([None, 1, 2.5, 4])
        max_distance = rng.choice([None, rng.uniform(1e3, 3e6)]) if minimum is not None else None
        expected = []
        for item in items:
            rating = item["properties"].get("rating")
            if minimum is not None and (rating is None or rating < minimum):
                continue
            metres = geod.Inverse(lat, lon, item["lat"], item["lon"])["s12"]
            if max_distance is None or metres <= max_distance:
                expected.append((metres, item["id"]))
        expected = sorted(expected)[:k]
        text = f"clusteringIdentifier = '{tag}'" + (f" AND rating >= {minimum}" if minimum is not None else "")
        body = {"point": {"latitude": lat, "longitude": lon}, "limit": k, "filter": text}
        if max_distance is not None:
            body["maxDistance"] = max_distance
        status, found = answer("POST", "/v1/annotations/nearest", body)
        got = [(r["distance"], r["annotation"]["id"]) for r in found["results"]] if status == 200 else []
        pairs.append((f"{i}.count", len(got), len(expected)))
        for j, ((d, id_), (e, eid)) in enumerate(zip(got, expected)):
            pairs.append((f"{i}.{j}.distance", d, e))
            tied = any(abs(e - other) <= 1e-6 for n, (other, _) in enumerate(expected) if n != j)
            if id_ != eid and not tied:
                differing.append(f"case {i} ({lat:.5f}, {lon:.5f}) rank {j}: got {id_}, expected {eid}")
    check(f"nearest vs geographiclib over a brute-force scan ({len(items)} annotations, {N} origins; filters, maxDistance)",
          pairs + [(line, 1, 0) for line in differing], 1e-6)
