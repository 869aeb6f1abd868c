"""The oracles of scripts/crosscheck.py, one module per area of the server it cross-checks.

`common` holds what every area shares (the server's URL, the seeded generator, the pass/fail
tally, HTTP helpers, `map_point`); each other module exposes the `*_checks()` functions that
crosscheck.py calls in order. The areas share one seeded generator, so the order of the calls
(and of the draws inside them) is what makes a seed replay the same cases.
"""
