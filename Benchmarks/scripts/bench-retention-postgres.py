#!/usr/bin/env python3
"""Issue 38's partition figure: on PostgreSQL, the same expired fixes reclaimed by dropping their
months' partitions beside deleting them row by row, with the same ingest running, in one run.

    scripts/with-postgres.sh .venv-postgres/bin/python Benchmarks/scripts/bench-retention-postgres.py MERIDIAN

MERIDIAN is the release server binary; MERIDIAN_POSTGRES_URL names the throw-away server
`scripts/with-postgres.sh` started. For each way, a new database:

  1. the server migrates it and stops; BENCH_EXPIRED fixes (default 2 000 000) of 1 000 devices,
     spread over the two whole months before the horizon's month (`--keep-fixes 30d`), are written
     with one `INSERT … SELECT generate_series` (posting them would take longer than the rest);
       - "months": into those months' partitions (made first, as a server running then would have);
       - "rows": into the default partition (no partition for those months: as the row deletes of
         issue 37 found them);
  2. the server restarted with `--keep-fixes 30d`, ingest at BENCH_RATE requests/s (bench-retention's
     open loop) for at least BENCH_SECONDS (default 60) and until no expired fix is left in the
     database (at most BENCH_MAX_SECONDS, default 1 800).

A first run without `--keep-fixes` (the months' way, nothing deleted) is the ingest baseline.
Prints per run: seconds until the expired fixes were gone, ingest p50/p99 and the p99 against the
baseline, and the ratio of the two reclaim times.
"""
import datetime
import importlib.util
import os
import sys
import time
import uuid

import psycopg

from benchlib import percentile, start_server

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("bench_retention", os.path.join(HERE, "bench-retention.py"))
bench_retention = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench_retention)

EXPIRED = int(os.environ.get("BENCH_EXPIRED", "2000000"))
# Ingest runs at least this long, so each way's latencies have as many samples.
SECONDS = float(os.environ.get("BENCH_SECONDS", "60"))
DEVICES = 1000


def month_start(index):
    """The first instant of month `index` (year × 12 + month − 1), UTC."""
    return datetime.datetime(index // 12, index % 12 + 1, 1, tzinfo=datetime.timezone.utc)


def expired_months():
    """The two whole UTC months before the month the 30-day horizon falls in: (start µs, end µs, suffix) each."""
    horizon = datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(days=30)
    months = []
    for index in (horizon.year * 12 + horizon.month - 1 - back for back in (2, 1)):
        start, end = month_start(index), month_start(index + 1)
        months.append((int(start.timestamp() * 1e6), int(end.timestamp() * 1e6), f"{start.year:04d}_{start.month:02d}"))
    return months


def load(url, partitioned):
    months = expired_months()
    start, end = months[0][0], months[-1][1]
    with psycopg.connect(url, autocommit=True) as connection:
        if partitioned:
            for low, high, suffix in months:
                connection.execute(f"CREATE TABLE location_fix_p{suffix} PARTITION OF location_fix FOR VALUES FROM ({low}) TO ({high})")
        per_device = EXPIRED // DEVICES
        step = (end - start - 1) // per_device
        connection.execute(f"""
            INSERT INTO location_fix (tenant, device_id, timestamp, latitude, longitude, horizontal_accuracy, received_at, late)
            SELECT 'default', 'old-' || lpad(d::text, 4, '0'), {start} + i * {step}, 45.3 + d * 1e-4, -122.6 + i * 1e-6, 8, {start} + i * {step} + 500000, false
            FROM generate_series(0, {DEVICES - 1}) d, generate_series(0, {per_device - 1}) i
            """)
        connection.execute("ANALYZE location_fix")
        placed = connection.execute("SELECT tableoid::regclass::text, count(*) FROM location_fix GROUP BY 1 ORDER BY 1").fetchall()
    return per_device * DEVICES, placed


def expired_left(url):
    end = expired_months()[-1][1]
    with psycopg.connect(url, autocommit=True) as connection:
        return connection.execute(f"SELECT count(*) FROM location_fix WHERE timestamp < {end}").fetchone()[0]


def run(binary, admin_url, partitioned, keep=True):
    """One way on a new database: load, then serve with `--keep-fixes 30d` (or without, `keep`
    false) and ingest until the expired fixes are gone and at least SECONDS have passed."""
    name = "bench_retention_" + uuid.uuid4().hex[:8]
    with psycopg.connect(admin_url, autocommit=True) as connection:
        template = " TEMPLATE meridian_template" if os.environ.get("MERIDIAN_POSTGRES_TEMPLATE") else ""
        connection.execute(f"CREATE DATABASE {name}{template}")
    url = admin_url.rsplit("/", 1)[0] + "/" + name
    process, _, _ = start_server(binary, url, ["--log-level", "warning"])
    process.terminate()
    process.wait()
    began = time.perf_counter()
    loaded, placed = load(url, partitioned)
    print(f"  {'months' if partitioned else 'rows'}: loaded {loaded:,} in {time.perf_counter() - began:.0f} s: {placed}", file=sys.stderr)
    process, port, _ = start_server(binary, url, ["--log-level", "warning"] + (["--keep-fixes", "30d"] if keep else []))
    began = time.perf_counter()
    gone = []

    def done():
        if keep and not gone and expired_left(url) == 0:
            gone.append(time.perf_counter() - began)
        return (gone or not keep) and time.perf_counter() - began >= SECONDS
    latencies, errors, seconds = bench_retention.ingest(port, None, until=done)
    left = expired_left(url)
    process.terminate()
    process.wait()
    return {"loaded": loaded, "gone": gone[0] if gone else None, "seconds": seconds, "latencies": latencies, "errors": errors, "left": left}


def main():
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    binary, admin_url = sys.argv[1], os.environ["MERIDIAN_POSTGRES_URL"]
    print(f"bench-retention-postgres: {EXPIRED:,} expired fixes, {bench_retention.RATE:g} requests/s × {bench_retention.BATCH} fixes", file=sys.stderr)
    without = run(binary, admin_url, partitioned=True, keep=False)
    months = run(binary, admin_url, partitioned=True)
    rows = run(binary, admin_url, partitioned=False)
    print(f"\nPostgreSQL, {months['loaded']:,} expired fixes of {DEVICES} devices in the two months before the horizon's; "
          f"ingest at {bench_retention.RATE:g} requests/s × {bench_retention.BATCH} fixes (open loop, at least {SECONDS:g} s, "
          f"until they are gone).\n")
    print("| run | gone after s | ingest s | requests | p50 ms | p99 ms | p99 vs without | errors | expired left |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    base = percentile(without["latencies"], 99)
    for label, result in (("without retention", without), ("expired in their months' partitions (dropped)", months),
                          ("expired in the default partition (deleted row by row)", rows)):
        values = result["latencies"]
        gone = "—" if result["gone"] is None else f"{result['gone']:.1f}"
        print(f"| {label} | {gone} | {result['seconds']:.0f} | {len(values):,} | {percentile(values, 50):.1f} | {percentile(values, 99):.1f} | "
              f"{percentile(values, 99) / base:.2f} | {len(result['errors'])} | {result['left']:,} |")
    print(f"\nreclaim time, row deletes ÷ partition drops: {rows['gone'] / months['gone']:.0f}×")
    if months["left"] or rows["left"] or any(r["errors"] for r in (without, months, rows)):
        sys.exit(1)


if __name__ == "__main__":
    main()
