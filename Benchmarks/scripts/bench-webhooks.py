#!/usr/bin/env python3
"""Webhook delivery: fix→receiver latency at 1 000 events/s, one endpoint's throughput, and ingest
beside a receiver that never answers.

    Benchmarks/scripts/bench-webhooks.py MERIDIAN [--seconds 20]

MERIDIAN is the server binary. On a fresh SQLite file in a temporary folder, in open mode (no key;
loopback), with `--webhook-allow-cidr 127.0.0.0/8` and the rate limit raised out of the way, one
significant-change subscription (distanceFilter 0, minimumInterval 0) makes every accepted fix an
event. The receiver is a threaded http.server on 127.0.0.1 (HTTP/1.1 keep-alive, 200 with an empty
body) that notes each request's arrival (time.time()), and the event's `sequence` and `recordedAt`.

  a  latency   FEEDERS threads on keep-alive connections post batches of 5 fixes of one device
               (timestamps now, increasing per device) paced to 1 000 events/s for SECONDS/2, one
               webhook. Latency is receiver arrival − the event's `recordedAt` (the commit). Every
               logged event must arrive exactly once, in sequence order.
  b  throughput a backlog (20 000 events, or what 4 s of 500-fix batches log) is posted with no
               webhook; then a new webhook is replayed from the backlog's first sequence and
               GET /v1/webhooks/{id} is polled until its cursor reaches the backlog's end (at most
               SECONDS s; a backlog not drained by then is reported as partial).
  c  isolation ingest latency of single fixes (4 threads, a fixed count per block) with a healthy
               webhook only (H) and with one more webhook whose receiver accepts, reads and never
               answers (X, the server's default 10 s attempt timeout), in the order H X X H so drift
               cancels; also the healthy webhook's fix→receiver latency in both.

Percentiles are nearest-rank. Target: p99 fix→receiver < 100 ms in (a). Exits 1 when an event of
(a) was lost or arrived out of order, or a request failed; duplicates are reported (at least once
allows them).
"""
import argparse, http.client, http.server, json, os, random, re, shutil, socket, sys, tempfile, threading, time
from benchlib import Client, micros, percentile, rfc3339, start_server, start_watchdog, stop_servers

SERVER_FLAGS = ["--webhook-allow-cidr", "127.0.0.0/8", "--rate-limit", "1000000", "--rate-burst", "1000000", "--log-level", "warning"]
RATE = 1000           # events per second in (a)
FEEDERS = 4           # feeder threads in (a)
BATCH = 5             # fixes per request in (a)
BACKLOG = 20_000      # events in (b)
BACKLOG_BATCH = 500
INGEST_THREADS = 4    # threads in (c)
INGEST_COUNT = 300    # single-fix requests per thread and block in (c)
TARGET_P99 = 0.100
SUBSCRIPTION = {"type": "significantChange", "distanceFilter": 0, "minimumInterval": 0, "maxLocationAge": None}


def ms(value):
    return f"{value * 1e3:.1f}" if value == value else "–"


class Receiver(http.server.ThreadingHTTPServer):
    """The healthy endpoint: 200 to everything; keeps (path, arrival, body) of every request."""
    daemon_threads = True
    request_queue_size = 64

    def __init__(self):
        self.arrivals, self.lock, self.seen = [], threading.Lock(), {}  # seen: path -> set of sequences
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                arrived = time.time()
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()
                sequence = re.search(rb'"sequence":(\d+)', body)
                with receiver.lock:
                    receiver.arrivals.append((self.path, arrived, body, self.client_address[1]))
                    receiver.seen.setdefault(self.path, set()).add(int(sequence[1]) if sequence else -1)

            def log_message(self, *args):
                pass
        super().__init__(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.serve_forever, daemon=True).start()

    def received(self, path):
        """[(arrival, sequence, recordedAt µs)] of the requests to `path`, in arrival order."""
        with self.lock:
            bodies = [(arrived, body) for p, arrived, body, _ in self.arrivals if p == path]
        events = ((arrived, json.loads(body)) for arrived, body in bodies)
        return [(arrived, e["sequence"], micros(e["recordedAt"])) for arrived, e in events]

    def sequences(self, path):
        with self.lock:
            return set(self.seen.get(path, ()))

    def connections(self, path):
        """How many connections (client ports) the requests to `path` came on."""
        with self.lock:
            return len({port for p, _, _, port in self.arrivals if p == path})


