"""The ingest adapters against the native route on the same load (bench-tracking.py's part f).

Every protocol posts the same walks (fixes of the same devices, in the same order) to its own fresh
server, and the native POST /v1/devices/{id}/locations posts them in the same shape, so each ratio
compares one request shape with itself:

  one fix a request:   OwnTracks (JSON), OsmAnd (GET query, as Traccar Client and GPSLogger),
                       OsmAnd (Traccar Client's JSON);
  50 fixes a request:  Overland.

Each is compared with a native run storing the same fixes: the same fields and the same attributes
the adapter derives, in the same request shape.

Devices round-robin on keep-alive client threads, a device always on the same thread. A request
counts when it is answered as its protocol answers success; the fixes it carried are then counted.
"""
import http.client
import json
import threading
import time
from datetime import datetime, timedelta, timezone
from urllib.parse import urlencode

START = datetime(2026, 1, 1, tzinfo=timezone.utc)


def _time(k):
    return (START + timedelta(seconds=k + 1)).strftime("%Y-%m-%dT%H:%M:%S.000000Z")


def native(attributes):
    """The native route carrying the fixes as the protocol's adapter stores them (the same attributes)."""
    def make(d, fixes):
        body = '{"locations":[' + ",".join(
            '{"coordinate":{"latitude":%.6f,"longitude":%.6f},"timestamp":"%s","horizontalAccuracy":10,"speed":5,"attributes":%s}'
            % (lat, lon, _time(k), attributes) for k, lat, lon in fixes) + "]}"
        return "POST", f"/v1/devices/dev-{d:04d}/locations", {"Content-Type": "application/json"}, body.encode()
    return make


def owntracks(d, fixes):
    (k, lat, lon), = fixes
    body = json.dumps({"_type": "location", "lat": round(lat, 6), "lon": round(lon, 6), "tst": int((START - datetime(1970, 1, 1, tzinfo=timezone.utc)).total_seconds()) + k + 1,
                       "acc": 10, "vel": 18, "batt": 80, "tid": "BT", "conn": "m"})
    return "POST", "/v1/ingest/owntracks", {"Content-Type": "application/json", "X-Limit-U": "bench", "X-Limit-D": f"dev-{d:04d}"}, body.encode()


def osmand_query(d, fixes):
    (k, lat, lon), = fixes
    query = urlencode({"id": f"dev-{d:04d}", "lat": "%.6f" % lat, "lon": "%.6f" % lon, "timestamp": _time(k)[:19] + "Z",
                       "speed": "9.7", "accuracy": "10", "batt": "80"})
    return "GET", f"/v1/ingest/osmand?{query}", {}, None


def osmand_json(d, fixes):
    (k, lat, lon), = fixes
    body = json.dumps({"device_id": f"dev-{d:04d}", "location": {
        "timestamp": _time(k), "coords": {"latitude": round(lat, 6), "longitude": round(lon, 6), "accuracy": 10, "speed": 5, "heading": -1, "altitude": 40},
        "is_moving": True, "odometer": 0, "battery": {"level": 0.8, "is_charging": False}, "activity": {"type": "in_vehicle"}}})
    return "POST", "/v1/ingest/osmand", {"Content-Type": "application/json"}, body.encode()


def overland(d, fixes):
    body = json.dumps({"locations": [{"type": "Feature", "geometry": {"type": "Point", "coordinates": [round(lon, 6), round(lat, 6)]},
                                      "properties": {"timestamp": _time(k)[:19] + "Z", "horizontal_accuracy": 10, "speed": 5,
                                                     "battery_level": 0.8, "battery_state": "unplugged", "motion": ["driving"],
                                                     "device_id": f"dev-{d:04d}"}} for k, lat, lon in fixes]})
    return "POST", "/v1/ingest/overland", {"Content-Type": "application/json"}, body.encode()


