"""Device tracks (GET /v1/devices/{id}/track) against geographiclib and shapely.

- Tolerance, brute force: every fix the server dropped lies within `tolerance` metres of the
  geodesic segment between the kept fixes on either side of it. The distance is geographiclib's,
  to the segment's nearest point found by sampling its InverseLine and refining the best sample by
  ternary search (no use of the server's foot search).
- Against shapely: the fixes projected on an azimuthal equidistant plane centred on the track
  (PROJ's aeqd: within a few km of the centre, lengths and distances are true to about 1e-6) and
  simplified with shapely's `simplify(tolerance, preserve_topology=False)` (GEOS's
  DouglasPeuckerLineSimplifier, the same steps on planar distances). The kept sets must be equal,
  or differ only where a decision hangs on less than `MARGIN` metres (a distance that close to
  the tolerance, or two farthest candidates that close): the planar and the geodesic distances
  differ by far less than that here, and by no more.
- Cuts: a track with gaps and antimeridian crossings is cut exactly at the gaps (times) and at
  the crossings, on ±180 at geographiclib's crossing latitude (bisection on LONG_UNROLL longitudes).
"""
import datetime
import math

from geographiclib.geodesic import Geodesic
from pyproj import Transformer
from shapely.geometry import LineString

from .common import N, check, get, post, rng

G = Geodesic.WGS84
EPOCH = datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)
MARGIN = 0.01  # metres: how close to a tie a decision may be for the planar and geodesic answers to differ


