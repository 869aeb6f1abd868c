#!/usr/bin/env python3
"""Mixed load, then kill -9 mid-load: throughput, latency and durability of acknowledged writes.

    Benchmarks/scripts/bench-load.py MERIDIAN [--seconds 20] [--workers 8]      (make bench-load)

MERIDIAN is the server binary. On a fresh SQLite file in a temporary folder, with one admin key
(tenant `bench`, so every request is authenticated; the rate limit is raised out of the way),
WORKERS threads on keep-alive HTTP/1.1 connections each pick at random one of:

  thin    POST /v1/annotations/thin (Paris, zoom 5)
  read    GET /v1/annotations/{id} of an annotation this run created (the 1-coordinate conversion
          until there is one)
  write   POST /v1/annotations with a unique externalId (201: its id is acknowledged)
  ingest  POST /v1/devices/{id}/locations, one fix of one of 50 devices, each device on one thread
          with strictly increasing timestamps (200 with `accepted`: the fix is acknowledged)

and one thread reads GET /v1/events/stream. At 2/3 of SECONDS the server gets SIGKILL and the load
stops; requests in flight then are counted as "cut", neither acknowledged nor errors (unless they
had waited over 2 s: a hang is an error; so is any request unanswered for 10 s). The server is
restarted on the same file and every acknowledged annotation (paged list, then GET by id) and fix
(the device's history) must be there. Then SIGTERM must end it with exit 0 within 10 s.
Percentiles are nearest-rank; req/s is over the window before the kill. Exits 1 on a missing
write, a non-2xx answer or transport error before the kill, or an unclean stop.
"""
import argparse, http.client, itertools, json, os, random, shutil, signal, subprocess, sys, tempfile, threading, time
from urllib.parse import quote
from benchlib import Client, create_key, micros, percentile, rfc3339, start_server, start_watchdog

KINDS = ("thin", "read", "write", "ingest")
DEVICES = [f"dev-{d:02d}" for d in range(50)]
SERVER_FLAGS = ["--log-level", "warning", "--rate-limit", "1000000", "--rate-burst", "1000000"]
THIN = {"viewport": {"size": {"width": 800, "height": 600}, "center": {"latitude": 48.85, "longitude": 2.35}, "zoomLevel": 5}}
STALL = 2.0  # a request unanswered this long when the kill comes is an error (a hang), not "cut"
CONVERT = {"coordinates": [{"latitude": 45.52, "longitude": -122.68}]}


class Run:
    """Shared state of the load phase."""

    def __init__(self):
        self.lock, self.killed, self.serial = threading.Lock(), threading.Event(), itertools.count(1)
        self.kill_time = None  # perf_counter() at the kill
        self.latencies = {k: [] for k in KINDS}
        self.requests, self.errors, self.cut = ({k: 0 for k in KINDS} for _ in range(3))
        self.samples = []  # the first few error descriptions
        self.ids, self.fixes = [], {}  # acknowledged annotation ids; device -> acknowledged timestamps (µs)
        self.sse = {"events": 0, "heartbeats": 0, "error": None}

    def record(self, kind, latency=None, error=None):
        with self.lock:
            self.requests[kind] += 1
            if latency is not None:
                self.latencies[kind].append(latency)
            if error:
                self.errors[kind] += 1
                if len(self.samples) < 5:
                    self.samples.append(f"{kind}: {error[:200]}")


