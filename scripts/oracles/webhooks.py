"""Webhooks against the standardwebhooks package, with a receiver in this process on 127.0.0.1
(the server must allow it: MERIDIAN_WEBHOOK_ALLOW_CIDR=127.0.0.0/8): signatures before and after
a secret rotation, and bodies, order and webhook-id against the event log.
"""
import base64
import http.server
import json
import os
import threading
import time

from standardwebhooks.webhooks import Webhook, WebhookVerificationError

from .common import answer, check, get, post, rng


class Receiver(http.server.ThreadingHTTPServer):
    """Webhook endpoint on 127.0.0.1:0 that answers 204 and keeps (headers, body) of every request."""
    daemon_threads = True

    def __init__(self):
        self.requests, self.arrived = [], threading.Condition()
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                self.send_response(204)
                self.end_headers()
                with receiver.arrived:
                    receiver.requests.append((dict(self.headers.items()), body))
                    receiver.arrived.notify_all()

            def log_message(self, *args):
                pass
        super().__init__(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.serve_forever, daemon=True).start()

    def wait_for(self, count, seconds=20):
        """The first `count` requests, or as many as came within `seconds`."""
        deadline = time.monotonic() + seconds
        with self.arrived:
            while len(self.requests) < count and (left := deadline - time.monotonic()) > 0:
                self.arrived.wait(left)
            return list(self.requests[:count])


def logged(subscription, after):
    """The subscription's events in the whole log (GET /v1/events?after=…, every page) after a sequence."""
    events = []
    while page := get(f"/v1/events?after={after}&limit=1000")["events"]:
        events += [e for e in page if e["subscriptionId"] == subscription]
        after = page[-1]["sequence"]
    return events


def verifies(secret, headers, body):
    """Whether standardwebhooks verifies a request (headers, body bytes) with the secret."""
    try:
        Webhook(secret).verify(body, headers)
        return True
    except WebhookVerificationError:
        return False


def webhook_checks():
    """Webhook requests against the standardwebhooks package (signatures, before and after a secret
    rotation) and against the event log (bodies, order, webhook-id)."""
    run = rng.randrange(1 << 30)
    receiver = Receiver()
    try:
        device = f"hooked-{run}"
        subscription = post("/v1/subscriptions", {"type": "significantChange", "deviceIds": [device], "distanceFilter": 0,
                                                  "minimumInterval": 0, "maxLocationAge": None})["id"]
        status, hook = answer("POST", "/v1/webhooks", {"url": f"http://127.0.0.1:{receiver.server_port}/hook/{run}",
                                                        "subscriptionIds": [subscription]}, timeout=30)
        if status != 201:
            check("webhook: POST /v1/webhooks to a 127.0.0.1 receiver (the server needs MERIDIAN_WEBHOOK_ALLOW_CIDR=127.0.0.0/8)",
                  [("status", status, 201)], 0)
            return
        secret, base = hook["secret"], time.time_ns() // 1000

        def send(k):  # fix k of the device, 1 s after fix k − 1, a little farther north
            stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(base // 1_000_000 + k)) + f".{base % 1_000_000:06d}Z"
            return post(f"/v1/devices/{device}/locations", {"locations": [
                {"coordinate": {"latitude": 48.85 + k * 0.01, "longitude": 2.35}, "timestamp": stamp, "horizontalAccuracy": 5}]})["events"]
        expected = sum(len(send(k)) for k in range(5))
        got = receiver.wait_for(expected)
        events = logged(subscription, 0)

        pairs = [(f"request {i}", 0 if verifies(secret, h, b) else 1, 0) for i, (h, b) in enumerate(got)]
        pairs.append(("requests received", len(got), expected))
        check("webhook: every request verifies with standardwebhooks", pairs, 0)
        pairs = []
        for i, (h, b) in enumerate(got):
            tampered = b.replace(b'"deviceId":"', b'"deviceId":"x', 1)
            pairs.append((f"request {i} tampered", 1 if tampered != b and not verifies(secret, h, tampered) else 0, 1))
            pairs.append((f"request {i} other secret", 0 if verifies("whsec_" + base64.b64encode(os.urandom(32)).decode(), h, b) else 1, 1))
        check("webhook: a tampered body, or another secret, fails standardwebhooks", pairs, 0)
        pairs = [("requests vs events", len(got), len(events)), ("events", len(events), expected)]
        for i, ((h, b), event) in enumerate(zip(got, events)):
            pairs += [(f"request {i} body", 0 if json.loads(b) == event else 1, 0),
                      (f"request {i} webhook-id", 0 if h.get("webhook-id") == event["id"] else 1, 0)]
        check("webhook: bodies = GET /v1/events in order, webhook-id = event id", pairs, 0)

        rotated = "whsec_" + base64.b64encode(os.urandom(32)).decode()
        status, _ = answer("PATCH", f"/v1/webhooks/{hook['id']}", {"secret": rotated}, "application/merge-patch+json", timeout=30)
        more = len(send(5))
        got = receiver.wait_for(expected + more)[expected:]
        events = logged(subscription, events[-1]["sequence"] if events else 0)
        pairs = [("PATCH status", status, 200), ("requests after the rotation", len(got), 1), ("events after the rotation", more, 1)]
        for i, ((h, b), event) in enumerate(zip(got, events)):
            pairs += [(f"request {i} new secret", 0 if verifies(rotated, h, b) else 1, 0),
                      (f"request {i} old secret", 0 if verifies(secret, h, b) else 1, 0),
                      (f"request {i} signatures", len(h.get("webhook-signature", "").split(" ")), 2),
                      (f"request {i} body", 0 if json.loads(b) == event else 1, 0)]
        check("webhook: after a secret rotation, verifies with the new and the old secret", pairs, 0)

        last = events[-1]["sequence"] if events else None
        deadline = time.monotonic() + 5
        while True:  # the cursor moves once the receiver's answer is processed
            state = get(f"/v1/webhooks/{hook['id']}")
            if state["cursor"] == last or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        check("webhook: GET /v1/webhooks/{id} cursor at the last event, no lag",
              [("cursor", state["cursor"], last or 0), ("lag.events", state["lag"]["events"], 0)], 0)
    finally:
        receiver.shutdown()
        receiver.server_close()