def stamp(seconds):
    """RFC 3339 of `seconds` after 2026-01-01T00:00:00Z, to the microsecond."""
    return (EPOCH + datetime.timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def seconds_of(text):
    """Seconds after 2026-01-01T00:00:00Z of an RFC 3339 time the server wrote."""
    return (datetime.datetime.fromisoformat(text.replace("Z", "+00:00")) - EPOCH).total_seconds()


def post_fixes(device, fixes):
    """Posts (latitude, longitude, seconds) fixes in batches of 1 000."""
    for start in range(0, len(fixes), 1000):
        body = {"locations": [{"coordinate": {"latitude": la, "longitude": lo}, "timestamp": stamp(t), "horizontalAccuracy": 5}
                              for la, lo, t in fixes[start:start + 1000]]}
        post(f"/v1/devices/{device}/locations", body)


def wander(n):
    """n fixes of a random walk (2–30 m steps, turns up to ±60°) somewhere within ±70° of latitude, 1 s apart."""
    lat, lon, heading = rng.uniform(-70, 70), rng.uniform(-180, 180), rng.uniform(0, 360)
    fixes = []
    for i in range(n):
        heading += rng.uniform(-60, 60) if rng.random() < 0.3 else rng.uniform(-5, 5)
        step = G.Direct(lat, lon, heading, rng.uniform(2, 30))
        lat, lon = step["lat2"], step["lon2"]
        fixes.append((lat, lon, i))
    return fixes


def segment_distance(a, b, p):
    """geographiclib: metres from p to the geodesic segment a–b (each (lat, lon)), by sampling and ternary search."""
    line = G.InverseLine(a[0], a[1], b[0], b[1])
    length = line.s13

    def at(s):
        q = line.Position(s, Geodesic.LATITUDE | Geodesic.LONGITUDE)
        return G.Inverse(p[0], p[1], q["lat2"], q["lon2"], Geodesic.DISTANCE)["s12"]

    if length == 0:
        return at(0)
    samples = max(2, min(400, int(length)))
    best = min(range(samples + 1), key=lambda k: at(length * k / samples))
    low, high = length * max(0, best - 1) / samples, length * min(samples, best + 1) / samples
    for _ in range(60):
        m1, m2 = low + (high - low) / 3, high - (high - low) / 3
        if at(m1) < at(m2):
            high = m2
        else:
            low = m1
    return min(at((low + high) / 2), at(0), at(length))


def kept_indices(fixes, times):
    """Indexes of the fixes whose times the answer lists (a fix is known by its time)."""
    index = {round(t * 1e6): i for i, (_, _, t) in enumerate(fixes)}
    return [index[round(seconds_of(t) * 1e6)] for t in times]


def planar_kept(fixes, tolerance):
    """shapely's Douglas–Peucker on the fixes projected on an aeqd plane centred on the track."""
    lat0 = sum(f[0] for f in fixes) / len(fixes)
    lon0 = fixes[len(fixes) // 2][1]
    plane = Transformer.from_crs("EPSG:4326", f"+proj=aeqd +lat_0={lat0} +lon_0={lon0} +ellps=WGS84 +units=m", always_xy=True)
    points = [plane.transform(lo, la) for la, lo, _ in fixes]
    simple = LineString(points).simplify(tolerance, preserve_topology=False)
    where = {p: i for i, p in reversed(list(enumerate(points)))}
    return sorted({where[p] for p in simple.coords}), points


def planar_margin(points, kept, others, tolerance):
    """How near a tie the decisions behind a differing kept set were: the least |distance − tolerance|
    of the fixes in dispute to the segment of `kept` (shapely's planar distances) that spans them."""
    margins = []
    for i in others:
        left = max(k for k in kept if k <= i)
        right = min(k for k in kept if k >= i)
        distance = LineString([points[left], points[right]]).distance(LineString([points[i], points[i]]))
        margins.append(abs(distance - tolerance))
    return min(margins) if margins else 0.0


def track_checks():
    """Simplified tracks: the tolerance by brute force, the kept set against shapely, the cuts against geographiclib."""
    run = rng.randrange(1 << 30)
    tolerance_pairs, shapely_pairs, counts = [], [], []
    for i in range(max(2, N // 50)):
        fixes = wander(rng.choice([300, 800, 2000]))
        tolerance = rng.choice([1, 2, 5, 5, 10, 25])
        device = f"track-{run}-{i}"
        post_fixes(device, fixes)
        feature = get(f"/v1/devices/{device}/track?tolerance={tolerance}&gap=3600")
        times = feature["properties"]["times"]
        kept = kept_indices(fixes, times)
        counts.append((len(fixes), len(kept)))
        # The kept positions are the fixes' own, bit for bit.
        for (lon, lat), k in zip(feature["geometry"]["coordinates"], kept):
            tolerance_pairs.append((f"track {i} fix {k} moved", abs(lon - fixes[k][1]) + abs(lat - fixes[k][0]), 0))
        worst = 0.0
        for left, right in zip(kept, kept[1:]):
            a, b = fixes[left][:2], fixes[right][:2]
            for k in range(left + 1, right):
                worst = max(worst, segment_distance(a, b, fixes[k][:2]))
        tolerance_pairs.append((f"track {i} ({len(fixes)} fixes, {tolerance} m): farthest dropped fix {worst:.4f} m over", max(0.0, worst - tolerance), 0))
        reference, points = planar_kept(fixes, tolerance)
        disputed = sorted(set(reference) ^ set(kept))
        margin = planar_margin(points, reference, disputed, tolerance) if disputed else 0.0
        label = f"track {i}: {len(kept)} kept, shapely {len(reference)}, {len(disputed)} in dispute, margin {margin:.4g} m"
        shapely_pairs.append((label, 0.0 if not disputed or margin < MARGIN else float(len(disputed)), 0))
        counts[-1] += (len(disputed),)
    check("track: every dropped fix within tolerance of its kept geodesic segment (geographiclib, brute force)", tolerance_pairs, 1e-6)
    check("track: kept fixes = shapely simplify on an aeqd plane (or a tie within 1 cm)", shapely_pairs, 0)
    print(f"     fixes → kept (fixes in dispute with shapely): {', '.join(f'{n}→{k} ({d})' for n, k, d in counts)}")
    cut_checks(run)


def crossing_latitude(a, b):
    """geographiclib: the latitude where the geodesic a–b crosses ±180 (bisection on unrolled longitudes)."""
    line = G.InverseLine(a[0], a[1], b[0], b[1])
    east = ((b[1] - a[1] + 540) % 360 - 180) > 0
    low, high = 0.0, line.s13
    for _ in range(100):
        middle = (low + high) / 2
        lon = line.Position(middle, Geodesic.STANDARD | Geodesic.LONG_UNROLL)["lon2"]
        if (lon < 180) if east else (lon > -180):
            low = middle
        else:
            high = middle
    return line.Position((low + high) / 2)["lat2"]


def cut_checks(run):
    """A track across the antimeridian and back, with gaps: parts end and start where they must."""
    pairs = []
    for i in range(max(2, N // 50)):
        lat = rng.uniform(-60, 60)
        # Eastward over 180, a gap of gap + 1 s, westward back over it; fixes 40–120 km apart so
        # nothing is simplified away at 5 m (a zigzag in latitude).
        lons = [178.2, 179.1, -179.4, -178.6, -178.9, 179.6, 178.8]
        lats = [lat + (0.3 if k % 2 else -0.3) for k in range(len(lons))]
        gap = rng.choice([900, 3600])  # more than the 600 s between fixes
        seconds = [0, 600, 1200, 1800, 1800 + gap + 1, 1800 + gap + 601, 1800 + gap + 1201]
        fixes = list(zip(lats, lons, seconds))
        device = f"cuts-{run}-{i}"
        post_fixes(device, fixes)
        feature = get(f"/v1/devices/{device}/track?tolerance=5&gap={gap}")
        parts = feature["geometry"]["coordinates"]
        times = feature["properties"]["times"]
        # Expected: [f0 f1 X] [X' f2 f3] | gap | [f4 X] [X' f5 f6]
        crossings = [crossing_latitude(fixes[1], fixes[2]), crossing_latitude(fixes[4], fixes[5])]
        shape = [len(p) for p in parts]
        pairs.append((f"cuts {i}: parts {shape} vs [3, 3, 2, 3]", 0 if shape == [3, 3, 2, 3] else 1, 0))
        if shape != [3, 3, 2, 3]:
            continue
        pairs.append((f"cuts {i}: sides", 0 if (parts[0][-1][0], parts[1][0][0], parts[2][-1][0], parts[3][0][0]) == (180, -180, -180, 180) else 1, 0))
        pairs.append((f"cuts {i}: east crossing latitude", parts[0][-1][1], crossings[0]))
        pairs.append((f"cuts {i}: east crossing latitude, other side", parts[1][0][1], crossings[0]))
        pairs.append((f"cuts {i}: west crossing latitude", parts[2][-1][1], crossings[1]))
        pairs.append((f"cuts {i}: gap", 0 if (seconds_of(times[1][-1]), seconds_of(times[2][0])) == (1800, 1800 + gap + 1) else 1, 0))
        pairs.append((f"cuts {i}: times per position", 0 if [len(t) for t in times] == shape else 1, 0))
    check("track: cut at gaps and on ±180 at geographiclib's crossing latitude", pairs, 1e-9)
