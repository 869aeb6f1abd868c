"""What every area of the cross-check shares: the server's URL, the seed and its generator, the
pass/fail tally with its `check`, HTTP helpers, random coordinates and `map_point`.

Environment: MERIDIAN_URL (default http://127.0.0.1:8080), MERIDIAN_SEED (default: random),
MERIDIAN_CASES (cases per check, default 250).
"""
import json
import math
import os
import random
import urllib.error
import urllib.request

from pyproj import Transformer

URL = os.environ.get("MERIDIAN_URL", "http://127.0.0.1:8080")
SEED = int(os.environ.get("MERIDIAN_SEED", random.randrange(1 << 30)))
N = int(os.environ.get("MERIDIAN_CASES", "250"))
W = 2.0 ** 28  # MapKit's world, in map points
A = 6378137.0  # WGS84 semi-major axis, metres
rng = random.Random(SEED)  # every area draws from this one generator, in crosscheck.py's order


class Tally:
    """Checks passed and failed so far; `check` prints one line per check."""

    def __init__(self):
        self.passed = self.failed = 0

    def check(self, name, pairs, tolerance):
        """pairs: (label, got, expected); each must agree within tolerance (absolute)."""
        worst, bad = 0.0, []
        for label, got, expected in pairs:
            error = abs(got - expected)
            worst = max(worst, error)
            if not error <= tolerance:
                bad.append(f"{label}: got {got!r}, expected {expected!r}")
        status = "ok  " if not bad else "FAIL"
        print(f"{status} {name}: {len(pairs)} values, worst difference {worst:.3g} (tolerance {tolerance:g})")
        for line in bad[:5]:
            print("     " + line)
        self.passed, self.failed = self.passed + (not bad), self.failed + bool(bad)


tally = Tally()
check = tally.check


def post(path, body):
    """The JSON answer to a JSON POST; an HTTP error raises."""
    request = urllib.request.Request(URL + path, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request) as response:
        return json.load(response)


def get(path):
    """The JSON answer to a GET; an HTTP error raises."""
    with urllib.request.urlopen(URL + path) as response:
        return json.load(response)


def request(path, method="GET", body=None, headers=None, timeout=60):
    """(status, headers, body bytes) of any request, a JSON body if given; HTTP errors are answers, not exceptions."""
    data = None if body is None else json.dumps(body).encode()
    all_headers = {"Content-Type": "application/json", **(headers or {})}
    try:
        with urllib.request.urlopen(urllib.request.Request(URL + path, data=data, method=method, headers=all_headers), timeout=timeout) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


def answer(method, path, body=None, content_type="application/json", timeout=60):
    """(status, JSON answer) of a request; an error's answer is its problem JSON, or its text."""
    status, _, data = request(path, method, body, {"Content-Type": content_type}, timeout)
    if 200 <= status < 300:  # what urlopen answers without raising
        return status, json.loads(data)
    text = data.decode(errors="replace")
    try:
        return status, json.loads(text)
    except ValueError:
        return status, text


def coordinates(n, max_lat=85.0):
    """n random coordinates ({"latitude", "longitude"}), latitudes within ±max_lat."""
    return [{"latitude": rng.uniform(-max_lat, max_lat), "longitude": rng.uniform(-180, 180)} for _ in range(n)]


to_mercator = Transformer.from_crs("EPSG:4326", "EPSG:3857", always_xy=True)


def map_point(c):
    """MapKit map point of a coordinate via PROJ's EPSG:3857 (metres → 2^28 world, origin NW)."""
    x, y = to_mercator.transform(c["longitude"], c["latitude"])
    return (x / (2 * math.pi * A) + 0.5) * W, (0.5 - y / (2 * math.pi * A)) * W
