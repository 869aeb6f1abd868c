#!/usr/bin/env python3
"""PostgreSQL taken away under two-instance load, ROUNDS times: nothing acknowledged is lost, and
both instances answer again within 5 s of the database's return (issue 32, finding 2).

    scripts/with-postgres.sh python3 scripts/pg-restart.py MERIDIAN [--rounds 10]   (make pg-restart; part of make test)

Two `meridian serve` instances share one database; two tenants each have a key. Per instance and
tenant, one thread creates annotations (no idempotency key: the one-statement create), one
posts batches of 5 fixes of its own device and one lists devices (a tracking read), without pause. Each round, after 1 s of load, the
database is stopped with `pg_ctl stop -m immediate` (as a crash or failover does), left down for
1 s, and started again. Then every thread must get a success within 5 s, and, once the load
stops, every create answered 201 must be readable (from either instance) and every fix answered
`accepted` must be in its device's history. Any answer during the outage must be 503 (with
Retry-After) or a refused connection, never a 500. Each tenant has a subscription that turns every
accepted fix into an event; after each round its annotation feed and event log must be gap-free
from 1. Exits 1 otherwise.
"""
import argparse, os, shutil, subprocess, sys, tempfile, threading, time
from urllib.parse import quote

# benchlib (starting servers, a keep-alive client, percentiles) lives with the bench scripts it serves.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Benchmarks", "scripts"))
from benchlib import Client, create_key, micros, rfc3339, start_server, start_watchdog, stop_servers  # noqa: E402

TENANTS = ("t1", "t2")
RECOVERY = 5.0


class Load:
    def __init__(self):
        self.lock, self.stop = threading.Lock(), threading.Event()
        self.created, self.fixes = [], {}   # (tenant, id); (tenant, device) -> {timestamps µs}
        self.statuses = {}                  # status (or error name) -> count, while the database was away
        self.back = float("inf")            # perf_counter when the database was back
        self.first_success = {}             # thread name -> perf_counter of its first success after that

    def success(self, name):
        with self.lock:
            now = time.perf_counter()
            if now > self.back and name not in self.first_success:
                self.first_success[name] = now

    def failure(self, status):
        with self.lock:
            self.statuses[status] = self.statuses.get(status, 0) + 1

    def refused(self, client, status):
        """An answer other than success: a 503 must say when to retry."""
        self.failure(status if status != 503 or client.last_headers.get("Retry-After") else "503 without Retry-After")


def creator(load, name, port, token, tenant):
    client = Client(port, token, timeout=30)
    while not load.stop.is_set():
        body = {"coordinate": {"latitude": 48.85, "longitude": 2.35}, "title": name, "kind": "shop"}
        try:
            status, payload = client.call("POST", "/v1/annotations", body)
        except Exception as error:  # refused or cut while the database is away
            load.failure(f"create {type(error).__name__}")
            time.sleep(0.05)
            continue
        if status == 201:
            with load.lock:
                load.created.append((tenant, payload["id"]))
            load.success(name)
        else:
            load.refused(client, status)
            time.sleep(0.05)


