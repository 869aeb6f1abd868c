"""OGC API – Features clients nobody on the project wrote, against a live server with API keys:

- GDAL 3.6's OAPIF driver (Debian's gdal-bin), the key in GDAL_HTTP_HEADERS: `ogrinfo OAPIF:…/ogc`
  lists the three collections (and nothing without the key); `ogr2ogr` copies `annotations` with a
  `-where` and a `-spat` into a GeoPackage, and its own debug log (CPL_DEBUG) must show both sent to
  the server (`filter=…&filter-lang=cql-text`, `bbox=…`), none evaluated client-side; the copy holds
  as many features as the server counts for the same filter and bbox; `-where "id = '…'"` fetches one item.
- OWSLib (`owslib.ogcapi.features.Features`, the key in `headers=`): landing page, conformance,
  collections, every item paged to the end by the `next` links (as many as the server holds),
  queryables, one item by id.
- The OGC's CQL2 cases (Tests/Fixtures/cql2/cases.json) through
  `/ogc/collections/annotations/items?filter=…` and `POST /v1/annotations/search` on a tenant holding
  only their 243-point layer, in both encodings, counted to the last page (scripts/ogc_cases.py);
  passes per conformance class.

Environment: MERIDIAN_URL (scripts/with-server.sh sets it), MERIDIAN_KEY (a tenant with the demo
cities), MERIDIAN_CQL2_KEY (a tenant with only the 243 points); scripts/ogc-check.sh makes both.
Arguments: the parts to run, any of `gdal owslib cases` (default all). Exits 1 on any failure.
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import urllib.parse
import urllib.request

import ogc_cases

URL = os.environ.get("MERIDIAN_URL", "http://127.0.0.1:8080")
KEY = os.environ["MERIDIAN_KEY"]
CQL2_KEY = os.environ["MERIDIAN_CQL2_KEY"]
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CITIES = os.path.join(ROOT, "Data", "cities.geojson")
CASES = os.path.join(ROOT, "Tests", "Fixtures", "cql2", "cases.json")
COLLECTIONS = {"annotations", "devices", "regions"}
# The GDAL copy: French cities above 100 000 inhabitants, in a box around France.
WHERE = "countryCode = 'FR' AND population > 100000"
SPAT = ("-5.5", "41", "10", "51.5")
failures = []


def check(name, ok, detail=""):
    print(("ok   " if ok else "FAIL ") + name + ("" if ok else f": {detail}"), flush=True)
    if not ok:
        failures.append(name)
    return ok


def gdal(*args, key=KEY):
    environment = dict(os.environ, CPL_DEBUG="ON")
    if key:
        environment["GDAL_HTTP_HEADERS"] = f"Authorization: Bearer {key}"
    return subprocess.run(args, capture_output=True, text=True, timeout=600, env=environment)


def feature_count(gpkg):
    match = re.search(r"Feature Count: (\d+)", gdal("ogrinfo", "-ro", "-so", gpkg, "annotations", key=None).stdout)
    return int(match.group(1)) if match else None


def check_gdal():
    source = f"OAPIF:{URL}/ogc"
    listed = gdal("ogrinfo", "-ro", "-q", source)
    layers = set(re.findall(r"^\d+: (\S+)", listed.stdout, re.M))
    check("GDAL: ogrinfo OAPIF:…/ogc lists annotations, devices, regions (key in GDAL_HTTP_HEADERS)", layers == COLLECTIONS,
          f"{layers} {listed.stderr[-600:]}")
    refused = gdal("ogrinfo", "-ro", "-q", source, key=None)
    check("GDAL: …and without the key it opens nothing", refused.returncode != 0 and "HTTP error code : 401" in refused.stderr, refused.stderr[-300:])

    expected = ogc_cases.count_ogc(URL, KEY, filter=WHERE, bbox=",".join(SPAT))
    with tempfile.TemporaryDirectory() as folder:
        gpkg = os.path.join(folder, "annotations.gpkg")
        copied = gdal("ogr2ogr", "-f", "GPKG", gpkg, source, "annotations", "-oo", "PAGE_SIZE=1000", "-where", WHERE, "-spat", *SPAT)
        fetched = re.findall(r"HTTP: Fetch\((\S+)\)", copied.stderr)
        # The first page GDAL asks for, unfiltered, is only to learn the layer's fields.
        items = [url for url in fetched if "/ogc/collections/annotations/items?" in url and not url.endswith("/items?limit=1000")]
        pushed = [url for url in items if "filter-lang=cql-text" in url and "filter=" in url and "bbox=" in url]
        check("GDAL: ogr2ogr -where … -spat … sends both to the server (filter=…&filter-lang=cql-text, bbox=…)",
              copied.returncode == 0 and pushed and pushed == items and "CQL text detected" in copied.stderr
              and "evaluated on client side" not in copied.stderr, "\n".join(fetched[-6:]) + copied.stderr[-800:])
        got = feature_count(gpkg)
        check(f"GDAL: the GeoPackage holds what the server counts for the filter and bbox ({expected})", got == expected and expected > 0,
              f"{got} vs {expected}")

        first = ogc_cases.request_json(f"{URL}/ogc/collections/annotations/items?limit=1", KEY)["features"][0]
        one = os.path.join(folder, "one.gpkg")
        copied = gdal("ogr2ogr", "-f", "GPKG", one, source, "annotations", "-where", f"id = '{first['id']}'")
        check("GDAL: -where \"id = '…'\" fetches that one item (…/items/{id})",
              feature_count(one) == 1 and any(url.endswith(f"/items/{first['id']}") for url in re.findall(r"HTTP: Fetch\((\S+)\)", copied.stderr)),
              copied.stderr[-600:])


def check_owslib():
    from owslib.ogcapi.features import Features

    api = Features(f"{URL}/ogc", headers={"Authorization": f"Bearer {KEY}"})
    rels = {link.get("rel") for link in api.links}
    check("OWSLib: landing page links service-desc, conformance, data", {"service-desc", "conformance", "data"} <= rels, rels)
    conforms = api.conformance().get("conformsTo", [])
    check("OWSLib: conformance declares Part 1 core and GeoJSON", any(c.endswith("/conf/core") for c in conforms)
          and any(c.endswith("/conf/geojson") for c in conforms), conforms)
    ids = {collection["id"] for collection in api.collections()["collections"]}
    check("OWSLib: collections are annotations, devices, regions (all itemType feature)", ids == COLLECTIONS
          and set(api.feature_collections()) == COLLECTIONS, ids)

    with open(CITIES, encoding="utf-8") as file:
        total = len(json.load(file)["features"])
    page = api.collection_items("annotations", limit=1000)
    seen, pages = [], 0
    while True:
        pages += 1
        seen += [feature["id"] for feature in page["features"]]
        href = next((link["href"] for link in page.get("links", []) if link.get("rel") == "next"), None)
        if href is None:
            break
        query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(href).query))
        page = api.collection_items("annotations", **query)
    check(f"OWSLib: items paged to the end by the next links ({pages} pages of 1000) hold every annotation once ({total})",
          len(seen) == total == len(set(seen)), f"{len(seen)} ({len(set(seen))} distinct) vs {total}")

    queryables = api.collection_queryables("annotations")
    names = set(queryables.get("properties", {}))
    check("OWSLib: queryables name the built-in fields and the free properties", {"kind", "title", "population", "countryCode"} <= names, names)
    item = api.collection_item("annotations", seen[0])
    check("OWSLib: one item by id", item.get("id") == seen[0] and item["geometry"]["type"] == "Point", item)


def main():
    parts = sys.argv[1:] or ["gdal", "owslib", "cases"]
    for part in parts:
        try:
            if part == "cases":
                ogc_cases.check_cases(URL, CQL2_KEY, CASES, ("/ogc", "/v1"), check)
            else:
                {"gdal": check_gdal, "owslib": check_owslib}[part]()
        except Exception as error:  # a part that cannot run is a failure of that part, and the others still run
            check(f"{part}: runs", False, f"{type(error).__name__}: {error}")
    print(f"ogc: {len(failures)} failed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
