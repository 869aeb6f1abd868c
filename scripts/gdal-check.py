"""GDAL (Debian's gdal-bin 3.6), a client nobody on the project wrote, against a live server:
`ogrinfo` opens the export URL (GDAL asks with `Accept: text/plain, application/json`), the export
goes to a GeoPackage and back to GeoJSON and imports back unchanged (the next export is the same
bytes), and the cluster tiles open as a layer through their TileJSON (`-oo METADATA_FILE=/vsicurl/…`;
GDAL 3.6 cannot open a TileJSON URL itself), their counts summing to every annotation.

Environment: MERIDIAN_URL (scripts/with-server.sh sets it). Exits 1 on any failure.
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import urllib.request

URL = os.environ.get("MERIDIAN_URL", "http://127.0.0.1:8080")
failures = []


def check(name, ok, detail=""):
    print(("ok   " if ok else "FAIL ") + name + ("" if ok else f": {detail}"))
    if not ok:
        failures.append(name)


def http(path, body=None, content_type="application/geo+json"):
    request = urllib.request.Request(URL + path, data=body, headers={"Content-Type": content_type} if body else {})
    with urllib.request.urlopen(request, timeout=120) as answer:
        return answer.read()


def run(*args):
    result = subprocess.run(args, capture_output=True, text=True, timeout=300)
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(args)} → {result.returncode}\n{result.stderr[-2000:]}")
    return result.stdout


def seed(count=500):
    """Annotations across the world, half without an external id, with free properties of each kind."""
    features = []
    for i in range(count):
        properties = {"title": f"Ort {i} «é»", "kind": ["city", "town", "poi"][i % 3], "properties": {"rank": i, "share": i / 7, "open": i % 2 == 0}}
        if i % 2 == 0:
            properties["externalId"] = f"gdal-{i}"
        features.append({"type": "Feature", "geometry": {"type": "Point", "coordinates": [(i * 7.3) % 360 - 180, (i * 3.1) % 160 - 80]},
                         "properties": properties})
    answer = json.loads(http("/v1/annotations/import", json.dumps({"type": "FeatureCollection", "features": features}).encode()))
    return answer["created"]


def main():
    total = seed()
    export_url = URL + "/v1/annotations/export"
    info = run("ogrinfo", "-ro", "-so", "-al", export_url)
    match = re.search(r"Feature Count: (\d+)", info)
    check("ogrinfo opens the export URL (Accept: text/plain, application/json)", match and int(match.group(1)) == total, info[-500:])

    first = http("/v1/annotations/export")
    with tempfile.TemporaryDirectory() as folder:
        gpkg, back = os.path.join(folder, "export.gpkg"), os.path.join(folder, "back.geojson")
        run("ogr2ogr", "-f", "GPKG", gpkg, export_url)
        # GDAL writes coordinates with 15 significant digits unless told otherwise; 17 gives back every double.
        run("ogr2ogr", "-f", "GeoJSON", "-lco", "ID_FIELD=id", "-lco", "ID_TYPE=String", "-lco", "COORDINATE_PRECISION=17", back, gpkg)
        with open(back, "rb") as file:
            answer = json.loads(http("/v1/annotations/import", file.read()))
    statuses = {result["status"] for result in answer["results"]}
    check("export → GeoPackage → GeoJSON imports back unchanged (ogr2ogr, ID_FIELD=id, COORDINATE_PRECISION=17)",
          statuses == {"unchanged"} and len(answer["results"]) == total, f"{answer['created']} created, {answer['updated']} updated, {answer['unchanged']} unchanged")
    check("…and the next export is the same bytes", http("/v1/annotations/export") == first)

    metadata = "/vsicurl/" + URL + "/tiles/clusters.json"
    counted = 0
    fields = {}
    for layer in ("clusters", "annotations"):
        text = run("ogr2ogr", "-f", "GeoJSON", "/vsistdout/", f"MVT:{URL}/v1/tiles/clusters/1", "-oo", "TILE_EXTENSION=mvt",
                   "-oo", f"METADATA_FILE={metadata}", layer)
        collection = json.loads(text) if text.strip() else {"features": []}
        counted += sum(feature["properties"]["count"] for feature in collection["features"])
        summary = run("ogrinfo", "-ro", "-so", f"MVT:{URL}/v1/tiles/clusters/1", "-oo", "TILE_EXTENSION=mvt", "-oo", f"METADATA_FILE={metadata}", layer)
        fields[layer] = set(re.findall(r"^(\w+): ", summary, re.M))
    check("cluster tiles of zoom 1 as GDAL layers (METADATA_FILE=TileJSON): counts sum to every annotation", counted == total, f"{counted} vs {total}")
    info = json.loads(http("/tiles/clusters.json"))
    declared = {layer["id"]: set(layer["fields"]) for layer in info["vector_layers"]}
    check("GDAL's layer fields are the TileJSON's vector_layers", all(declared[name] <= fields[name] for name in declared), f"{fields} vs {declared}")
    print(f"gdal: {len(failures)} failed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