def feeder(load, name, port, token, tenant):
    client, device, last = Client(port, token, timeout=30), f"dev-{name}", 0
    while not load.stop.is_set():
        stamps = []
        for _ in range(5):
            last = max(time.time_ns() // 1000, last + 1)
            stamps.append(last)
        body = {"locations": [{"coordinate": {"latitude": 45.5 + i * 1e-4, "longitude": -122.6}, "timestamp": rfc3339(us), "horizontalAccuracy": 5}
                              for i, us in enumerate(stamps)]}
        try:
            status, payload = client.call("POST", f"/v1/devices/{device}/locations", body)
        except Exception as error:
            load.failure(f"ingest {type(error).__name__}")
            time.sleep(0.05)
            continue
        if status == 200:
            accepted = {us for us, result in zip(stamps, payload["results"]) if result["status"] == "accepted"}
            with load.lock:
                load.fixes.setdefault((tenant, device), set()).update(accepted)
            load.success(name)
        else:
            load.refused(client, status)
            time.sleep(0.05)


def tracking_reader(load, name, port, token, tenant):
    """Tracking reads (the device list): each brings the instance's tracking state up to the database's."""
    client = Client(port, token, timeout=30)
    while not load.stop.is_set():
        try:
            status, _ = client.call("GET", "/v1/devices?limit=10")
        except Exception as error:
            load.failure(f"read {type(error).__name__}")
            time.sleep(0.05)
            continue
        if status == 200:
            load.success(name)
        else:
            load.refused(client, status)
            time.sleep(0.05)


def history(client, device):
    """Every fix timestamp (µs) of `device`, paged by `from`."""
    stamps, start = set(), ""
    while True:
        _, page = client.call("GET", f"/v1/devices/{quote(device)}/locations?limit=1000{start}", expected=200)
        stamps |= {micros(fix["timestamp"]) for fix in page["locations"]}
        if not page.get("nextFrom"):
            return stamps
        start = f"&from={quote(page['nextFrom'])}"


def sequences(client, path, key):
    """Every entry's sequence of a feed answering `key` and `nextAfter`, paged from the start."""
    found, after = [], 0
    while True:
        _, page = client.call("GET", f"{path}?after={after}&limit=1000", expected=200)
        if not page[key]:
            return found
        found += [entry["sequence"] for entry in page[key]]
        after = page["nextAfter"]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binary")
    parser.add_argument("--rounds", type=int, default=10)
    args = parser.parse_args()
    url, ctl = os.environ["MERIDIAN_POSTGRES_URL"], os.environ["MERIDIAN_POSTGRES_CTL"]
    folder = tempfile.mkdtemp(prefix="meridian-pg-restart-")
    tokens = {tenant: create_key(args.binary, url, "admin", tenant=tenant) for tenant in TENANTS}
    flags = ["--log-level", os.environ.get("LOG_LEVEL", "error"), "--rate-limit", "1000000", "--rate-burst", "1000000"]
    started = [start_server(args.binary, url, flags, keep=None) for _ in range(2)]
    servers = [(process, port) for process, port, _ in started]
    processes = [process for process, _ in servers]
    start_watchdog("pg-restart", 120 + 40 * args.rounds, processes, folder)
    problems = []
    try:
        for tenant in TENANTS:
            Client(servers[0][1], tokens[tenant]).call(
                "POST", "/v1/subscriptions", {"type": "significantChange", "distanceFilter": 0, "minimumInterval": 0, "maxLocationAge": None},
                expected=201)
        for round in range(1, args.rounds + 1):
            load = Load()
            threads = []
            for index, (_, port) in enumerate(servers):
                for tenant in TENANTS:
                    for kind, work in (("create", creator), ("ingest", feeder), ("read", tracking_reader)):
                        name = f"{kind}-{'AB'[index]}-{tenant}-r{round}"
                        threads.append(threading.Thread(target=work, args=(load, name, port, tokens[tenant], tenant), name=name, daemon=True))
            for thread in threads:
                thread.start()
            time.sleep(1.0)
            subprocess.run([ctl, "stop"], check=True)
            time.sleep(1.0)
            subprocess.run([ctl, "start"], check=True)
            back = load.back = time.perf_counter()
            while time.perf_counter() - back < RECOVERY + 5 and len(load.first_success) < len(threads):
                time.sleep(0.05)
            late = {t.name: load.first_success.get(t.name, float("inf")) - back for t in threads}
            slow = {name: f"{seconds:.2f} s" if seconds < float("inf") else "never" for name, seconds in late.items() if seconds > RECOVERY}
            load.stop.set()
            for thread in threads:
                thread.join(timeout=60)
            reader = Client(servers[0][1], None, timeout=30)
            missing = []
            for tenant, id in load.created:
                reader.headers["Authorization"] = f"Bearer {tokens[tenant]}"
                status, _ = reader.request("GET", f"/v1/annotations/{id}")
                if status != 200:
                    missing.append(f"annotation {id} ({tenant}): {status}")
            for (tenant, device), stamps in load.fixes.items():
                reader.headers["Authorization"] = f"Bearer {tokens[tenant]}"
                lost = stamps - history(reader, device)
                if lost:
                    missing.append(f"{len(lost)} fixes of {device} ({tenant})")
            for tenant in TENANTS:
                reader.headers["Authorization"] = f"Bearer {tokens[tenant]}"
                for path, key in (("/v1/annotations/changes", "changes"), ("/v1/events", "events")):
                    seen = sequences(reader, path, key)
                    if seen != list(range(1, len(seen) + 1)):
                        problems.append(f"round {round}: {tenant}'s {key} are not gap-free from 1 ({len(seen)} entries)")
            bad = {status: count for status, count in load.statuses.items() if status == "503 without Retry-After" or (isinstance(status, int) and status != 503)}
            worst = max(late.values())
            print(f"round {round:2d}: {len(load.created)} creates, {sum(map(len, load.fixes.values()))} fixes acknowledged; "
                  f"all answering {worst:.2f} s after the database's return; during the outage {dict(sorted(load.statuses.items(), key=str))}",
                  flush=True)
            if missing:
                problems.append(f"round {round}: acknowledged but missing: {missing[:5]} ({len(missing)} in all)")
            if slow:
                problems.append(f"round {round}: not answering within {RECOVERY:.0f} s of the database's return: {slow}")
            if bad:
                problems.append(f"round {round}: answers other than 503 while the database was away: {bad}")
    finally:
        stop_servers(processes, problems)
        shutil.rmtree(folder, ignore_errors=True)
    for name, (_, _, log) in zip("AB", started):
        if os.environ.get("LOG_DIR"):  # for a closer look: every line each instance printed
            with open(f"{os.environ['LOG_DIR']}/instance-{name}.log", "w") as file:
                file.writelines(log)
    if problems:
        for name, (_, _, log) in zip("AB", started):
            unusual = [line for line in log if "status=20" not in line]
            print(f"--- instance {name}'s log, but for its 2xx requests (last 40 lines)\n" + "".join(unusual[-40:]))
        print("FAILED:\n  " + "\n  ".join(problems))
        sys.exit(1)
    print(f"ok: {args.rounds} restarts under two-instance load, nothing acknowledged lost, every instance back within {RECOVERY:.0f} s")


if __name__ == "__main__":
    main()
