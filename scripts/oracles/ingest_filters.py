"""Ingest filters on 10 000 random fixes of several devices, against the rules written again here
from the README (geographiclib for the geodesic distance): every fix's status and filteredBy.

The tenant's settings change every few hundred fixes (each rule on or off, random limits), so the
devices' last kept fixes carry over from one set of settings to the next. Fixes step from the
device's previous one by random times (some late, some at an instant already stored) and
distances (some jumps), with random accuracies, in batches of 1–20.
"""
from datetime import datetime, timedelta, timezone

from geographiclib.geodesic import Geodesic

import random

from .common import SEED, answer, check, post

FIXES = 10_000
DEVICES = 12
RULES = ("maxHorizontalAccuracy", "minDistance", "minInterval", "maxSpeed")
BASE = datetime(2026, 1, 1, tzinfo=timezone.utc)


def stamp(microseconds):
    """RFC 3339 with microseconds, `microseconds` after 2026-01-01T00:00:00Z."""
    return (BASE + timedelta(microseconds=microseconds)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def random_settings(rng):
    """Each rule on with probability 0.6, its limit drawn over the range fixes below fall in."""
    settings = {}
    if rng.random() < 0.6:
        settings["maxHorizontalAccuracy"] = rng.uniform(5, 150)
    if rng.random() < 0.6:
        settings["minDistance"] = rng.uniform(0, 400)
    if rng.random() < 0.6:
        settings["minInterval"] = rng.uniform(0, 90)
    if rng.random() < 0.6:
        settings["maxSpeed"] = rng.uniform(1, 60)
    return settings


def dropping(settings, fix, last_kept):
    """The rule that drops `fix` (the README's rules, in the README's order), or None.

    The accuracy limit applies to every fix; the other rules measure the step from the device's
    newest accepted fix forward, so they leave a device's first fix and a late fix alone. Every
    limit keeps a fix exactly at it. Also returns how near the deciding comparison was to a tie.
    """
    limit = settings.get("maxHorizontalAccuracy")
    if limit is not None and fix["accuracy"] > limit:
        return "maxHorizontalAccuracy"
    if last_kept is None or fix["time"] <= last_kept["time"]:
        return None
    distance = Geodesic.WGS84.Inverse(last_kept["lat"], last_kept["lon"], fix["lat"], fix["lon"])["s12"]
    interval = (fix["time"] - last_kept["time"]) / 1e6
    if "minDistance" in settings and distance < settings["minDistance"]:
        return "minDistance"
    if "minInterval" in settings and interval < settings["minInterval"]:
        return "minInterval"
    if "maxSpeed" in settings and distance / interval > settings["maxSpeed"]:
        return "maxSpeed"
    return None


def near_tie(settings, fix, last_kept):
    """Whether a comparison with a distance is within a micrometre of its limit (PROJ and
    geographiclib may then round apart); such fixes are left out of the comparison."""
    if last_kept is None or fix["time"] <= last_kept["time"]:
        return False
    distance = Geodesic.WGS84.Inverse(last_kept["lat"], last_kept["lon"], fix["lat"], fix["lon"])["s12"]
    interval = (fix["time"] - last_kept["time"]) / 1e6
    return ("minDistance" in settings and abs(distance - settings["minDistance"]) < 1e-6) or (
        "maxSpeed" in settings and abs(distance - settings["maxSpeed"] * interval) < 1e-6)


class Device:
    """What the reference keeps of a device: its walk, its newest accepted fix, its stored instants."""

    def __init__(self, name, start):
        self.name = name
        self.position = start
        self.time = 0
        self.last_kept = None
        self.stored = set()

    def step(self, rng):
        """The next fix of the walk: mostly forward in time and a few hundred metres, some late,
        some at an instant already stored, some jumps, accuracies from 1 to 200 m."""
        roll = rng.random()
        if roll < 0.05 and self.stored:
            time = rng.choice(sorted(self.stored))
        elif roll < 0.15:
            time = self.time - rng.randrange(1, 300_000_000)
        else:
            time = self.time + rng.randrange(1, 90_000_000)
        reach = rng.uniform(2_000, 60_000) if rng.random() < 0.08 else rng.expovariate(1 / 250)
        end = Geodesic.WGS84.Direct(self.position["latitude"], self.position["longitude"], rng.uniform(-180, 180), reach)
        self.position = {"latitude": end["lat2"], "longitude": end["lon2"]}
        self.time = max(self.time, time)
        return {"lat": end["lat2"], "lon": end["lon2"], "time": time, "accuracy": rng.uniform(1, 200)}

    def classify(self, settings, batch):
        """The reference's answer for a batch, in array order, and whether each is a near tie."""
        answers, ties, in_batch = [], [], set()
        for fix in batch:
            newest = self.last_kept["time"] if self.last_kept else None
            late = newest is not None and fix["time"] <= newest
            ties.append(near_tie(settings, fix, self.last_kept))
            if late and (fix["time"] == newest or fix["time"] in in_batch):
                answers.append("duplicate")
                continue
            rule = dropping(settings, fix, self.last_kept)
            if rule:
                answers.append(f"filtered:{rule}")
            elif late:
                # The store's own check comes after the filters: an instant it holds is a duplicate.
                answers.append("duplicate" if fix["time"] in self.stored else "late")
                if fix["time"] not in self.stored:
                    in_batch.add(fix["time"])
                    self.stored.add(fix["time"])
            else:
                answers.append("accepted")
                in_batch.add(fix["time"])
                self.stored.add(fix["time"])
                self.last_kept = fix
        return answers, ties


def ingest_filter_checks():
    """10 000 fixes' statuses and filteredBy against the reference; the tenant's filters are off again at the end."""
    rng = random.Random(SEED ^ 0x1F1)  # its own generator: the other areas' draws stay as they were for a seed
    run = rng.randrange(1 << 30)
    devices = [Device(f"filters-{run}-{k}", start) for k, start in enumerate(coordinates_from(rng, DEVICES))]
    pairs, ties, counts, settings, sent, change = [], 0, {}, {}, 0, 0
    try:
        while sent < FIXES:
            if sent >= change:
                settings, change = random_settings(rng), sent + rng.randint(200, 800)
                status, body = answer("PUT", "/v1/ingest-filters", settings)
                assert status == 200, (status, body)
            device = rng.choice(devices)
            batch = [device.step(rng) for _ in range(min(rng.randint(1, 20), FIXES - sent))]
            body = {"locations": [{"coordinate": {"latitude": f["lat"], "longitude": f["lon"]}, "timestamp": stamp(f["time"]),
                                   "horizontalAccuracy": f["accuracy"]} for f in batch]}
            results = post(f"/v1/devices/{device.name}/locations", body)["results"]
            expected, near = device.classify(settings, batch)
            for index, result in enumerate(results):
                got = result["status"] + (f":{result['filteredBy']}" if "filteredBy" in result else "")
                counts[expected[index]] = counts.get(expected[index], 0) + 1
                if near[index]:
                    ties += 1
                    continue
                pairs.append((f"{device.name} fix {sent + index} under {settings}: got {got}, expected {expected[index]}",
                              int(got == expected[index]), 1))
            sent += len(batch)
    finally:
        answer("PUT", "/v1/ingest-filters", {})
    print("     " + ", ".join(f"{name} {count}" for name, count in sorted(counts.items())) + f"; {ties} near ties left out")
    check("ingest filters: status and filteredBy of 10 000 fixes vs the rules with geographiclib", pairs, 0)


def coordinates_from(rng, n):
    """n random starting points within ±70° latitude, from `rng`."""
    return [{"latitude": rng.uniform(-70, 70), "longitude": rng.uniform(-180, 180)} for _ in range(n)]
