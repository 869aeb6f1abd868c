"""What the contract's formats mean, for schemathesis (loaded through SCHEMATHESIS_HOOKS).

`proj-crs` names a coordinate reference system PROJ knows; which names those are is PROJ's
database's business, which JSON Schema cannot state. Valid examples are drawn from horizontal
CRSs that PROJ transforms between (geographic, Web Mercator, UTM, national grids), written the
three ways the server reads: an authority code, a PROJ string and a WKT definition.
"""
import uuid

from hypothesis import strategies as st
import schemathesis

CODES = ["EPSG:4326", "EPSG:4258", "EPSG:3857", "EPSG:32633", "EPSG:32654", "EPSG:27700", "EPSG:2154",
         "EPSG:6677", "EPSG:3035", "EPSG:28992", "OGC:CRS84"]
PROJ_STRINGS = ["+proj=longlat +datum=WGS84 +no_defs +type=crs", "+proj=merc +datum=WGS84 +type=crs",
                "+proj=utm +zone=31 +datum=WGS84 +type=crs"]
WKT = ['GEOGCRS["WGS 84",DATUM["World Geodetic System 1984",ELLIPSOID["WGS 84",6378137,298.257223563]],'
       'CS[ellipsoidal,2],AXIS["latitude",north],AXIS["longitude",east],ANGLEUNIT["degree",0.0174532925199433]]']

schemathesis.openapi.format("proj-crs", st.sampled_from(CODES + PROJ_STRINGS + WKT))

# A webhook's URL must resolve to an address the server may reach, which JSON Schema cannot state
# (and a random host name would send DNS queries off the machine). The fuzzing server allows
# loopback (MERIDIAN_WEBHOOK_ALLOW_CIDR in scripts/contract-fuzz.sh), so every URL of a valid length
# becomes one on the discard port of 127.0.0.1, where nothing listens: sends fail at once, locally.
# `subscriptionIds` must name existing subscriptions, so a list of strings becomes the empty one.
# `before_call` runs in every phase (examples, coverage, fuzzing), and schemathesis classifies the
# case again after it, so a case made valid here is judged as valid.
FUZZ_WEBHOOK_URL = "http://127.0.0.1:9/meridian-fuzz"
WEBHOOK_WRITES = {("POST", "/v1/webhooks"), ("PATCH", "/v1/webhooks/{webhookId}")}


# An Idempotency-Key names one request: the same key with another body is 422, as the IETF draft
# says, which JSON Schema cannot state. A valid key becomes one this run has not used (a fresh
# suffix), so a schema-valid create is judged as one; the replay and the 422 have contract tests.
IDEMPOTENT_CREATES = {("POST", "/v1/annotations"), ("POST", "/ogc/collections/{collectionId}/items")}


def _fresh_idempotency_key(case):
    if (case.operation.method.upper(), case.operation.path) not in IDEMPOTENT_CREATES or not case.headers:
        return
    # A coverage case that leaves a header out (Authorization, to see the 401) is sent as drawn:
    # changed, it would be sent with the run's key.
    data = getattr(getattr(getattr(case, "meta", None), "phase", None), "data", None)
    if "MISSING" in str(getattr(data, "scenario", "")).upper():
        return
    for name, value in list(case.headers.items()):
        if name.lower() == "idempotency-key" and isinstance(value, str) and 1 <= len(value) <= 255 and value.strip(" \t"):
            suffix = "-" + uuid.uuid4().hex
            case.headers[name] = (value[:255 - len(suffix)] + suffix) if value[:255 - len(suffix)].strip(" \t") else uuid.uuid4().hex


