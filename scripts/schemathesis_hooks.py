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
