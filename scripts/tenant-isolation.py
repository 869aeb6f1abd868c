#!/usr/bin/env python3
"""One tenant's expensive filters cannot starve another tenant (issue 32, finding 1).

    scripts/tenant-isolation.py MERIDIAN        (make isolation; part of make test)

On a fresh SQLite file, tenant `a` holds 8 000 annotations whose titles are 1 000 `a`s and tenant
`b` 300 small ones, each with its own key. Tenant b's `GET /v1/annotations?limit=100` is timed
alone (its unloaded p99), then again while six threads of tenant a send, without pause, a search
whose filter is `title LIKE '%a%a…%a%b%'` (255 characters: 127 pieces, no match), the shape that
used to cost pattern × text per row and hold every database reader. Each search now reads 8 MB
of titles once (linear, but not free: CPU-heavy and allowed), so it is the admission of expensive
queries per tenant that keeps b's answers coming. b's loaded p99 must stay
within 2× its unloaded p99 (plus 5 ms, a scheduling quantum on a loaded 2-core machine), no
answer may be a 5xx other than a 503 for a's own queries, and /healthz must answer throughout.
Exits 1 otherwise, printing both figures.
"""
import json, os, shutil, sys, tempfile, threading, time

# benchlib (starting servers, a keep-alive client, percentiles) lives with the bench scripts it serves.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Benchmarks", "scripts"))
from benchlib import Client, create_key, percentile, start_server, start_watchdog, stop_servers  # noqa: E402

PATTERN = "%a" * 126 + "%b%"
SEARCH = {"filter": {"op": "like", "args": [{"property": "title"}, PATTERN]}, "limit": 10}
SAMPLES, READERS = 150, 6


def features(count, title):
    return {"type": "FeatureCollection", "features": [
        {"type": "Feature", "geometry": {"type": "Point", "coordinates": [(i % 360) - 179.5, ((i // 360) % 170) - 84.5]},
         "properties": {"title": title, "kind": "place"}} for i in range(count)]}


def timed(client, samples):
    latencies = []
    for _ in range(samples):
        began = time.perf_counter()
        status, payload = client.request("GET", "/v1/annotations?limit=100")
        if status != 200:
            raise RuntimeError(f"tenant b's list answered {status}: {payload[:200]!r}")
        latencies.append(time.perf_counter() - began)
    return sorted(latencies)


def main():
    binary = sys.argv[1]
    folder = tempfile.mkdtemp(prefix="meridian-isolation-")
    database = f"{folder}/isolation.sqlite"
    tokens = {tenant: create_key(binary, database, "admin", tenant=tenant) for tenant in ("a", "b")}
    server, port, log = start_server(binary, database, ["--log-level", "warning", "--rate-limit", "1000000", "--rate-burst", "1000000"])
    start_watchdog("tenant-isolation", 600, [server], folder)
    problems = []
    try:
        a, b = Client(port, tokens["a"], timeout=120), Client(port, tokens["b"], timeout=120)
        a.call("POST", "/v1/annotations/import", features(8_000, "a" * 1_000), expected=200)
        b.call("POST", "/v1/annotations/import", features(300, "b"), expected=200)
        timed(b, 20)  # warm up
        alone = timed(b, SAMPLES)

        stop, answers, lock = threading.Event(), {}, threading.Lock()

        def flood(index):
            client = Client(port, tokens["a"], timeout=120)
            while not stop.is_set():
                try:
                    status, _ = client.request("POST", "/v1/annotations/search", SEARCH)
                except OSError as error:
                    status = repr(error)
                with lock:
                    answers[status] = answers.get(status, 0) + 1

        health = {"worst": 0.0, "failures": 0}

        def probe():
            client = Client(port, timeout=30)
            while not stop.is_set():
                began = time.perf_counter()
                try:
                    status, _ = client.request("GET", "/healthz")
                except OSError:
                    status = None
                health["worst"] = max(health["worst"], time.perf_counter() - began)
                health["failures"] += status != 200
                time.sleep(0.05)

        threads = [threading.Thread(target=flood, args=(i,), daemon=True) for i in range(READERS)] + [threading.Thread(target=probe, daemon=True)]
        for thread in threads:
            thread.start()
        time.sleep(1.0)  # the flood is on
        loaded = timed(b, SAMPLES)
        stop.set()
        for thread in threads:
            thread.join(timeout=150)

        p99_alone, p99_loaded = percentile(alone, 99), percentile(loaded, 99)
        print(f"tenant b list p50/p99 alone:  {percentile(alone, 50) * 1e3:7.2f} / {p99_alone * 1e3:7.2f} ms")
        print(f"tenant b list p50/p99 loaded: {percentile(loaded, 50) * 1e3:7.2f} / {p99_loaded * 1e3:7.2f} ms  "
              f"(ratio {p99_loaded / p99_alone:.2f}; limit 2× + 5 ms)")
        print(f"tenant a's searches meanwhile: {dict(sorted(answers.items(), key=str))}; /healthz worst {health['worst'] * 1e3:.1f} ms")
        if p99_loaded > 2 * p99_alone + 0.005:
            problems.append(f"tenant b's p99 went from {p99_alone * 1e3:.2f} ms to {p99_loaded * 1e3:.2f} ms under tenant a's load")
        if any(isinstance(status, int) and status >= 500 and status != 503 for status in answers):
            problems.append(f"tenant a's searches had server errors: {answers}")
        if health["failures"]:
            problems.append(f"/healthz failed {health['failures']} times")
    finally:
        stop_servers([server], problems)
        shutil.rmtree(folder, ignore_errors=True)
    if problems:
        print("FAILED: " + "; ".join(problems))
        sys.exit(1)
    print("ok: one tenant's expensive filters did not slow another beyond 2×")


if __name__ == "__main__":
    main()