# `datetime` must name real instants of years 0001…9999 (no 31 February, no hour 25) and an
# interval must not end before it starts, which the contract's pattern cannot state: each date and
# time of a schema-valid value is clamped into range and an interval's ends put in order.
def _valid_datetime(case):
    import re
    if (case.operation.method.upper(), case.operation.path) != ("GET", "/ogc/collections/{collectionId}/items") or not isinstance(case.query, dict):
        return
    value = case.query.get("datetime")
    if not isinstance(value, str):
        return
    stamp = re.compile(r"(\d{4})-(\d{2})-(\d{2})(?:([Tt ])(\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2}))?")

    def clamp(match):
        year, month, day = max(1, int(match[1])), min(max(1, int(match[2])), 12), min(max(1, int(match[3])), 28)
        text = "%04d-%02d-%02d" % (year, month, day)
        if match[4]:
            offset = match[9] if match[9] in ("Z", "z") else match[9][0] + "%02d:%02d" % (min(int(match[9][1:3]), 23), min(int(match[9][4:6]), 59))
            text += "T%02d:%02d:%02d%s%s" % (min(int(match[5]), 23), min(int(match[6]), 59), min(int(match[7]), 59), match[8] or "", offset)
        return text

    parts = [stamp.sub(clamp, part) for part in value.split("/")]
    if len(parts) == 2 and all(stamp.fullmatch(p) for p in parts):
        # Compare as the server does: by instant (a date is its first moment, an offset shifts the time).
        from datetime import datetime, timezone
        def instant(text):
            if len(text) == 10:
                return datetime.fromisoformat(text + "T00:00:00+00:00")
            return datetime.fromisoformat(text.replace("z", "+00:00").replace("Z", "+00:00").replace("t", "T").replace(" ", "T", 1))
        try:
            if instant(parts[1]) < instant(parts[0]):
                parts.reverse()
        except ValueError:
            pass
    case.query["datetime"] = "/".join(parts)


# `bbox` in degrees must lie within ±180 and ±90 (in `bbox-crs` order: EPSG:4326 puts latitude
# first), which the contract's pattern cannot state beside `bbox-crs` (EPSG:3857 takes metres): a
# schema-valid box in degrees has each number folded into its axis's range.
def _bbox_in_range(case):
    if (case.operation.method.upper(), case.operation.path) != ("GET", "/ogc/collections/{collectionId}/items") or not isinstance(case.query, dict):
        return
    value, crs = case.query.get("bbox"), str(case.query.get("bbox-crs", ""))
    if not isinstance(value, str) or "3857" in crs:
        return
    try:
        numbers = [float(n) for n in value.split(",")]
    except ValueError:
        return
    if len(numbers) not in (4, 6):
        return
    latitude_first = "4326" in crs
    axes = ["x", "y", "h", "x", "y", "h"] if len(numbers) == 6 else ["x", "y", "x", "y"]
    folded = []
    for axis, number in zip(axes, numbers):
        is_latitude = (axis == "y") != latitude_first if axis != "h" else False
        limit = 90 if is_latitude else 180 if axis != "h" else None
        folded.append(number if limit is None else max(-limit, min(limit, number)))
    case.query["bbox"] = ",".join(("%.6f" % n).rstrip("0").rstrip(".") if n != int(n) else str(int(n)) for n in folded)


@schemathesis.hook
def before_call(context, case, kwargs):
    _map_filters(case)
    _valid_datetime(case)
    _bbox_in_range(case)
    _distinct_corridor_line(case)
    _fresh_idempotency_key(case)
    body = case.body
    if (case.operation.method.upper(), case.operation.path) not in WEBHOOK_WRITES or not isinstance(body, dict):
        return
    url = body.get("url")
    if isinstance(url, str) and 1 <= len(url) <= 2048:
        body["url"] = FUZZ_WEBHOOK_URL
    ids = body.get("subscriptionIds")
    if isinstance(ids, list) and len(ids) <= 1000 and all(isinstance(i, str) for i in ids):
        body["subscriptionIds"] = []

