"""Visits, stops and trips against a reference written again here from the README's rules
("Visits, trips and stops"), with geographiclib for every distance.

A synthetic but realistic delivery-van day per case: a depot, 6–10 delivery stops of 3–40
minutes (fixes every 15–60 s, GPS noise of 5–30 m with that accuracy reported), traffic-light
halts shorter than 3 minutes, drives at 6–16 m/s with fixes every 5–20 s (most reporting
`speed`, some not), and a tunnel: 2–5 minutes without fixes while the van drives on. One day
straddles the antimeridian. Each day is posted to its own device under a visits subscription;
the subscription's events and the stops and trips (JSON, a paged walk and CSV, at the default
rule and another) must equal the reference: the same times to the microsecond, centres within
1 m, distances within 0.1 % (all far closer in practice).
"""
import csv
import io
import math
import random
from datetime import datetime, timedelta, timezone

from geographiclib.geodesic import Geodesic

from .common import SEED, check, get, post, request

G = Geodesic.WGS84
BASE = datetime(2026, 3, 2, 6, 0, tzinfo=timezone.utc)


def stamp(ms):
    """RFC 3339 of `ms` milliseconds after the day's base."""
    return (BASE + timedelta(milliseconds=ms)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def micros(text):
    """Microseconds after the base of an RFC 3339 time the server wrote."""
    delta = datetime.fromisoformat(text.replace("Z", "+00:00")) - BASE
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


# MARK: - The day


def van_day(rng, lat, lon):
    """Fixes (lat, lon, ms, accuracy, speed or None) of a van's day from a depot at (lat, lon)."""
    fixes, t = [], 0
    place = (lat, lon)

    def noisy(centre, accuracy):
        moved = G.Direct(centre[0], centre[1], rng.uniform(0, 360), abs(rng.gauss(0, accuracy / 2)))
        return moved["lat2"], moved["lon2"]

    def stay(minutes):
        nonlocal t
        end = t + int(minutes * 60_000)
        accuracy = rng.uniform(5, 30)
        while t <= end:
            la, lo = noisy(place, accuracy)
            fixes.append((la, lo, t, round(accuracy, 1), round(rng.uniform(0, 0.4), 2) if rng.random() < 0.5 else None))
            t += rng.randint(15_000, 60_000)

    def drive(metres, tunnel=False):
        nonlocal t, place
        heading, speed, done = rng.uniform(0, 360), rng.uniform(6, 16), 0.0
        tunnel_at = metres * rng.uniform(0.3, 0.6) if tunnel else None
        while done < metres:
            step_ms = rng.randint(5_000, 20_000)
            if tunnel_at is not None and done >= tunnel_at:
                step_ms, tunnel_at = rng.randint(120_000, 300_000), None  # no fix inside
            speed = min(16, max(6, speed + rng.uniform(-1.5, 1.5)))
            heading += rng.uniform(-25, 25)
            moved = G.Direct(place[0], place[1], heading, speed * step_ms / 1000)
            place, done, t = (moved["lat2"], moved["lon2"]), done + speed * step_ms / 1000, t + step_ms
            accuracy = rng.uniform(5, 30)
            la, lo = noisy(place, accuracy / 3)
            fixes.append((la, lo, t, round(accuracy, 1), round(speed, 2) if rng.random() < 0.7 else None))
            if rng.random() < 0.05:  # a traffic light: a short halt, no stay
                halt = t + rng.randint(30_000, 100_000)
                while t < halt:
                    t += rng.randint(10_000, 20_000)
                    la, lo = noisy(place, 8)
                    fixes.append((la, lo, t, 8.0, 0.0))
        t += rng.randint(5_000, 15_000)

    stay(rng.uniform(15, 40))  # loading at the depot
    deliveries = rng.randint(6, 10)
    tunnel = rng.randrange(deliveries)
    for k in range(deliveries):
        drive(rng.uniform(1_000, 6_000), tunnel=k == tunnel)
        stay(rng.uniform(3, 40))
    drive(rng.uniform(1_000, 4_000))
    stay(rng.uniform(3, 6))  # the van is still there when the day is read
    return fixes


# MARK: - The reference, from the README's words


def weight(accuracy):
    a = max(accuracy, 1.0)
    return 1 / (a * a)


def unwrap(lon, origin):
    """`lon` within 180° of `origin` (−180 excluded)."""
    d = math.fmod(lon - origin, 360)
    if d > 180:
        d -= 360
    elif d <= -180:
        d += 360
    return origin + d


def wrap(lon):
    if -180 <= lon <= 180:
        return lon
    w = math.fmod(lon + 180, 360)
    return (w + 360 if w < 0 else w) - 180


def centre(run):
    """(lat, lon, accuracy) of a run of fixes: the 1/a²-weighted mean, longitudes unwrapped around the first fix."""
    lat0, lon0 = run[0][0], run[0][1]
    total = sum(weight(f[3]) for f in run)
    lat = lat0 + sum(weight(f[3]) * (f[0] - lat0) for f in run) / total
    lon = lon0 + sum(weight(f[3]) * (unwrap(f[1], lon0) - lon0) for f in run) / total
    return lat, wrap(lon), math.sqrt(1 / total)


def fits(run, radius):
    lat, lon, _ = centre(run)
    return all(G.Inverse(lat, lon, f[0], f[1], Geodesic.DISTANCE)["s12"] <= radius for f in run)


def runs(fixes, radius):
    """The greedy runs: a fix joins when all of the run and itself lie within radius of their centre, else starts the next."""
    out = []
    for f in fixes:
        if out and fits(out[-1] + [f], radius):
            out[-1].append(f)
        else:
            out.append([f])
    return out


def reference_visits(fixes, radius, minimum_ms):
    """(type, occurredAt ms, arrival ms, departure ms or None, centre (lat, lon, accuracy)) in order."""
    events, run, arrived = [], [], False
    for f in fixes:
        if run and fits(run + [f], radius):
            run.append(f)
        else:
            if run and arrived:
                events.append(("visitDeparture", f[2], run[0][2], run[-1][2], centre(run)))
            run, arrived = [f], False
        if not arrived and run[-1][2] - run[0][2] >= minimum_ms:
            arrived = True
            events.append(("visitArrival", f[2], run[0][2], None, centre(run)))
    return events


def reference_report(fixes, radius, minimum_ms):
    """(stops, trips): stops (arrival, departure or None, (lat, lon, accuracy), fixCount); trips
    (start, end, distance, max speed, fix count, start centre, end centre)."""
    all_runs = runs(fixes, radius)
    stays = [i for i, r in enumerate(all_runs) if r[-1][2] - r[0][2] >= minimum_ms]
    stops = []
    for i in stays:
        r = all_runs[i]
        ongoing = r[-1] is fixes[-1]
        stops.append((r[0][2], None if ongoing else r[-1][2], centre(r), len(r)))
    trips = []
    for a, b in zip(stays, stays[1:]):
        ca, cb = centre(all_runs[a]), centre(all_runs[b])
        between = [f for r in all_runs[a + 1:b] for f in r]
        points = [(ca[0], ca[1], all_runs[a][-1][2], None)] + [(f[0], f[1], f[2], f[4]) for f in between]
        points.append((cb[0], cb[1], all_runs[b][0][2], all_runs[b][0][4]))
        distance, fastest = 0.0, 0.0
        for p, q in zip(points, points[1:]):
            leg = G.Inverse(p[0], p[1], q[0], q[1], Geodesic.DISTANCE)["s12"]
            distance += leg
            fastest = max(fastest, q[3] if q[3] is not None and q[3] >= 0 else leg / ((q[2] - p[2]) / 1000))
        trips.append((all_runs[a][-1][2], all_runs[b][0][2], distance, fastest, len(between), ca, cb))
    return stops, trips


# MARK: - Against the server


def metres(a, b):
    return G.Inverse(a[0], a[1], b[0], b[1], Geodesic.DISTANCE)["s12"]


def compare_events(label, got, expected, pairs):
    pairs.append((f"{label}: kinds {[e['type'] for e in got]} vs {[e[0] for e in expected]}",
                  0 if [e["type"] for e in got] == [e[0] for e in expected] else 1, 0))
    for e, (kind, occurred, arrival, departure, c) in zip(got, expected):
        visit = e.get("visit", {})
        times = (micros(e["occurredAt"]), micros(visit["arrivalDate"]), micros(visit["departureDate"]) if "departureDate" in visit else None)
        want = (occurred * 1000, arrival * 1000, departure * 1000 if departure is not None else None)
        pairs.append((f"{label} {kind} at {e['occurredAt']}: times {times} vs {want}", 0 if times == want else 1, 0))
        pairs.append((f"{label} {kind} at {e['occurredAt']}: centre off by (m)", metres((visit["centre"]["latitude"], visit["centre"]["longitude"]), c), 0))
        pairs.append((f"{label} {kind} at {e['occurredAt']}: accuracy (relative)", visit["horizontalAccuracy"] / c[2] - 1, 0))


def compare_report(label, stops, trips, ref_stops, ref_trips, centres, times, distances):
    times.append((f"{label}: {len(stops)} stops vs {len(ref_stops)}", 0 if len(stops) == len(ref_stops) else 1, 0))
    times.append((f"{label}: {len(trips)} trips vs {len(ref_trips)}", 0 if len(trips) == len(ref_trips) else 1, 0))
    for s, (arrival, departure, c, count) in zip(stops, ref_stops):
        got = (micros(s["arrivalDate"]), micros(s["departureDate"]) if "departureDate" in s else None, s["fixCount"])
        want = (arrival * 1000, departure * 1000 if departure is not None else None, count)
        times.append((f"{label} stop at {s['arrivalDate']}: {got} vs {want}", 0 if got == want else 1, 0))
        centres.append((f"{label} stop at {s['arrivalDate']}: centre off by (m)", metres((s["centre"]["latitude"], s["centre"]["longitude"]), c), 0))
    for t, (start, end, distance, fastest, count, ca, cb) in zip(trips, ref_trips):
        got = (micros(t["startDate"]), micros(t["endDate"]), t["fixCount"])
        want = (start * 1000, end * 1000, count)
        times.append((f"{label} trip at {t['startDate']}: {got} vs {want}", 0 if got == want else 1, 0))
        distances.append((f"{label} trip at {t['startDate']}: distance (relative)", t["distance"] / distance - 1, 0))
        distances.append((f"{label} trip at {t['startDate']}: maximum speed (relative)", t["maximumSpeed"] / fastest - 1 if fastest else t["maximumSpeed"], 0))
        distances.append((f"{label} trip at {t['startDate']}: average speed (relative)", t["averageSpeed"] / (distance / ((end - start) / 1000)) - 1, 0))
        centres.append((f"{label} trip at {t['startDate']}: ends off by (m)",
                        max(metres((t["start"]["latitude"], t["start"]["longitude"]), ca), metres((t["end"]["latitude"], t["end"]["longitude"]), cb)), 0))


def walk(device, kind, query, limit):
    """Every page of `kind` (stops or trips) at `limit` a page, following nextFrom."""
    items, start = [], ""
    while True:
        page = get(f"/v1/devices/{device}/{kind}?limit={limit}{query}{start}")
        items += page[kind]
        if "nextFrom" not in page:
            return items
        start = f"&from={page['nextFrom']}"


def csv_rows(device, kind, query):
    status, headers, body = request(f"/v1/devices/{device}/{kind}?format=csv&limit=1000{query}")
    assert status == 200, body
    return list(csv.DictReader(io.StringIO(body.decode())))


def stay_checks():
    """Van days: the visits subscription's events and the stops and trips reads against the reference."""
    rng = random.Random(SEED ^ 0x5747)
    run = rng.randrange(1 << 30)
    visits, centres, times, distances, csvs = [], [], [], [], []
    summary = []
    depots = [(rng.uniform(-55, 60), rng.uniform(-170, 170)), (rng.uniform(-20, -15), 179.985)]  # the second straddles ±180
    for i, (lat, lon) in enumerate(depots):
        device = f"van-{run}-{i}"
        subscription = post("/v1/subscriptions", {"type": "visits", "deviceIds": [device], "maxLocationAge": None})
        fixes = van_day(rng, lat, lon)
        for start in range(0, len(fixes), 1000):
            body = {"locations": [dict({"coordinate": {"latitude": la, "longitude": lo}, "timestamp": stamp(t), "horizontalAccuracy": a},
                                       **({"speed": s} if s is not None else {})) for la, lo, t, a, s in fixes[start:start + 1000]]}
            post(f"/v1/devices/{device}/locations", body)
        events = get(f"/v1/subscriptions/{subscription['id']}/events?after=0&limit=1000")["events"]
        compare_events(f"day {i} visits", events, reference_visits(fixes, 100, 300_000), visits)
        for radius, minimum in [(100, 300), (60, 180)]:
            query = "" if (radius, minimum) == (100, 300) else f"&radius={radius}&minimumDuration={minimum}"
            ref_stops, ref_trips = reference_report(fixes, radius, minimum * 1000)
            label = f"day {i} r={radius} d={minimum}"
            stops = get(f"/v1/devices/{device}/stops?limit=1000{query}")["stops"]
            trips = get(f"/v1/devices/{device}/trips?limit=1000{query}")["trips"]
            compare_report(label, stops, trips, ref_stops, ref_trips, centres, times, distances)
            paged = (walk(device, "stops", query, 3), walk(device, "trips", query, 2))
            times.append((f"{label}: paged walks = whole answers", 0 if paged == (stops, trips) else 1, 0))
            for row, trip in zip(csv_rows(device, "trips", query), trips):
                csvs.append((f"{label} csv trip {row['startDate']}", float(row["distance"]), trip["distance"]))
                csvs.append((f"{label} csv trip {row['startDate']} max speed", float(row["maximumSpeed"]), trip["maximumSpeed"]))
            for row, stop in zip(csv_rows(device, "stops", query), stops):
                csvs.append((f"{label} csv stop {row['arrivalDate']}", float(row["latitude"]), stop["centre"]["latitude"]))
                csvs.append((f"{label} csv stop {row['arrivalDate']} departure", 0 if row["departureDate"] == stop.get("departureDate", "") else 1, 0))
            summary.append(f"{label}: {len(fixes)} fixes, {len(stops)} stops, {len(trips)} trips, {len(events)} visit events")
    check("stays: visit events = the reference (kinds, times to the µs, centres within 1 m, accuracy)", visits, 1e-6)
    check("stays: stops and trips: times, counts, paging = the reference", times, 0)
    check("stays: stop and trip centres within 1 m of the reference (geographiclib)", centres, 1.0)
    check("stays: trip distances and speeds within 0.1 % of the reference", distances, 1e-3)
    check("stays: CSV numbers = JSON numbers", csvs, 0)
    for line in summary:
        print(f"     {line}")