class Hanging:
    """An endpoint that accepts, reads whatever comes and never answers."""

    def __init__(self):
        self.socket = socket.socket()
        self.socket.bind(("127.0.0.1", 0))
        self.socket.listen(64)
        self.port, self.connections, self.closed = self.socket.getsockname()[1], [], False
        threading.Thread(target=self.accept, daemon=True).start()

    def accept(self):
        while not self.closed:
            try:
                connection, _ = self.socket.accept()
            except OSError:
                return
            self.connections.append(connection)
            threading.Thread(target=self.read, args=(connection,), daemon=True).start()

    @staticmethod
    def read(connection):
        try:
            while connection.recv(65536):
                pass
        except OSError:
            pass

    def close(self):
        self.closed = True
        for s in [self.socket, *self.connections]:
            try:
                s.close()
            except OSError:
                pass


class Feed:
    """What the feeders logged: (sequence, recordedAt µs) of every event; errors."""

    def __init__(self):
        self.lock, self.events, self.errors, self.latencies = threading.Lock(), [], [], []

    def post(self, client, device, fixes, last, rng):
        """Posts `fixes` fixes of `device` stamped now (after `last`, µs); returns the newest stamp."""
        stamps, us = [], max(time.time_ns() // 1000, last + 1)
        for _ in range(fixes):
            stamps.append(us)
            us += 1
        body = {"locations": [{"coordinate": {"latitude": rng.uniform(45.3, 45.8), "longitude": rng.uniform(-123.0, -122.3)},
                               "timestamp": rfc3339(s), "horizontalAccuracy": 5} for s in stamps]}
        began = time.perf_counter()
        try:
            status, answer = client.call("POST", f"/v1/devices/{device}/locations", body)
        except (OSError, http.client.HTTPException) as error:
            with self.lock:
                self.errors.append(f"{device}: {error!r}")
            return stamps[-1]
        latency = time.perf_counter() - began
        with self.lock:
            if status != 200:
                self.errors.append(f"{device}: {status} {json.dumps(answer)[:200]}")
                return stamps[-1]
            self.latencies.append(latency)
            self.events += [(e["sequence"], micros(e["recordedAt"])) for e in answer["events"]]
            if rejected := [r for r in answer["results"] if r["status"] != "accepted"]:
                self.errors.append(f"{device}: {rejected[:3]}")
        return stamps[-1]


def paced_feeder(feed, port, index, began, seconds):
    """Thread `index` of FEEDERS: a batch of BATCH fixes every FEEDERS·BATCH/RATE s, offset by its share."""
    client, rng, last = Client(port), random.Random(index), {}
    devices = [f"a-{index}-{k}" for k in range(8)]
    interval = FEEDERS * BATCH / RATE
    due, k = began + index * interval / FEEDERS, 0
    while due < began + seconds:
        if (wait := due - time.monotonic()) > 0:
            time.sleep(wait)
        device = devices[k % len(devices)]
        last[device] = feed.post(client, device, BATCH, last.get(device, 0), rng)
        due, k = due + interval, k + 1


def backlog_feeder(feed, port, index, stop):
    client, rng, last, k = Client(port, timeout=30), random.Random(100 + index), {}, 0
    while not stop():
        device = f"b-{index}-{k % 4}"
        last[device] = feed.post(client, device, BACKLOG_BATCH, last.get(device, 0), rng)
        k += 1


def single_fixes(feed, port, index, block):
    client, rng, last = Client(port), random.Random(1000 + index), {}
    for k in range(INGEST_COUNT):
        device = f"c{block}-{index}-{k % 16}"
        last[device] = feed.post(client, device, 1, last.get(device, 0), rng)


def run_threads(target, count, *args):
    threads = [threading.Thread(target=target, args=(*args[:2], i, *args[2:]), daemon=True) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)


def wait_for(receiver, path, sequences, seconds, stall=5):
    """Waits until every one of `sequences` reached `path`, at most `seconds`, and at most `stall`
    seconds without a new one arriving; True when all came."""
    deadline, progress, count = time.monotonic() + seconds, time.monotonic(), -1
    while True:
        got = receiver.sequences(path)
        if sequences <= got:
            return True
        if len(got) != count:
            progress, count = time.monotonic(), len(got)
        if time.monotonic() > min(deadline, progress + stall):
            return False
        time.sleep(0.05)


def create_webhook(client, url):
    return client.call("POST", "/v1/webhooks", {"url": url}, expected=201)[1]["id"]


def latency(receiver, path, sequences):
    """Sorted fix→receiver latencies (s) of the first arrival of each of `sequences` at `path`."""
    first = {}
    for arrived, sequence, recorded in receiver.received(path):
        if sequence in sequences and sequence not in first:
            first[sequence] = arrived - recorded / 1e6
    return sorted(first.values())


def phase_a(port, client, receiver, seconds, problems):
    hook = create_webhook(client, f"http://127.0.0.1:{receiver.server_port}/a")
    feed, began = Feed(), time.monotonic()
    began_wall = time.time()
    run_threads(paced_feeder, FEEDERS, feed, port, began, seconds)
    window = time.monotonic() - began
    logged = {s for s, _ in feed.events}
    wait_for(receiver, "/a", logged, 30)  # until all came, no new one for 5 s, or 30 s
    client.call("DELETE", f"/v1/webhooks/{hook}", expected=204)
    arrivals = receiver.received("/a")
    order = [s for _, s, _ in arrivals]
    seen, duplicates, reordered = set(), 0, 0
    for i, s in enumerate(order):
        duplicates += s in seen
        reordered += i > 0 and s < order[i - 1] and s not in seen
        seen.add(s)
    lost, foreign = logged - seen, seen - logged
    values = latency(receiver, "/a", logged)
    delivered_rate = len(seen & logged) / (max(a for a, _, _ in arrivals) - began_wall) if arrivals else 0.0
    problems += feed.errors[:5]
    if lost or reordered or foreign:
        problems.append(f"(a): {len(lost)} events not delivered, {reordered} out of order, {len(foreign)} not logged by (a)")
    exactly = "yes" if not (lost or reordered or duplicates or foreign) else "NO"
    return {"events": len(logged), "window": window, "logged/s": len(logged) / window, "delivered/s": delivered_rate,
            "latency": values, "lost": len(lost), "duplicates": duplicates, "reordered": reordered, "foreign": len(foreign),
            "exactly once in order": exactly, "errors": len(feed.errors), "connections": receiver.connections("/a")}


def phase_b(port, client, receiver, seconds, problems):
    feed, began = Feed(), time.monotonic()
    stop = lambda: len(feed.events) >= BACKLOG or time.monotonic() - began > 4
    run_threads(backlog_feeder, 4, feed, port, stop)
    posted = time.monotonic() - began
    problems += feed.errors[:5]
    sequences = sorted(s for s, _ in feed.events)
    if not sequences:
        problems.append("(b): no backlog was logged")
        return None
    first, end = sequences[0], sequences[-1]
    hook = create_webhook(client, f"http://127.0.0.1:{receiver.server_port}/b")
    start = time.monotonic()
    client.call("POST", f"/v1/webhooks/{hook}/replay", {"fromSequence": first}, expected=202)
    deadline, cursor = start + seconds, first - 1
    while time.monotonic() < deadline:
        cursor = client.call("GET", f"/v1/webhooks/{hook}", expected=200)[1]["cursor"]
        if cursor >= end:
            break
        time.sleep(0.05)
    elapsed = time.monotonic() - start
    client.call("DELETE", f"/v1/webhooks/{hook}", expected=204)
    done = min(cursor, end) - first + 1
    arrivals = receiver.received("/b")
    span = arrivals[-1][0] - arrivals[0][0] if len(arrivals) > 1 else float("nan")
    return {"backlog": len(sequences), "posted in": posted, "logged/s": len(sequences) / posted, "acknowledged": done,
            "drain s": elapsed, "drained/s": done / elapsed, "complete": cursor >= end, "requests": len(arrivals),
            "connections": receiver.connections("/b"),
            "receiver/s": len(arrivals) / span if span == span and span > 0 else float("nan")}


def phase_c(port, client, receiver, hanging, problems):
    healthy = create_webhook(client, f"http://127.0.0.1:{receiver.server_port}/c")
    blocks, hung, delete_took = [], None, None
    for block, condition in enumerate("HXXH"):
        if condition == "X" and hung is None:
            hung = create_webhook(client, f"http://127.0.0.1:{hanging.port}/x")
        if condition == "H" and hung is not None:
            took = time.monotonic()
            client.call("DELETE", f"/v1/webhooks/{hung}", expected=204)
            delete_took, hung = time.monotonic() - took, None
        feed = Feed()
        run_threads(single_fixes, INGEST_THREADS, feed, port, block)
        problems += feed.errors[:5]
        logged = {s for s, _ in feed.events}
        drained = wait_for(receiver, "/c", logged, 15)
        blocks.append((condition, feed.latencies, latency(receiver, "/c", logged), drained))
    if hung is not None:
        client.call("DELETE", f"/v1/webhooks/{hung}", expected=204)
    client.call("DELETE", f"/v1/webhooks/{healthy}", expected=204)
    result = {}
    for condition in "HX":
        ingest = sorted(v for c, values, _, _ in blocks if c == condition for v in values)
        hook = sorted(v for c, _, values, _ in blocks if c == condition for v in values)
        result[condition] = {"ingest": ingest, "hook": hook, "drained": all(d for c, _, _, d in blocks if c == condition)}
    result["blocks"] = [(c, percentile(sorted(v), 99)) for c, v, _, _ in blocks]
    result["delete"] = delete_took
    result["connections"] = len(hanging.connections)
    return result


def print_report(binary, seconds, a, b, c, stopped, problems):
    print(f"bench-webhooks: {binary}\n")
    values = a["latency"]
    p99 = percentile(values, 99)
    print(f"(a) latency at {RATE} events/s for {a['window']:.1f} s ({FEEDERS} feeders, batches of {BATCH} fixes), one webhook")
    print(f"    {'events':>7} {'logged/s':>9} {'delivered/s':>12} {'p50 ms':>8} {'p95 ms':>8} {'p99 ms':>8} {'max ms':>8}")
    print(f"    {a['events']:>7} {a['logged/s']:>9.1f} {a['delivered/s']:>12.1f} {ms(percentile(values, 50)):>8} "
          f"{ms(percentile(values, 95)):>8} {ms(p99):>8} {ms(percentile(values, 100)):>8}")
    print(f"    exactly once in sequence order: {a['exactly once in order']} (lost {a['lost']}, duplicates {a['duplicates']}, "
          f"out of order {a['reordered']}, not logged by this phase {a['foreign']}; request errors {a['errors']}; "
          f"{a['connections']} receiver connection(s))")
    if a["delivered/s"] < 0.95 * a["logged/s"]:
        print("    the webhook fell behind: it acknowledged fewer events/s than were logged, so latency grew with the backlog")
    print(f"    target p99 fix→receiver < {TARGET_P99 * 1e3:.0f} ms: {'met' if p99 < TARGET_P99 else 'NOT met'} ({ms(p99)} ms)\n")
    if b:
        print(f"(b) throughput of one endpoint: backlog of {b['backlog']} events (logged in {b['posted in']:.1f} s, "
              f"{b['logged/s']:.0f}/s), replayed to a new webhook")
        print(f"    {'acknowledged':>12} {'seconds':>8} {'events/s':>9} {'receiver/s':>11} {'connections':>12}  drained")
        print(f"    {b['acknowledged']:>12} {b['drain s']:>8.1f} {b['drained/s']:>9.1f} {b['receiver/s']:>11.1f} {b['connections']:>12}  "
              f"{'yes' if b['complete'] else f'no (stopped after {seconds:g} s: partial)'}\n")
    print(f"(c) ingest beside a hanging receiver: single fixes, {INGEST_THREADS} threads × {INGEST_COUNT} per block, blocks H X X H")
    print(f"    {'webhooks':<22} {'requests':>8} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8} {'healthy hook p50/p99 ms':>24}")
    for condition, label in (("H", "healthy only"), ("X", "healthy + hanging")):
        ingest, hook = c[condition]["ingest"], c[condition]["hook"]
        print(f"    {label:<22} {len(ingest):>8} {ms(percentile(ingest, 50)):>8} {ms(percentile(ingest, 99)):>8} "
              f"{ms(percentile(ingest, 100)):>8} {ms(percentile(hook, 50)) + ' / ' + ms(percentile(hook, 99)):>24}"
              + ("" if c[condition]["drained"] else "  (healthy hook not drained)"))
    ratio = percentile(c["X"]["ingest"], 99) / percentile(c["H"]["ingest"], 99)
    print(f"    ingest p99 hanging/healthy: {ratio:.2f}  (per block: "
          + ", ".join(f"{k} {ms(v)}" for k, v in c["blocks"]) + " ms)")
    print(f"    the hanging receiver got {c['connections']} connection(s); deleting its webhook took "
          f"{ms(c['delete']) if c['delete'] is not None else '–'} ms")
    print(f"server: {stopped}")
    for problem in problems[:10]:
        print(f"  problem: {problem}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("binary")
    parser.add_argument("--seconds", type=float, default=20)
    args = parser.parse_args()
    folder = tempfile.mkdtemp(prefix="bench-webhooks-")
    servers, receiver, hanging = [], Receiver(), Hanging()
    start_watchdog("bench-webhooks", args.seconds * 3 + 60, servers, folder)  # the whole run stays within 3 × SECONDS + 60 s
    problems, stopped = [], "not started"
    try:
        process, port, log = start_server(args.binary, os.path.join(folder, "meridian.sqlite"), SERVER_FLAGS)
        servers.append(process)
        client = Client(port, timeout=30)
        client.call("POST", "/v1/subscriptions", SUBSCRIPTION, expected=201)
        a = phase_a(port, client, receiver, args.seconds / 2, problems)
        b = phase_b(port, client, receiver, args.seconds, problems)
        c = phase_c(port, client, receiver, hanging, problems)
    finally:
        stopped = stop_servers(servers, problems)
        hanging.close()
        receiver.shutdown()
        shutil.rmtree(folder, ignore_errors=True)
    print_report(args.binary, args.seconds, a, b, c, stopped, problems)
    if errors := [line for line in log if " error " in line or " critical " in line]:
        print(f"  server logged {len(errors)} error line(s), first: {errors[0].strip()[:300]}")
    failed = a["lost"] or a["reordered"] or a["foreign"] or problems
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
