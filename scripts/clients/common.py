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