# (name, request maker, fixes per request, the native run it is compared with): each native run
# stores what its protocol's adapter stores (the same attributes), one fix or 50 a request likewise.
PROTOCOLS = [
    ("native as OwnTracks", native('{"batteryLevel":0.8,"conn":"m","tid":"BT"}'), 1, None),
    ("OwnTracks", owntracks, 1, "native as OwnTracks"),
    ("native as OsmAnd query", native('{"batteryLevel":0.8}'), 1, None),
    ("OsmAnd query (Traccar Client, GPSLogger)", osmand_query, 1, "native as OsmAnd query"),
    ("native as Traccar Client JSON", native('{"activity":{"type":"in_vehicle"},"batteryLevel":0.8,"charging":false,"is_moving":true,"odometer":0}'), 1, None),
    ("OsmAnd JSON (Traccar Client 9)", osmand_json, 1, "native as Traccar Client JSON"),
    ("native as Overland, 50 a request", native('{"batteryLevel":0.8,"battery_state":"unplugged","charging":false,"motion":["driving"]}'), 50, None),
    ("Overland, 50 a request", overland, 50, "native as Overland, 50 a request"),
]


def send_all(port, items, threads):
    """Sends (device, fix count, (method, path, headers, body)) items; answers (seconds, fixes, errors)."""
    lanes = [[] for _ in range(threads)]
    for item in items:
        lanes[item[0] % threads].append(item)
    totals = {"fixes": 0, "errors": {}}
    lock = threading.Lock()

    def run(lane):
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        fixes, errors = 0, {}
        for _, count, (method, path, headers, body) in lane:
            connection.request(method, path, body, headers)
            response = connection.getresponse()
            payload = response.read()
            if response.status == 200:
                fixes += count
            else:
                errors.setdefault(response.status, payload[:300])
        connection.close()
        with lock:
            totals["fixes"] += fixes
            totals["errors"].update(errors)

    workers = [threading.Thread(target=run, args=(lane,)) for lane in lanes if lane]
    start = time.perf_counter()
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    return time.perf_counter() - start, totals["fixes"], totals["errors"]


def items_for(make, per_request, walks, rounds):
    """Each device's walk cut into requests of `per_request` fixes, devices round-robin."""
    out = []
    length = len(walks[0])
    for start in range(0, min(length, rounds), per_request):
        for d, walk in enumerate(walks):
            chunk = walk[start:start + per_request]
            if len(chunk) == per_request:
                out.append((d, per_request, make(d, chunk)))
    return out


def run(server_factory, walks, warmup_rounds, timed_rounds, threads, anomalies):
    """Each protocol on its own fresh server: a warm-up, then the timed fixes. Answers table rows."""
    rows = {}
    for name, make, per_request, baseline in PROTOCOLS:
        warm = items_for(make, per_request, [w[:warmup_rounds] for w in walks], warmup_rounds)
        timed = items_for(make, per_request, [w[warmup_rounds:warmup_rounds + timed_rounds] for w in walks], timed_rounds)
        server = server_factory()
        try:
            send_all(server.port, warm, threads)
            seconds, fixes, errors = send_all(server.port, timed, threads)
        finally:
            server.stop()
        for status, body in errors.items():
            anomalies.append(f"f. {name}: → {status}: {body.decode(errors='replace')}")
        rows[name] = (fixes / seconds, baseline, fixes, seconds)
    return rows


def print_table(rows, devices, threads):
    print()
    print(f"Ingest through the apps' protocols, {devices} devices, {threads} client threads, a fresh SQLite file (WAL) each, same run")
    print()
    print("| protocol | fixes | fixes/s | ratio to native, same fixes and request shape |")
    print("| --- | ---: | ---: | ---: |")
    for name, (rate, baseline, fixes, _) in rows.items():
        ratio = f"{rate / rows[baseline][0]:.2f}" if baseline else "–"
        print(f"| {name} | {fixes} | {rate:,.0f} | {ratio} |")
