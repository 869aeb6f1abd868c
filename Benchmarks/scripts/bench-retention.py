#!/usr/bin/env python3
"""Issue 37's retention figure: ingest p99 while the retention task deletes expired fixes, beside
the same ingest without it, in one run.

    Benchmarks/scripts/bench-retention.py MERIDIAN

MERIDIAN is the release server binary. One SQLite file (WAL, on disk) in a temporary directory:

  1. the server migrates it and stops; BENCH_EXPIRED fixes (default 10 000 000) of 1 000 devices,
     40–70 days old, are written straight into `locationFix` with Python's sqlite3 (posting them
     over HTTP would take longer than the rest of the run; the rows are those ingest stores);
  2. "without": the server with no retention; ingest at a steady BENCH_RATE requests/s (default
     100, 10 fixes each, of 512 other devices, fresh timestamps) for BENCH_SECONDS (default 60);
  3. "with": the server restarted with `--keep-fixes 30d`, the same ingest at the same rate while
     the retention task deletes every expired fix, until they are all gone (or BENCH_MAX_SECONDS,
     default 1 800, have passed).

Ingest is open-loop: each request has its send time on a fixed schedule, and its latency is
counted from that time (a stalled server delays the requests behind it, and they count), on
BENCH_THREADS (default 8) keep-alive connections; the first 3 s after each start are not counted. Prints both p50/p99/max, the p99 ratio (target
≤ 1.5) and rows deleted per second (from /metrics). BENCH_EXPIRED smaller than 10 M is for a
machine whose disk cannot hold ~1 GB more; say so beside the figures.
"""
import http.client
import json
import os
import random
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time

from benchlib import percentile, rfc3339, start_server

EXPIRED = int(os.environ.get("BENCH_EXPIRED", "10000000"))
RATE = float(os.environ.get("BENCH_RATE", "100"))
SECONDS = float(os.environ.get("BENCH_SECONDS", "60"))
MAX_SECONDS = float(os.environ.get("BENCH_MAX_SECONDS", "1800"))
THREADS = int(os.environ.get("BENCH_THREADS", "8"))
WARMUP = 3.0
OLD_DEVICES, LIVE_DEVICES, BATCH = 1000, 512, 10
DAY_US = 86_400_000_000


