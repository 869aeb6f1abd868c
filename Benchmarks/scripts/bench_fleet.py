"""Configuration g of bench-tracking.py: a fleet of 10 000 devices with and without a visits and a
status subscription for every device (issue 37: ≥ 0.7× the same ingest with none, same run).

Each device drives and stops as a delivery van does: legs of 20–120 s at 5–15 m/s, stops of
20–300 s with GPS noise of 5–30 m around the stop (speed reported, as phones do), one fix a second.
Requests are batches of BATCH fixes of one device, devices round-robin; the fixes end a few
seconds before the moment they are made, so the status subscription's deadlines (`stoppedAfter`
60 s) fall due while ingest runs and its timers fire beside it, as they would in a real fleet.
"""
import math
import random
from datetime import datetime, timedelta, timezone

DEVICES = 10_000
BATCH = 10
METRES_PER_DEGREE = 111_320.0

VISITS = {"type": "visits", "maxLocationAge": None, "radius": 100, "minimumDuration": 120}
STATUS = {"type": "status", "maxLocationAge": None, "offlineAfter": 3600, "stoppedAfter": 60, "stoppedSpeed": 1.0}


def van(rng, length, area):
    """(lat, lon, speed, accuracy) per second: legs and stops, inside `area` (south, north, west, east)."""
    south, north, west, east = area
    lat, lon = rng.uniform(south, north), rng.uniform(west, east)
    heading, fixes = rng.uniform(0, 2 * math.pi), []
    while len(fixes) < length:
        for _ in range(rng.randint(20, 120)):  # a leg
            speed = rng.uniform(5, 15)
            heading += rng.gauss(0, 0.2)
            lat += speed * math.sin(heading) / METRES_PER_DEGREE
            lon += speed * math.cos(heading) / (METRES_PER_DEGREE * math.cos(math.radians(lat)))
            if not south < lat < north or not west < lon < east:
                lat, lon, heading = min(max(lat, south), north), min(max(lon, west), east), heading + math.pi
            fixes.append((lat, lon, speed, rng.uniform(5, 15)))
        for _ in range(rng.randint(20, 300)):  # a stop: noise around where it stopped
            noise, angle = rng.uniform(0, 20), rng.uniform(0, 2 * math.pi)
            fixes.append((lat + noise * math.sin(angle) / METRES_PER_DEGREE,
                          lon + noise * math.cos(angle) / (METRES_PER_DEGREE * math.cos(math.radians(lat))),
                          rng.uniform(0, 0.5), rng.uniform(5, 30)))
    return fixes[:length]


def requests(rng, total_fixes, area):
    """(device index, body bytes) in posting order: round r of every device, then round r + 1."""
    rounds = math.ceil(total_fixes / BATCH / DEVICES)
    length = rounds * BATCH
    start = datetime.now(timezone.utc).replace(microsecond=0) - timedelta(seconds=length + 5)
    stamps = [(start + timedelta(seconds=k)).strftime("%Y-%m-%dT%H:%M:%S.000000Z") for k in range(length)]
    tracks = []
    for _ in range(DEVICES):
        tracks.append(['{"coordinate":{"latitude":%.6f,"longitude":%.6f},"timestamp":"%s","horizontalAccuracy":%.1f,"speed":%.2f}'
                       % (lat, lon, stamps[k], accuracy, speed) for k, (lat, lon, speed, accuracy) in enumerate(van(rng, length, area))])
    out = []
    for r in range(rounds):
        for d in range(DEVICES):
            if len(out) * BATCH >= total_fixes:
                return out
            out.append((d, ('{"locations":[' + ",".join(tracks[d][r * BATCH:(r + 1) * BATCH]) + "]}").encode()))
    return out


def print_table(results):
    """The fleet's rows: fixes/s with and without the subscriptions, and the ratio (target ≥ 0.7)."""
    base = results[0]["fixes"] / results[0]["seconds"]
    print()
    print(f"Fleet ingest, {DEVICES} devices, batches of {BATCH}, fresh SQLite file (WAL) per configuration (target ≥ 0.7)")
    print()
    print("| configuration | fixes/s | events in answers | ratio to g0 |")
    print("| --- | ---: | ---: | ---: |")
    for r in results:
        rate = r["fixes"] / r["seconds"]
        kinds = ", ".join(f"{k} {v}" for k, v in sorted(r["kinds"].items())) or "none"
        print(f"| {r['name']} | {rate:,.0f} | {r['events']} ({kinds}) | {rate / base:.2f} |")
