"""What the contract's formats mean, for schemathesis (loaded through SCHEMATHESIS_HOOKS).

`proj-crs` names a coordinate reference system PROJ knows; which names those are is PROJ's
database's business, which JSON Schema cannot state. Valid examples are drawn from horizontal
CRSs that PROJ transforms between (geographic, Web Mercator, UTM, national grids), written the
three ways the server reads: an authority code, a PROJ string and a WKT definition.
"""
from hypothesis import strategies as st
import schemathesis

CODES = ["EPSG:4326", "EPSG:4258", "EPSG:3857", "EPSG:32633", "EPSG:32654", "EPSG:27700", "EPSG:2154",
         "EPSG:6677", "EPSG:3035", "EPSG:28992", "OGC:CRS84"]
PROJ_STRINGS = ["+proj=longlat +datum=WGS84 +no_defs +type=crs", "+proj=merc +datum=WGS84 +type=crs",
                "+proj=utm +zone=31 +datum=WGS84 +type=crs"]
WKT = ['GEOGCRS["WGS 84",DATUM["World Geodetic System 1984",ELLIPSOID["WGS 84",6378137,298.257223563]],'
       'CS[ellipsoidal,2],AXIS["latitude",north],AXIS["longitude",east],ANGLEUNIT["degree",0.0174532925199433]]']

schemathesis.openapi.format("proj-crs", st.sampled_from(CODES + PROJ_STRINGS + WKT))

# A webhook's URL must resolve to an address the server may reach, which JSON Schema cannot state
# (and a random host name would send DNS queries off the machine). The fuzzing server allows
# loopback (MERIDIAN_WEBHOOK_ALLOW_CIDR in scripts/contract-fuzz.sh), so every URL of a valid length
# becomes one on the discard port of 127.0.0.1, where nothing listens: sends fail at once, locally.
# `subscriptionIds` must name existing subscriptions, so a list of strings becomes the empty one.
# `before_call` runs in every phase (examples, coverage, fuzzing), and schemathesis classifies the
# case again after it, so a case made valid here is judged as valid.
FUZZ_WEBHOOK_URL = "http://127.0.0.1:9/meridian-fuzz"
WEBHOOK_WRITES = {("POST", "/v1/webhooks"), ("PATCH", "/v1/webhooks/{webhookId}")}


@schemathesis.hook
def before_call(context, case, kwargs):
    body = case.body
    if (case.operation.method.upper(), case.operation.path) not in WEBHOOK_WRITES or not isinstance(body, dict):
        return
    url = body.get("url")
    if isinstance(url, str) and 1 <= len(url) <= 2048:
        body["url"] = FUZZ_WEBHOOK_URL
    ids = body.get("subscriptionIds")
    if isinstance(ids, list) and len(ids) <= 1000 and all(isinstance(i, str) for i in ids):
        body["subscriptionIds"] = []