def worker(run, index, workers, port, token):
    rng, client = random.Random(index), Client(port, token)
    mine, last = DEVICES[index::workers], {}  # this thread's devices; device -> last timestamp sent (µs)
    while not run.killed.is_set():
        kind = rng.choice(KINDS if mine else KINDS[:3])
        if kind == "thin":
            method, path, body, expected = "POST", "/v1/annotations/thin", THIN, 200
        elif kind == "read" and run.ids:
            method, path, body, expected = "GET", f"/v1/annotations/{rng.choice(run.ids)}", None, 200
        elif kind == "read":
            method, path, body, expected = "POST", "/v1/convert/coordinates-to-map-points", CONVERT, 200
        elif kind == "write":
            method, path, expected = "POST", "/v1/annotations", 201
            body = {"coordinate": {"latitude": rng.uniform(43, 53), "longitude": rng.uniform(-2, 8)},
                    "title": "t", "kind": "shop", "externalId": f"load-{next(run.serial)}"}
        else:
            device = rng.choice(mine)
            us = last[device] = max(time.time_ns() // 1000, last.get(device, 0) + 1)
            method, path, expected = "POST", f"/v1/devices/{device}/locations", 200
            body = {"locations": [{"coordinate": {"latitude": rng.uniform(45.3, 45.8), "longitude": rng.uniform(-123.0, -122.3)},
                                   "timestamp": rfc3339(us), "horizontalAccuracy": 5}]}
        began = time.perf_counter()
        try:
            status, payload = client.request(method, path, body)
        except (OSError, http.client.HTTPException) as error:
            if run.killed.is_set() and run.kill_time - began > STALL:
                run.record(kind, error=f"{method} {path}: no answer in the {run.kill_time - began:.1f} s before the kill")
                return
            if run.killed.is_set():  # in flight at the kill: neither acknowledged nor an error
                with run.lock:
                    run.cut[kind] += 1
                return
            run.record(kind, error=f"{method} {path}: {error!r}")
            continue
        latency = time.perf_counter() - began
        if status != expected:
            run.record(kind, latency, f"{method} {path}: {status} {payload[:150]!r}")
        elif kind == "write":
            run.record(kind, latency)
            run.ids.append(json.loads(payload)["id"])
        elif kind == "ingest":
            result = json.loads(payload)["results"][0]
            run.record(kind, latency, None if result["status"] == "accepted" else f"fix {device} {rfc3339(us)}: {result}")
            if result["status"] == "accepted":
                with run.lock:
                    run.fixes.setdefault(device, set()).add(us)
        else:
            run.record(kind, latency)


def sse_reader(run, port, token):
    """Counts events and heartbeats on one event stream until the server dies."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        connection.request("GET", "/v1/events/stream", headers={"Authorization": f"Bearer {token}", "Accept": "text/event-stream"})
        response = connection.getresponse()
        if response.status != 200:
            run.sse["error"] = f"status {response.status}"
            return
        while line := response.readline():
            if line.startswith(b"event:"):
                run.sse["events"] += 1
            elif line.startswith(b": heartbeat"):
                run.sse["heartbeats"] += 1
    except (OSError, http.client.HTTPException) as error:
        if not run.killed.is_set():
            run.sse["error"] = repr(error)


def pages(client, path, items, parameter, follow):
    """Every item of a paged list: `follow` in each page names `parameter` for the next."""
    value = None
    while True:
        status, payload = client.request("GET", path + (f"&{parameter}={quote(value)}" if value else ""))
        if status != 200:
            sys.exit(f"GET {path} after the restart: {status} {payload[:200]!r}")
        page = json.loads(payload)
        yield from page[items]
        if not (value := page.get(follow)):
            return


def verify(run, port, token):
    """Acknowledged writes absent after the restart: (annotation ids, {device: timestamps})."""
    client = Client(port, token, timeout=30)
    listed = {a["id"] for a in pages(client, "/v1/annotations?limit=1000", "annotations", "cursor", "nextCursor")}
    missing_ids = [i for i in run.ids if i not in listed and client.request("GET", f"/v1/annotations/{i}")[0] != 200]
    missing_fixes = {}
    for device, stamps in sorted(run.fixes.items()):
        stored = {micros(fix["timestamp"]) for fix in pages(client, f"/v1/devices/{device}/locations?limit=1000", "locations", "from", "nextFrom")}
        if lost := stamps - stored:
            missing_fixes[device] = sorted(lost)
    return missing_ids, missing_fixes


def print_load(run, window, workers, seconds):
    print(f"{workers} workers, {window:.1f} s of load until kill -9 (2/3 of --seconds {seconds:g})\n")
    print(f"{'kind':<8} {'requests':>9} {'req/s':>9} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8} {'errors':>7} {'cut by kill':>12}")
    for kind in KINDS:
        values, count = sorted(run.latencies[kind]), run.requests[kind]
        print(f"{kind:<8} {count:>9} {count / window:>9.1f} {percentile(values, 50) * 1e3:>8.2f} "
              f"{percentile(values, 99) * 1e3:>8.2f} {percentile(values, 100) * 1e3:>8.1f} {run.errors[kind]:>7} {run.cut[kind]:>12}")
    print(f"event stream: {run.sse['events']} events, {run.sse['heartbeats']} heartbeats"
          + (f", error {run.sse['error']}" if run.sse["error"] else ""))
    for sample in run.samples:
        print(f"  error: {sample}")
    sys.stdout.flush()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("binary")
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--workers", type=int, default=8)
    args = parser.parse_args()
    folder = tempfile.mkdtemp(prefix="bench-load-")
    database, servers = os.path.join(folder, "meridian.sqlite"), []
    start_watchdog("bench-load", args.seconds + 55, servers, folder)  # the whole run stays within SECONDS + 60 s
    try:
        token = create_key(args.binary, database, "admin")
        process, port, _ = start_server(args.binary, database, SERVER_FLAGS)
        servers.append(process)
        # A significant-change subscription for every device, so ingest appends events and the SSE reader has some.
        status, _ = Client(port, token).request("POST", "/v1/subscriptions", {"type": "significantChange", "maxLocationAge": None})
        if status != 201:
            sys.exit(f"could not subscribe: {status}")
        run = Run()
        threads = [threading.Thread(target=worker, args=(run, i, args.workers, port, token), daemon=True) for i in range(args.workers)]
        threads.append(threading.Thread(target=sse_reader, args=(run, port, token), daemon=True))
        began = time.monotonic()
        for thread in threads:
            thread.start()
        time.sleep(args.seconds * 2 / 3)
        run.kill_time = time.perf_counter()
        run.killed.set()
        window = time.monotonic() - began
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
        for thread in threads:
            thread.join(timeout=15)
        print_load(run, window, args.workers, args.seconds)

        process, port, _ = start_server(args.binary, database, SERVER_FLAGS)
        servers.append(process)
        missing_ids, missing_fixes = verify(run, port, token)
        stop_began = time.monotonic()
        process.terminate()
        try:
            code = process.wait(timeout=10)
            stopped = f"SIGTERM → exit {code} in {time.monotonic() - stop_began:.1f} s"
        except subprocess.TimeoutExpired:
            code, stopped = None, "SIGTERM → still running after 10 s (then killed)"
    finally:
        for process in servers:
            if process.poll() is None:
                process.kill()
                process.wait()
        shutil.rmtree(folder, ignore_errors=True)

    line = f"acknowledged writes: {len(run.ids)} annotations, {sum(map(len, run.fixes.values()))} fixes; after kill -9 and restart: "
    if not missing_ids and not missing_fixes:
        print(line + "all present")
    else:
        print(line + f"MISSING {len(missing_ids)} annotations, {sum(map(len, missing_fixes.values()))} fixes")
        for i in missing_ids[:20]:
            print(f"  missing annotation {i}")
        for device, stamps in list(missing_fixes.items())[:20]:
            print(f"  missing fixes of {device}: {len(stamps)} (first {rfc3339(stamps[0])})")
    print(f"restarted server: {stopped}")
    failed = missing_ids or missing_fixes or any(run.errors.values()) or run.sse["error"] or code != 0
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
