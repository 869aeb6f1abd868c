"""Generates the two Python clients from the contract a live server serves, in both its forms (`/openapi.yaml` and
`/openapi.json`), and checks that each generator makes the same client from either."""
import filecmp
import os
import pathlib
import re
import subprocess
import urllib.request

# openapi-python-client's settings: its package name, and its documented answer for binary bodies it does not
# know (content_type_overrides): a cluster tile is read as bytes. No post hooks (ruff is not installed).
OPC_CONFIG = """\
package_name_override: meridian_client
project_name_override: meridian-client
post_hooks: []
content_type_overrides:
  application/vnd.mapbox-vector-tile: application/octet-stream
"""


def fetch_contract(base_url, work):
    """The served contract in both forms, as files in `work`."""
    paths = {}
    for form in ("yaml", "json"):
        with urllib.request.urlopen(f"{base_url}/openapi.{form}", timeout=30) as answer:
            paths[form] = work / f"openapi.{form}"
            paths[form].write_bytes(answer.read())
    return paths


def commands(bin_dir, spec, out, work):
    """The generation commands for one form of the contract: (name, folder to import the package from, argv)."""
    config = work / "opc-config.yaml"
    config.write_text(OPC_CONFIG)
    return [
        ("openapi-python-client", out / "opc", [
            str(bin_dir / "openapi-python-client"), "generate", "--path", str(spec), "--output-path", str(out / "opc" / "meridian_client"),
            "--config", str(config), "--overwrite", "--meta", "none"]),
        ("OpenAPI Generator", out / "ogen", [
            str(bin_dir / "openapi-generator-cli"), "generate", "-i", str(spec), "-g", "python", "-o", str(out / "ogen"),
            "--package-name", "meridian_og", "--global-property", "apiTests=false,modelTests=false,apiDocs=false,modelDocs=false"]),
    ]


def generate(bin_dir, paths, work):
    """Runs every generation at once; returns {(generator, form): output folder}. Raises on a failed generator."""
    running = []
    for form, spec in paths.items():
        for name, out, argv in commands(bin_dir, spec, work / form, work):
            log = open(work / f"{pathlib.Path(out).name}-{form}.log", "w")
            running.append((name, form, out, log, subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, cwd=work)))
    outputs = {}
    for name, form, out, log, process in running:
        process.wait()
        log.close()
        if process.returncode != 0:
            raise RuntimeError(f"{name} failed on /openapi.{form}:\n{pathlib.Path(log.name).read_text()[-3000:]}")
        outputs[(name, form)] = out
    return outputs


def differences(left, right):
    """Relative paths of the files that differ, byte for byte, between two generated trees (or are in one only)."""
    def files(root):
        return {os.path.relpath(os.path.join(folder, name), root) for folder, _, names in os.walk(root) for name in names}
    ours, theirs = files(left), files(right)
    differing = [path for path in ours & theirs
                 if not filecmp.cmp(os.path.join(left, path), os.path.join(right, path), shallow=False)]
    return sorted(set(differing) | (ours ^ theirs))


def add_missing_unset_imports(package):
    """openapi-python-client 0.29.1's own bug (#1451): an operation whose required body has several media types
    (import: GeoJSON or JSON) is written with `body: … | Unset = UNSET` without importing `Unset`, so its module
    fails to import (NameError). Until the fix (#1478, which adds the import) is released, the import is added here.
    Returns the modules it mended."""
    mended = []
    for module in sorted(pathlib.Path(package, "api").rglob("*.py")):
        text = module.read_text()
        imported = re.search(r"^from \.\.\.types import .*\bUnset\b", text, re.MULTILINE)
        if "| Unset" in text and not imported and "from ...types import Response, UNSET\n" in text:
            module.write_text(text.replace("from ...types import Response, UNSET\n", "from ...types import Response, UNSET, Unset\n"))
            mended.append(module.relative_to(package).as_posix())
    return mended
