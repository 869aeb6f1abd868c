#!/usr/bin/env python3
"""Cross-checks a running Meridian against independent oracles: pyproj (PROJ) and
geographiclib (Karney), plus the viewport formula of DESIGN.md written out again here; its
webhooks against the standardwebhooks package (a receiver in this script; the server must allow
127.0.0.0/8, e.g. MERIDIAN_WEBHOOK_ALLOW_CIDR=127.0.0.0/8); and its CQL2 annotation filters against
pygeofilter (attributes), shapely (GEOS; spatial predicates) and cql2-rs (CQL2's functions); its cluster vector tiles, decoded
with mapbox-vector-tile, against its thin answers; its thinning's aggregates, weights, maxZoom and deltas against a brute-force reference; its device tracks against geographiclib and shapely's simplify; visits, stops and trips against a reference of the README's rules. One module of scripts/oracles/ per area.

Random cases, seeded (MERIDIAN_SEED, default: random; the seed is printed so a failure can be
replayed). Prints one line per check and a closing 'N passed, N failed' line; exits 1 on failure.
The areas share one seeded generator, so they run in this order, always.
"""
import sys

from oracles.common import N, SEED, URL, tally
from oracles.conversions import conversion_checks
from oracles.cql2_functions import cql2_function_checks
from oracles.crossings import crossing_checks
from oracles.filters import filter_checks
from oracles.fit import fit_checks
from oracles.ingest_filters import ingest_filter_checks
from oracles.stays import stay_checks
from oracles.thinning import thinning_checks
from oracles.tiles import cluster_tile_checks, tile_checks
from oracles.tracking import tracking_checks
from oracles.tracks import track_checks
from oracles.webhooks import webhook_checks


def main():
    """Runs every area in order and prints the tally; 1 if a check failed."""
    print(f"crosscheck against {URL}, seed {SEED}, {N} cases per check")
    conversion_checks()
    fit_checks()
    tile_checks()
    tracking_checks()
    crossing_checks()
    webhook_checks()
    filter_checks()  # with the nearest checks, on the filters' annotations
    cluster_tile_checks()
    cql2_function_checks()  # last to draw from the shared generator: the other areas' cases stay as they were for a seed
    track_checks()  # after them, for the same reason
    stay_checks()  # its own generator; before the ingest filters, which would drop its fixes
    ingest_filter_checks()  # its own generator; after every other area, so its settings filter none of their fixes
    thinning_checks()  # its own generator and kind: aggregates, weights, maxZoom and deltas against a brute-force reference
    print(f"crosscheck: {tally.passed} passed, {tally.failed} failed")
    return 1 if tally.failed else 0


if __name__ == "__main__":
    sys.exit(main())
