"""What the bench scripts share: starting `meridian serve`, a keep-alive client, time stamps and
percentiles.

The bench scripts run as `python3 Benchmarks/scripts/NAME.py …`, so their folder is on sys.path and
`import benchlib` finds this file. The load tests of `make test` (scripts/tenant-isolation.py,
scripts/pg-restart.py) use it too: they put this folder on sys.path first.
"""
import http.client, json, math, os, queue, re, shutil, subprocess, sys, threading, time
from datetime import datetime, timezone

LISTENING = re.compile(r"listening on http://127\.0\.0\.1:(\d+)")


def start_server(binary, database, flags=(), prefix=(), keep=200):
    """`meridian serve` on a free loopback port (`--port 0`) with `flags` after `--database`, the
    command run under `prefix` (e.g. taskset). Returns (process, port, log) once the server says
    it listens; exits the script if it has not within 30 s.

    A thread drains its output so the pipe never fills; `log` is the list of the lines it printed,
    the startup ones included, the first `keep` of them (None: all). The thread is
    `process.drain`: join it after the process ended and `log` is complete."""
    process = subprocess.Popen([*prefix, binary, "serve", "--host", "127.0.0.1", "--port", "0", "--database", database, *flags],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines, log = queue.Queue(), []

    def drain():
        for line in process.stdout:
            if keep is None or len(log) < keep:
                log.append(line)
            lines.put(line)
        lines.put("")
    process.drain = threading.Thread(target=drain, daemon=True)
    process.drain.start()
    deadline = time.monotonic() + 30
    while True:
        try:
            line = lines.get(timeout=max(0.1, deadline - time.monotonic()))
        except queue.Empty:
            line = ""
        if not line:
            process.kill()
            sys.exit(f"server did not start:\n{''.join(log[-20:])}")
        if match := LISTENING.search(line):
            return process, int(match[1]), log


def settle(processes, quiet=0.05, window=0.3, longest=60):
    """Waits until every process in `processes` uses less than `quiet` of a core over `window`
    seconds (a server's start-up work, such as filling its caches, done), at most `longest` seconds:
    a benchmark measures the steady state, not the start-up beside it."""
    ticks = os.sysconf("SC_CLK_TCK")

    def cpu(process):
        try:
            fields = open(f"/proc/{process.pid}/stat").read().rsplit(")", 1)[1].split()
        except OSError:  # exited: the phase reports it
            return 0.0
        return (int(fields[11]) + int(fields[12])) / ticks
    deadline = time.monotonic() + longest
    while time.monotonic() < deadline:
        before = [cpu(process) for process in processes]
        time.sleep(window)
        if all(cpu(process) - used < quiet * window for process, used in zip(processes, before)):
            return


def create_key(binary, database, role, tenant="bench"):
    """`meridian keys create` on `database`; returns the new token, or exits the script."""
    keys = subprocess.run([binary, "keys", "create", "--tenant", tenant, "--role", role, "--database", database],
                          capture_output=True, text=True, timeout=30)
    token = next((line for line in keys.stdout.splitlines() if line.startswith("mrd_")), None)
    if token is None:
        sys.exit(f"keys create failed ({keys.returncode}): {keys.stdout}{keys.stderr}")
    return token


def start_watchdog(name, seconds, servers, folder):
    """After `seconds`, says so, kills the processes in `servers`, removes `folder` and exits 1."""
    def fire():
        print(f"{name}: still running after {seconds:.0f} s; giving up", file=sys.stderr, flush=True)
        for process in servers:
            process.kill()
        shutil.rmtree(folder, ignore_errors=True)
        os._exit(1)
    timer = threading.Timer(seconds, fire)
    timer.daemon = True
    timer.start()
    return timer


class Client:
    """One keep-alive connection to 127.0.0.1:port, reopened after a transport error; with `token`,
    every request carries it as `Authorization: Bearer …`."""

    def __init__(self, port, token=None, timeout=10):
        self.port, self.timeout, self.connection = port, timeout, None
        self.headers = ({"Authorization": f"Bearer {token}"} if token else {}) | {"Content-Type": "application/json"}

    def request(self, method, path, body=None):
        """(status, the answer's bytes); `body` is sent as JSON. A transport error is raised."""
        if self.connection is None:
            self.connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=self.timeout)
        try:
            self.connection.request(method, path, None if body is None else json.dumps(body), self.headers)
            response = self.connection.getresponse()
            self.last_headers = response.headers  # of the last answer, for callers that check one
            return response.status, response.read()
        except (OSError, http.client.HTTPException):
            self.connection.close()
            self.connection = None
            raise

    def call(self, method, path, body=None, expected=None):
        """(status, JSON answer or None); with `expected`, anything else is an exception."""
        status, payload = self.request(method, path, body)
        if expected is not None and status != expected:
            raise RuntimeError(f"{method} {path}: {status} {payload[:200]!r}")
        return status, json.loads(payload) if payload else None


def stop_servers(servers, problems):
    """SIGTERM each server still running and wait up to 10 s (then SIGKILL); returns how the last
    one stopped, and appends to `problems` a server that had to be killed or had exited by itself."""
    stopped = "not started"
    for process in servers:
        if process.poll() is None:
            began = time.monotonic()
            process.terminate()
            try:
                stopped = f"SIGTERM → exit {process.wait(timeout=10)} in {time.monotonic() - began:.2f} s"
            except subprocess.TimeoutExpired:
                stopped = "SIGTERM → still running after 10 s (then killed)"
                problems.append("the server did not stop within 10 s of SIGTERM")
                process.kill()
                process.wait()
        else:
            stopped = f"exited by itself with {process.returncode}"
            problems.append(f"the server {stopped}")
    return stopped


def micros(stamp):
    """RFC 3339 → integer microseconds since the epoch, whatever the number of fraction digits."""
    m = re.fullmatch(r"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d+))?(Z|[+-]\d\d:\d\d)", stamp)
    base = datetime.fromisoformat(m[1] + ("+00:00" if m[3] == "Z" else m[3]))
    return int(base.timestamp()) * 1_000_000 + int((m[2] or "").ljust(6, "0")[:6])


def rfc3339(us):
    """Integer microseconds since the epoch → RFC 3339 in UTC with 6 fraction digits."""
    return datetime.fromtimestamp(us // 1_000_000, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.") + f"{us % 1_000_000:06d}Z"


def percentile(sorted_values, p):
    """Nearest-rank `p`th percentile (0–100) of already sorted values; NaN when there are none."""
    return sorted_values[max(0, math.ceil(p / 100 * len(sorted_values)) - 1)] if sorted_values else float("nan")
