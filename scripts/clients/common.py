"""What both generated clients' flows share: the places they work at, and the runner that names each flow's outcome."""
import datetime
import traceback


class Flows:
    """Runs named flows one after another; a flow passes when it returns, fails on any exception."""

    def __init__(self, generator):
        self.generator = generator
        self.results = []  # (flow, passed, detail)

    def run(self, name, flow):
        try:
            flow()
            self.results.append((f"{self.generator}: {name}", True, ""))
            print(f"  ok    {self.generator}: {name}", flush=True)
        except Exception as error:  # noqa: BLE001 - any failure of a flow is reported, not raised
            detail = f"{type(error).__name__}: {error}"
            self.results.append((f"{self.generator}: {name}", False, detail))
            print(f"  FAIL  {self.generator}: {name}: {detail}", flush=True)
            traceback.print_exc()


def check(condition, message):
    """An assertion that stays on under `python -O`."""
    if not condition:
        raise AssertionError(message)


def van_day(place):
    """(latitude, longitude, RFC 3339 timestamp) of a van an hour ago: 3 minutes parked at the center (a fix every 30 s),
    driving 1 km north at 25 m/s (a fix every 10 s, 250 m apart: none within 100 m of a parking), 3 minutes parked
    there. Its stops (radius 100 m, 2 minutes) are the two parkings, 7 fixes each, and its one trip is about 1 km."""
    start = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0) - datetime.timedelta(hours=1)
    north = 1000 / 111_132  # degrees of latitude in 1 km there, near enough for a check within 5 %
    fixes = [(0, k * 30) for k in range(7)]
    fixes += [(north * k / 4, 180 + k * 10) for k in range(1, 4)]
    fixes += [(north, 220 + k * 30) for k in range(7)]
    return [(place.latitude + dlat, place.longitude, (start + datetime.timedelta(seconds=seconds)).isoformat().replace("+00:00", "Z"))
            for dlat, seconds in fixes]


def now():
    """The current time as RFC 3339 (a fix must be fresh: subscriptions skip fixes older than 15 s)."""
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class Place:
    """Where one generator's flows put their annotations and devices, apart from the other's, so the two can run
    against one server at once: a center, a kind and a clustering identifier of their own."""

    def __init__(self, name, latitude, longitude):
        self.name = name
        self.latitude = latitude
        self.longitude = longitude
        self.kind = f"client-{name}"
        self.device = f"device-{name}"

    def around(self, count):
        """`count` (latitude, longitude) pairs within about 20 km of the center, each distinct."""
        return [(self.latitude + 0.01 * (index % 5), self.longitude + 0.01 * (index // 5)) for index in range(count)]

    def tile(self, zoom):
        """The (x, y) of the XYZ tile holding the center at `zoom` (Web Mercator, y down from the north)."""
        import math
        n = 2 ** zoom
        x = int((self.longitude + 180) / 360 * n)
        phi = math.radians(self.latitude)
        y = int((1 - math.log(math.tan(phi) + 1 / math.cos(phi)) / math.pi) / 2 * n)
        return x, y