# A CQL2 filter must be meaningful (known operators, types that agree, closed rings), which JSON
# Schema cannot state; schema-valid filters become one of these valid ones, of the same kind
# (object, or text), so the fuzzer exercises the endpoints and the server's answer to a real
# filter. Values of the wrong type or length are left alone.
FUZZ_JSON_FILTERS = [
    {"op": "=", "args": [{"property": "kind"}, "city"]},
    {"op": "and", "args": [{"op": ">=", "args": [{"property": "displayPriority"}, 500]},
                           {"op": "s_intersects", "args": [{"property": "geometry"}, {"bbox": [-10, 35, 30, 60]}]}]},
    {"op": "or", "args": [{"op": "like", "args": [{"property": "title"}, "Par%"]}, {"op": "isNull", "args": [{"property": "population"}]}]},
    {"op": "s_within", "args": [{"property": "geometry"}, {"type": "Polygon", "coordinates": [[[0, 0], [10, 0], [10, 10], [0, 10], [0, 0]]]}]},
]
FUZZ_TEXT_FILTERS = [
    "kind = 'city'",
    "displayPriority BETWEEN 100 AND 900 AND NOT title LIKE 'A%'",
    "S_INTERSECTS(geometry, BBOX(-10, 35, 30, 60)) OR kind IN ('city', 'town')",
    "population > 1000000",
]
FILTER_BODIES = {("POST", "/v1/annotations/search"), ("POST", "/v1/annotations/nearest"), ("POST", "/v1/annotations/thin")}
FILTERED_LISTS = {("GET", "/v1/annotations"), ("GET", "/v1/annotations/export"), ("GET", "/v1/tiles/clusters/{z}/{x}/{y}.mvt"),
                  ("GET", "/ogc/collections/{collectionId}/items")}


def _fuzz_filter(value, as_json_text=False):
    import json, random
    if isinstance(value, bool):
        return value
    if isinstance(value, dict):
        return random.choice(FUZZ_JSON_FILTERS)
    if isinstance(value, str) and 1 <= len(value) <= 16384:
        return json.dumps(random.choice(FUZZ_JSON_FILTERS)) if as_json_text else random.choice(FUZZ_TEXT_FILTERS)
    return value


def _map_filters(case):
    key = (case.operation.method.upper(), case.operation.path)
    if key in FILTER_BODIES and isinstance(case.body, dict) and "filter" in case.body:
        case.body["filter"] = _fuzz_filter(case.body["filter"])
    elif key in FILTERED_LISTS and isinstance(case.query, dict) and "filter" in case.query:
        case.query["filter"] = _fuzz_filter(case.query["filter"], as_json_text=case.query.get("filter-lang") == "cql2-json")


# A corridor's line must hold two distinct positions (GEOS's rule for a valid line), which JSON
# Schema cannot state: a schema-valid line whose positions are all the same gets its last one moved
# 0.001° east (or west at the antimeridian), so the case is valid and the fuzzer exercises corridors.
def _distinct_corridor_line(case):
    operation = (case.operation.method.upper(), case.operation.path)
    if operation not in {("POST", "/v1/subscriptions"), ("PATCH", "/v1/subscriptions/{subscriptionId}")} or not isinstance(case.body, dict):
        return
    region = case.body.get("region")
    corridor = region.get("corridor") if isinstance(region, dict) else None
    line = corridor.get("line") if isinstance(corridor, dict) else None
    points = line.get("coordinates") if isinstance(line, dict) else None
    if not isinstance(points, list) or len(points) < 2 or not all(isinstance(p, list) and len(p) >= 2 for p in points):
        return
    if all(p[:2] == points[0][:2] for p in points) and all(isinstance(v, (int, float)) for v in points[-1][:2]):
        longitude = points[-1][0]
        points[-1] = [longitude + 0.001 if longitude <= 179.999 else longitude - 0.001] + points[-1][1:]




# The event stream's body is declared as OpenAPI 3.1 tools read it, a string (so a generated client
# hands it over as text), with one message's schema in `x-itemSchema`: OpenAPI 3.2's `itemSchema`
# as an extension. Schemathesis reads 3.2's `itemSchema` and checks every event against it, so the
# extension is handed to it under that name (and the string `schema`, which 3.2 would read as the
# whole stream, is left out).
@schemathesis.hook
def before_load_schema(context, raw_schema):
    for item in raw_schema.get("paths", {}).values():
        for operation in item.values():
            for response in operation.get("responses", {}).values() if isinstance(operation, dict) else []:
                media = response.get("content", {}).get("text/event-stream") if isinstance(response, dict) else None
                if isinstance(media, dict) and "x-itemSchema" in media:
                    media["itemSchema"] = media.pop("x-itemSchema")
                    media.pop("schema", None)
