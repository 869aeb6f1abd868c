#!/usr/bin/env python3
"""Deterministic data sets for `make bench-thinning` (issue 5), as little-endian float64
(longitude, latitude) pairs, plus datasets.json naming each set's city-view centre.

- uniform:    1 000 000 points uniform in Mercator x and y (the map, not the sphere)
- cities:     1 000 000 points in gaussian blobs around the GeoNames cities of Data/cities.geojson,
              cities drawn by population, sigma 0.02–0.2 degrees
- fiji:       10 000 points around Fiji, across the 180th meridian
- coincident: 10 000 points of which 5 000 share one coordinate
"""
import json
import math
import sys
from pathlib import Path

import numpy as np

W = 2.0 ** 28


def mercator_to_lonlat(x, y):
    lon = x / W * 360.0 - 180.0
    lat = np.degrees(np.arctan(np.sinh(np.pi * (1.0 - 2.0 * y / W))))
    return lon, lat


def wrap(lon):
    return (lon + 180.0) % 360.0 - 180.0


def main(out: Path, cities_file: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(20261123)
    sets = {}

    x = rng.uniform(0, W, 1_000_000)
    y = rng.uniform(0, W, 1_000_000)
    sets["uniform"] = (*mercator_to_lonlat(x, y), (48.8566, 2.3522))

    features = json.loads(cities_file.read_text())["features"]
    lons = np.array([f["geometry"]["coordinates"][0] for f in features])
    lats = np.array([f["geometry"]["coordinates"][1] for f in features])
    population = np.array([f["properties"]["properties"].get("population", 15000) for f in features], dtype=float)
    picks = rng.choice(len(features), size=1_000_000, p=population / population.sum())
    sigma = rng.uniform(0.02, 0.2, 1_000_000)
    lon = wrap(lons[picks] + rng.normal(0, 1, 1_000_000) * sigma)
    lat = np.clip(lats[picks] + rng.normal(0, 1, 1_000_000) * sigma, -85, 85)
    biggest = int(np.argmax(population))
    sets["cities"] = (lon, lat, (float(lats[biggest]), float(lons[biggest])))

    lon = wrap(179.5 + rng.normal(0, 1.2, 10_000))
    lat = -17.5 + rng.normal(0, 0.8, 10_000)
    sets["fiji"] = (lon, lat, (-17.8, 180.0))

    lon = np.concatenate([np.full(5_000, 13.4050), 13.4050 + rng.normal(0, 0.05, 5_000)])
    lat = np.concatenate([np.full(5_000, 52.5200), 52.5200 + rng.normal(0, 0.03, 5_000)])
    sets["coincident"] = (lon, lat, (52.52, 13.405))

    manifest = []
    for name, (lon, lat, centre) in sets.items():
        pairs = np.empty((len(lon), 2), dtype="<f8")
        pairs[:, 0] = lon
        pairs[:, 1] = lat
        pairs.tofile(out / f"{name}.f64")
        manifest.append({"name": name, "count": len(lon), "city": {"latitude": centre[0], "longitude": centre[1]}})
    (out / "datasets.json").write_text(json.dumps(manifest, indent=1))
    listed = ", ".join("%s (%d)" % (m["name"], m["count"]) for m in manifest)
    print(f"wrote {listed} to {out}")


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
