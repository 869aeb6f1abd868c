"""Regions with detect: ["cross"]: the crossings the server finds between two fixes outside,
against a dense geographiclib sampling of the geodesic between them.
"""
from geographiclib.geodesic import Geodesic

from .common import N, check, coordinates, post, rng
from .tracking import fix


def crossing_checks():
    """Regions with detect: ["cross"] against a dense sampling of the geodesic between two fixes
    outside (geographiclib, every 2 m): enter + exit exactly when the path comes hysteresis (+ the
    fixes' zero accuracy) inside, the interpolated entry and exit where the sampling first and last
    is inside. Cases within 1.5 m of the threshold are too close to call at that step and skipped."""
    run = rng.randrange(1 << 30)
    geod, step = Geodesic.WGS84, 2.0
    pairs, skipped, checked = [], 0, 0
    for i in range(2 * N):
        if checked == N:
            break
        center = coordinates(1, 70)[0]
        radius, hysteresis = rng.uniform(30, 600), rng.uniform(0, 60)
        heading, offset = rng.uniform(0, 360), rng.uniform(-1.2, 1.2) * radius
        abeam = geod.Direct(center["latitude"], center["longitude"], heading + 90, offset)
        reach = radius + rng.uniform(20, 1_500)
        a = geod.Direct(abeam["lat2"], abeam["lon2"], heading, -reach)
        b = geod.Direct(abeam["lat2"], abeam["lon2"], heading, reach)
        line = geod.InverseLine(a["lat2"], a["lon2"], b["lat2"], b["lon2"])
        samples = []
        for k in range(int(line.s13 // step) + 2):
            s = min(k * step, line.s13)
            p = line.Position(s)
            samples.append((s, geod.Inverse(center["latitude"], center["longitude"], p["lat2"], p["lon2"])["s12"] - radius, p))
        deepest = min(d for _, d, _ in samples)
        if abs(deepest + hysteresis) < 1.5 or samples[0][1] < 1.5 or samples[-1][1] < 1.5:
            skipped += 1
            continue
        checked += 1
        device = f"crosser-{run}-{i}"
        post("/v1/subscriptions", {"type": "region", "deviceIds": [device], "maxLocationAge": None, "hysteresis": hysteresis,
                                   "detect": ["cross"], "region": {"circle": {"center": center, "radius": radius}}})
        post(f"/v1/devices/{device}/locations", {"locations": [fix(a["lat2"], a["lon2"], 0)]})
        events = post(f"/v1/devices/{device}/locations", {"locations": [fix(b["lat2"], b["lon2"], 300)]})["events"]
        passes = deepest <= -hysteresis
        pairs.append((f"case {i} r={radius:.0f} deepest={deepest:.1f} h={hysteresis:.1f}", len(events), 2 if passes else 0))
        if passes and len(events) == 2:
            inside = [p for _, d, p in samples if d <= 0]
            for event, expected in zip(events, (inside[0], inside[-1])):
                got = event["location"]["coordinate"]
                metres = geod.Inverse(got["latitude"], got["longitude"], expected["lat2"], expected["lon2"])["s12"]
                pairs.append((f"case {i} {event['type']} place: {metres:.2f} m from the sampling's, more than its step by", max(0.0, metres - step), 0.0))
    check(f"crossings between fixes (detect: cross) vs a 2 m geographiclib sampling ({checked} cases, {skipped} more too close to call)", pairs, 0)
