"""Generates Python clients from the contract the server at MERIDIAN_URL serves, with openapi-python-client and
OpenAPI Generator (`python`), from `/openapi.yaml` and from `/openapi.json` (each generator must make the same client
from both), and runs the user flows through each client (scripts/clients/flows_*.py). Any failure fails.
Usage: MERIDIAN_URL=… python scripts/generated-clients.py   (make clients starts the server: scripts/with-server.sh)"""
import os
import pathlib
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).parent / "clients"))
from common import Place  # noqa: E402
from generate import add_missing_unset_imports, differences, fetch_contract, generate  # noqa: E402

# A port nothing listens on: a webhook is only created, read, changed and deleted here (nothing is sent on creation).
WEBHOOK_URL = "http://127.0.0.1:9/generated-client-hook"


def main():
    base_url = os.environ["MERIDIAN_URL"]
    bin_dir = pathlib.Path(sys.executable).parent
    started = time.monotonic()
    failures = []
    with tempfile.TemporaryDirectory(prefix="meridian-clients-") as temporary:
        work = pathlib.Path(temporary)
        outputs = generate(bin_dir, fetch_contract(base_url, work), work)
        print(f"generated 4 clients in {time.monotonic() - started:.1f} s", flush=True)
        for generator in ("openapi-python-client", "OpenAPI Generator"):
            differing = differences(outputs[(generator, "yaml")], outputs[(generator, "json")])
            print(f"  {'ok   ' if not differing else 'FAIL '} {generator}: the same client from /openapi.yaml and /openapi.json"
                  + (f" ({len(differing)} files differ: {', '.join(differing[:5])})" if differing else ""), flush=True)
            if differing:
                failures.append((generator, "the same client from both forms"))
        mended = add_missing_unset_imports(outputs[("openapi-python-client", "yaml")] / "meridian_client")
        print(f"  openapi-python-client #1451 workaround: `Unset` imported in {', '.join(mended) or 'no module'}", flush=True)
        sys.path[:0] = [str(outputs[("openapi-python-client", "yaml")]), str(outputs[("OpenAPI Generator", "yaml")])]
        import flows_ogen
        import flows_opc
        results = (flows_opc.run(base_url, Place("opc", 48.85, 2.35), WEBHOOK_URL)
                   + flows_ogen.run(base_url, Place("ogen", -33.87, 151.21), WEBHOOK_URL))
    failures += [("flow", name) for name, passed, _ in results if not passed]
    passed = sum(1 for _, ok, _ in results if ok) + 2 - sum(1 for kind, _ in failures if kind != "flow")
    print(f"generated clients in {time.monotonic() - started:.1f} s")
    print(f"{passed} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