def load_expired(path, count):
    """`count` fixes of OLD_DEVICES devices, spread over 40–70 days ago, in key order (fast inserts)."""
    now = int(time.time() * 1e6)
    per_device = -(-count // OLD_DEVICES)
    step = 30 * DAY_US // per_device
    rng = random.Random(37)
    database = sqlite3.connect(path)
    database.execute("PRAGMA journal_mode = WAL")
    database.execute("PRAGMA synchronous = OFF")
    written = 0
    for d in range(OLD_DEVICES):
        n = min(per_device, count - written)
        if n <= 0:
            break
        lat, lon, start = 45.3 + rng.random() * 0.5, -123.0 + rng.random() * 0.7, now - 70 * DAY_US
        rows = [("default", f"old-{d:04d}", start + i * step, lat + i * 1e-6, lon, 8.0, start + i * step + 500_000)
                for i in range(n)]
        database.executemany(
            "INSERT INTO locationFix (tenant, deviceId, timestamp, latitude, longitude, horizontalAccuracy, receivedAt, late) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, 0)", rows)
        database.commit()
        written += n
        if d % 100 == 99:
            print(f"  loaded {written:,} expired fixes", file=sys.stderr)
    database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    database.close()
    return written


def metric(port, name):
    """The sum of `name`'s samples on /metrics."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    connection.request("GET", "/metrics")
    text = connection.getresponse().read().decode()
    connection.close()
    return sum(float(line.rsplit(" ", 1)[1]) for line in text.splitlines() if line.startswith(name + "{") or line.startswith(name + " "))


def ingest(port, seconds, until=None):
    """Open-loop ingest at RATE requests/s for `seconds` (or until `until()` is true, checked each
    second, at most MAX_SECONDS). Returns (latencies in ms, errors, seconds run)."""
    interval = 1.0 / RATE
    start = time.perf_counter() + 0.5
    stop = threading.Event()
    latencies, errors, lock = [], [], threading.Lock()
    clock = {d: int(time.time() * 1e6) for d in range(LIVE_DEVICES)}

    def lane(t):
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        k = t
        while not stop.is_set():
            due = start + k * interval
            wait = due - time.perf_counter()
            if wait > 0:
                time.sleep(wait)
            d = k % LIVE_DEVICES
            # Devices are spread over lanes by k, so one device is always on one lane (LIVE_DEVICES % THREADS == 0).
            base = clock[d]
            fixes = [{"coordinate": {"latitude": 45.5 + d * 1e-4, "longitude": -122.6 + i * 1e-5},
                      "timestamp": rfc3339(base + i * 100_000), "horizontalAccuracy": 5} for i in range(BATCH)]
            clock[d] = base + BATCH * 100_000
            body = json.dumps({"locations": fixes})
            try:
                connection.request("POST", f"/v1/devices/live-{d:04d}/locations", body, {"Content-Type": "application/json"})
                response = connection.getresponse()
                payload = response.read()
                elapsed = (time.perf_counter() - due) * 1000
                with lock:
                    if response.status == 200:
                        # The first WARMUP seconds of each server are not counted.
                        if due >= start + WARMUP:
                            latencies.append(elapsed)
                    else:
                        errors.append((response.status, payload[:200]))
            except (OSError, http.client.HTTPException) as error:
                with lock:
                    errors.append((type(error).__name__, str(error)))
                connection.close()
                connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            k += THREADS

    threads = [threading.Thread(target=lane, args=(t,), daemon=True) for t in range(THREADS)]
    for thread in threads:
        thread.start()
    began = time.perf_counter()
    while True:
        time.sleep(1)
        ran = time.perf_counter() - began
        if (until is None and ran >= seconds) or (until is not None and (until() or ran >= MAX_SECONDS)):
            break
    stop.set()
    for thread in threads:
        thread.join()
    return sorted(latencies), errors, time.perf_counter() - began


def main():
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    assert LIVE_DEVICES % THREADS == 0, "each live device must stay on one lane"
    binary = sys.argv[1]
    folder = tempfile.mkdtemp(prefix="bench-retention-")
    database = os.path.join(folder, "meridian.sqlite")
    free = shutil.disk_usage(folder).free
    print(f"bench-retention: {EXPIRED:,} expired fixes, {RATE:g} requests/s × {BATCH} fixes; {free / 2**30:.0f} GiB free in {folder}", file=sys.stderr)
    try:
        process, _, _ = start_server(binary, database, ["--log-level", "warning"])
        process.terminate()
        process.wait()
        began = time.perf_counter()
        loaded = load_expired(database, EXPIRED)
        load_seconds = time.perf_counter() - began
        size = sum(os.path.getsize(os.path.join(folder, f)) for f in os.listdir(folder))
        print(f"  loaded {loaded:,} in {load_seconds:.0f} s ({size / 2**30:.2f} GiB)", file=sys.stderr)

        print(f"  without retention: {SECONDS:g} s…", file=sys.stderr)
        process, port, _ = start_server(binary, database, ["--log-level", "warning"])
        without, errors_without, seconds_without = ingest(port, SECONDS)
        process.terminate()
        process.wait()

        print("  with --keep-fixes 30d, until every expired fix is deleted…", file=sys.stderr)
        process, port, log = start_server(binary, database, ["--log-level", "warning", "--keep-fixes", "30d"])
        deleted_name = "meridian_retention_deleted_total"
        with_, errors_with, seconds_with = ingest(port, None, until=lambda: metric(port, deleted_name) >= loaded)
        deleted = metric(port, deleted_name)
        process.terminate()
        process.wait()
        left = sqlite3.connect(database).execute("SELECT count(*) FROM locationFix WHERE deviceId LIKE 'old-%'").fetchone()[0]
    finally:
        shutil.rmtree(folder, ignore_errors=True)

    def row(name, values, seconds, errors):
        return (f"| {name} | {len(values):,} | {seconds:.0f} | {percentile(values, 50):.1f} | {percentile(values, 99):.1f} | "
                f"{values[-1] if values else float('nan'):.1f} | {len(errors)} |")
    print(f"\nIngest at {RATE:g} requests/s × {BATCH} fixes (open loop, {THREADS} connections), SQLite on disk, "
          f"{loaded:,} expired fixes of {OLD_DEVICES} devices loaded in {load_seconds:.0f} s.\n")
    print("| run | requests | seconds | p50 ms | p99 ms | max ms | errors |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    print(row("without retention", without, seconds_without, errors_without))
    print(row("while retention deletes", with_, seconds_with, errors_with))
    ratio = percentile(with_, 99) / percentile(without, 99)
    print(f"\np99 ratio (with / without): {ratio:.2f} (target ≤ 1.5)")
    print(f"rows deleted: {deleted:,.0f} in {seconds_with:.0f} s = {deleted / seconds_with:,.0f} rows/s; expired rows left: {left:,}")
    for name, errors in (("without", errors_without), ("with", errors_with)):
        if errors:
            print(f"{name}: {len(errors)} errors, first: {errors[0]}")
    if ratio > 1.5 or left or errors_without or errors_with:
        sys.exit(1)


if __name__ == "__main__":
    main()
