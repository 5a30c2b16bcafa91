# Eddy — two commands do everything on a fresh Debian machine:
#   make run    install what is missing, build, replay a fixture flight with a readable report
#   make test   install what is missing, build, run every test and oracle check
SHELL := /bin/bash
.DEFAULT_GOAL := run

# Chromium runs the pictures' browser test (scripts/map_browser_check.py, docs/maps.md). Opting out of that test with
# `make test EDDY_SKIP_BROWSER_TESTS=1` also skips installing it; the check then says it skipped.
EDDY_SKIP_BROWSER_TESTS ?= 0
export EDDY_SKIP_BROWSER_TESTS
BROWSER_PACKAGES := $(if $(filter 1,$(EDDY_SKIP_BROWSER_TESTS)),,chromium)
# What `make run` needs to build and run `eddy` (SQLite, libcurl, zlib headers and pkg-config), nothing more.
RUN_APT_PACKAGES := libsqlite3-dev libcurl4-openssl-dev pkg-config zlib1g-dev
# postgresql: the throw-away cluster (scripts/pg_cluster.sh) the server tests and `eddy-bench sync` run PostgreSQL on;
# proj-data (the geoid oracle's grids) and openssl (test certificates) are for `make test` too; so is ecCodes: the
# server's GRIB2 forecast reader links libeccodes-dev, and libeccodes-tools (grib_filter, grib_get_data) writes the
# forecast fixtures and is the tests' oracle. `make run` builds only `eddy`, which links neither.
APT_PACKAGES := $(RUN_APT_PACKAGES) proj-data openssl postgresql libeccodes-dev libeccodes-tools $(BROWSER_PACKAGES)
# Only for `make test` (the operations checks, docs/fleet-server.md "Operations"): promtool (Debian ships it in
# prometheus) and systemd-analyze, installed without their recommended packages.
OPS_APT_PACKAGES := prometheus systemd
VENV := .venv
PYTHON := $(VENV)/bin/python
# Trait Tools brings the command line's and the server's dependencies (Package.swift): off for host apps, on here.
SWIFT_BUILD_FLAGS ?= --traits LibcurlTransport,Tools
RUN_FLIGHT ?= Fixtures/flights/sim-medium-mixed

.PHONY: run test deps apt apt-run apt-ops venv venv-ops build build-release test-unit test-oracles test-docs test-crash-cycles crash-cycles test-soak soak test-limits bench clean fixtures campaign-flight-levels campaign-handling campaign-manoeuvres test-mutate-replay mutate-replay fuzz fuzz-build test-fuzz fuzz-corpus test-sanitize test-tsan test-asan \
        test-ops test-monitoring test-packaging test-pitr test-operator-smoke test-operator

## deps: system packages and the Python oracle venv, installed only when missing
deps: apt venv

# $(call apt_install,PACKAGES,APT-GET-INSTALL-FLAGS): installs those of PACKAGES that dpkg does not know.
define apt_install
	@missing=""; for p in $(1); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "Installing system packages:$$missing"; \
	  SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $(2) $$missing; \
	fi
endef

apt:
	$(call apt_install,$(APT_PACKAGES),)

apt-run:
	$(call apt_install,$(RUN_APT_PACKAGES),)

apt-ops:
	$(call apt_install,$(OPS_APT_PACKAGES),--no-install-recommends)

venv: $(VENV)/.installed

$(VENV)/.installed: requirements-oracles.txt
	python3 -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --disable-pip-version-check -r requirements-oracles.txt
	touch $@

## venv-ops: the Dockerfile parser, hadolint and Grafana's dashboard models (requirements-ops.txt) in the same venv;
## `make test` only
venv-ops: $(VENV)/.ops-installed

$(VENV)/.ops-installed: requirements-ops.txt $(VENV)/.installed
	$(VENV)/bin/pip install --quiet --disable-pip-version-check -r requirements-ops.txt
	touch $@

build: apt
	swift build $(SWIFT_BUILD_FLAGS)

build-release: apt
	swift build -c release $(SWIFT_BUILD_FLAGS)

## run: the main job — a flight replayed through the engine with a readable report. Installs only what `eddy` needs
## and builds only `eddy` (no server, bench, oracles, PostgreSQL or browser: `make test` installs and builds those).
run: apt-run
	swift build -c release --product eddy $(SWIFT_BUILD_FLAGS)
	.build/release/eddy replay $(RUN_FLIGHT)
	@echo
	@echo "== the same flight through the whole engine (EddyEngine): delegate timeline =="
	.build/release/eddy replay $(RUN_FLIGHT) --engine

## test: every unit/end-to-end test, then the outside-oracle checks
test: deps test-unit test-oracles test-docs test-crash-cycles test-soak test-ops test-mutate-replay test-fuzz

## The server suites run on SQLite and on a throw-away PostgreSQL cluster (docs/fleet-server.md), destroyed afterwards
## whatever the tests' outcome.
test-unit: apt apt-ops
	swift build --build-tests $(SWIFT_BUILD_FLAGS)
	@trap 'bash scripts/pg_cluster.sh destroy' EXIT; \
	url="$$(EDDY_PG_FAST=1 bash scripts/pg_cluster.sh start)" || exit 1; \
	echo "PostgreSQL test cluster: $$url"; \
	EDDY_TEST_POSTGRES_URL="$$url" swift test --skip-build $(SWIFT_BUILD_FLAGS)

## test-oracles: slower checks against outside oracles (h3-py live run, ...); CI runs them too.
## They use the debug build that test-unit already made, so CI builds the package only once.
test-oracles: venv build
	$(PYTHON) scripts/h3_live_oracle.py --eddy .build/debug/eddy --points 100000
	$(PYTHON) scripts/jsbsim_oracle.py --eddy .build/debug/eddy --seeds 101,102
	$(PYTHON) scripts/jsbsim_handling_oracle.py --eddy .build/debug/eddy --seeds 201,202,203
	$(PYTHON) scripts/flight_level_oracle.py --eddy .build/debug/eddy
	bash scripts/schemathesis_check.sh .build/debug/eddy-server
	@trap 'EDDY_PG_DIR=.build/pg-schemathesis bash scripts/pg_cluster.sh destroy' EXIT; \
	url="$$(EDDY_PG_DIR=.build/pg-schemathesis EDDY_PG_FAST=1 bash scripts/pg_cluster.sh start)" || exit 1; \
	EDDY_SERVER_DATABASE="$$url" bash scripts/schemathesis_check.sh .build/debug/eddy-server && \
	EDDY_TEST_POSTGRES_URL="$$url" $(PYTHON) scripts/scale_out_check.py --server .build/debug/eddy-server
	$(PYTHON) scripts/geoid_oracle.py --eddy .build/debug/eddy --points 10000
	$(PYTHON) scripts/terrain_oracle.py --eddy .build/debug/eddy --points 100000
	$(PYTHON) scripts/map_browser_check.py --eddy .build/debug/eddy --server .build/debug/eddy-server

## test-docs: the DocC catalog of `Eddy` (Sources/Eddy/Eddy.docc) builds with swift-docc-plugin, every link resolving;
## the getting-started article's code is compiled and run by the EddyDocSnippetTests target (test-unit). With the
## same traits as the build, so that the plugin's build reuses it instead of rebuilding every module.
test-docs: apt
	swift package $(SWIFT_BUILD_FLAGS) generate-documentation --target Eddy --warnings-as-errors

## campaign-flight-levels: the whole airliner flight-level campaign (issue 28: ten JSBSim 737 flights at latitudes 10–60°,
## ISA −12…+15 °C, east- and westbound with a step climb, each replayed without hints, with the ISA deviation and with the
## cleared levels; docs/altitude.md "Airliner oracle"). `make test-oracles` runs two of them.
campaign-flight-levels: venv build
	$(PYTHON) scripts/flight_level_oracle.py --eddy .build/debug/eddy --full

## campaign-handling: the full handling campaign (100 seeds × slow / fast pick-up / slide × gyro or not × rattling
## cradle or not, docs/detection.md §2); prints latency and measured-while-handled figures. The default suite runs 4 seeds.
campaign-handling: apt
	swift build --build-tests $(SWIFT_BUILD_FLAGS)
	EDDY_HANDLING_CAMPAIGN=100 swift test --skip-build $(SWIFT_BUILD_FLAGS) --filter HandlingCampaignTests/campaign

## campaign-manoeuvres: the manoeuvre campaign (docs/detection.md §5) with more flights than the default test's 100
MANOEUVRE_FLIGHTS ?= 1000
campaign-manoeuvres: apt
	swift build --build-tests $(SWIFT_BUILD_FLAGS)
	EDDY_MANOEUVRE_FLIGHTS=$(MANOEUVRE_FLIGHTS) swift test --skip-build $(SWIFT_BUILD_FLAGS) --filter 'ManoeuvreTests/campaignInSmoothAir'

## test-crash-cycles: the crash-cycle smoke (docs/reliability.md): a 20-minute flight, 5 engine SIGKILLs with resume and
## 5 server SIGKILLs, compared with an uninterrupted run (≈ 30 s; Python standard library only)
test-crash-cycles: build
	python3 scripts/crash_cycles.py --eddy .build/debug/eddy --server .build/debug/eddy-server --minutes 20 \
	  --engine-cycles 5 --server-cycles 5

## test-sanitize: the whole unit suite under ThreadSanitizer and under AddressSanitizer (docs/reliability.md §10), each in
## its own scratch path (.build/tsan, .build/asan) so the normal .build/debug is untouched. Every process of the run (the
## test bundle and each eddy / eddy-server it starts) writes its reports to .build/sanitizer-reports/{tsan,asan}/report.PID;
## scripts/sanitizers/check_reports.sh prints them and fails the target on any. SANITIZE_FILTER narrows the run
## (a `swift test --filter` regex; empty = every test). Suppressions for findings outside our code, with their reasons,
## are in scripts/sanitizers/.
SANITIZE_FILTER ?=
SANITIZE_FILTER_FLAG := $(if $(SANITIZE_FILTER),--filter '$(SANITIZE_FILTER)',)
TSAN_REPORTS := $(CURDIR)/.build/sanitizer-reports/tsan
ASAN_REPORTS := $(CURDIR)/.build/sanitizer-reports/asan
TSAN_OPTIONS_EDDY := halt_on_error=0 second_deadlock_stack=1 suppressions=$(CURDIR)/scripts/sanitizers/tsan-suppressions.txt log_path=$(TSAN_REPORTS)/report
ASAN_OPTIONS_EDDY := halt_on_error=1 detect_leaks=1 detect_stack_use_after_return=0 log_path=$(ASAN_REPORTS)/report
LSAN_OPTIONS_EDDY := suppressions=$(CURDIR)/scripts/sanitizers/lsan-suppressions.txt
test-sanitize: test-tsan test-asan

## Like test-unit, each run gets its own throw-away PostgreSQL cluster (.build/pg-tsan, .build/pg-asan), so the server
## suites run on both backends; EDDY_SANITIZER_RUN=1 gates the few tests about speed rather than behaviour (§10).
test-tsan: apt
	swift build --build-tests --sanitize=thread --scratch-path .build/tsan $(SWIFT_BUILD_FLAGS)
	@trap 'EDDY_PG_DIR=.build/pg-tsan bash scripts/pg_cluster.sh destroy' EXIT; \
	url="$$(EDDY_PG_DIR=.build/pg-tsan EDDY_PG_FAST=1 bash scripts/pg_cluster.sh start)" || exit 1; \
	echo "PostgreSQL test cluster: $$url"; \
	rm -rf "$(TSAN_REPORTS)"; mkdir -p "$(TSAN_REPORTS)"; \
	EDDY_TEST_POSTGRES_URL="$$url" EDDY_SANITIZER_RUN=1 TSAN_OPTIONS="$(TSAN_OPTIONS_EDDY)" \
	  swift test --skip-build --sanitize=thread --scratch-path .build/tsan $(SWIFT_BUILD_FLAGS) $(SANITIZE_FILTER_FLAG); \
	bash scripts/sanitizers/check_reports.sh "$(TSAN_REPORTS)" $$?

test-asan: apt
	swift build --build-tests --sanitize=address --scratch-path .build/asan $(SWIFT_BUILD_FLAGS)
	@trap 'EDDY_PG_DIR=.build/pg-asan bash scripts/pg_cluster.sh destroy' EXIT; \
	url="$$(EDDY_PG_DIR=.build/pg-asan EDDY_PG_FAST=1 bash scripts/pg_cluster.sh start)" || exit 1; \
	echo "PostgreSQL test cluster: $$url"; \
	rm -rf "$(ASAN_REPORTS)"; mkdir -p "$(ASAN_REPORTS)"; \
	EDDY_TEST_POSTGRES_URL="$$url" EDDY_SANITIZER_RUN=1 ASAN_OPTIONS="$(ASAN_OPTIONS_EDDY)" LSAN_OPTIONS="$(LSAN_OPTIONS_EDDY)" \
	  swift test --skip-build --sanitize=address --scratch-path .build/asan $(SWIFT_BUILD_FLAGS) $(SANITIZE_FILTER_FLAG); \
	bash scripts/sanitizers/check_reports.sh "$(ASAN_REPORTS)" $$?

## test-ops: the operations checks of issue 30 (docs/fleet-server.md "Operations: …" sections), each also a target of
## its own:
##   test-monitoring      promtool check config / test rules on deploy/prometheus; the Grafana dashboard loaded into
##                        Grafana's typed models, its expressions parsed by promtool and their metric names compared
##                        with a real scrape (≈ 10 s)
##   test-packaging       deploy/docker/Dockerfile through BuildKit's parser and hadolint, deploy/systemd's unit through
##                        systemd-analyze verify and security (≈ 10 s; neither is built nor started here)
##   test-pitr            pg_dump/pg_restore and a point-in-time recovery tried on a throw-away cluster (≈ 40 s)
##   test-operator-smoke  the fault campaign's short run (≈ 2 min)
## Together about 3 minutes of `make test` (measured on the 2 shared cores), plus the venv's three packages once.
test-ops: test-monitoring test-packaging test-pitr test-operator-smoke

test-monitoring: apt-ops venv-ops build
	$(PYTHON) scripts/check_monitoring.py --server .build/debug/eddy-server

test-packaging: apt-ops venv-ops build
	$(PYTHON) scripts/check_packaging.py --server .build/debug/eddy-server

test-pitr: apt build
	bash scripts/pg_pitr_check.sh .build/debug/eddy-server

test-operator-smoke: apt build
	python3 scripts/operator_campaign.py --smoke --server .build/debug/eddy-server

## test-operator: issue 30's whole fault campaign on a release eddy-server (PostgreSQL stopped fast and immediate twice
## each, 7 server SIGKILLs, 1,001 half-open connections, 4 global fetches over 758,000 reports, a full disk; ≈ 10 min)
test-operator: apt
	swift build -c release --product eddy-server $(SWIFT_BUILD_FLAGS)
	python3 scripts/operator_campaign.py --server .build/release/eddy-server

## crash-cycles: issue 15's acceptance run: a 2-hour flight, 200 engine SIGKILLs with resume, 200 server SIGKILLs
CRASH_ENGINE_CYCLES ?= 200
CRASH_SERVER_CYCLES ?= 200
crash-cycles: build
	python3 scripts/crash_cycles.py --eddy .build/debug/eddy --server .build/debug/eddy-server --minutes 120 \
	  --engine-cycles $(CRASH_ENGINE_CYCLES) --server-cycles $(CRASH_SERVER_CYCLES)

## test-soak: the soak smoke (docs/reliability.md "Soak"): 3 aircraft x 10 min at 10x real time against one server,
## with the same fault schedule as `make soak` compressed to it (≈ 2 min; Python standard library only)
test-soak: build
	python3 scripts/soak.py --eddy .build/debug/eddy --server .build/debug/eddy-server --aircraft 3 --minutes 10 \
	  --speed 10 --mark-minutes 2

## soak: issue 15's soak: 10 aircraft x 2 h at 10x real time (≈ 15 min), faults injected; RSS, reports, callbacks
SOAK_AIRCRAFT ?= 10
SOAK_MINUTES ?= 120
soak: build
	python3 scripts/soak.py --eddy .build/debug/eddy --server .build/debug/eddy-server --aircraft $(SOAK_AIRCRAFT) \
	  --minutes $(SOAK_MINUTES) --speed 10

## test-limits: the heavy limits (docs/reliability.md "Limits"): 10^6 tile crossings into the outbox, a 1 MB line,
## a 100 MB body, 10,000 concurrent requests, a 2 GB log through a FIFO; bounded memory and a clear answer each
test-limits: apt
	swift build --build-tests $(SWIFT_BUILD_FLAGS)
	EDDY_LIMITS_TILES=1000000 swift test --skip-build $(SWIFT_BUILD_FLAGS) --filter MillionTilesTests
	python3 scripts/limits.py --eddy .build/debug/eddy --server .build/debug/eddy-server

## test-mutate-replay: 30 s of black-box mutation of `eddy replay` over the fixture flights (docs/reliability.md,
## "Mutation"); fails on a signal death, an undocumented exit code or a hang. Python standard library only.
test-mutate-replay: build
	python3 scripts/mutate_replay.py --eddy .build/debug/eddy --seconds 30 --seed $$(date +%s)

## mutate-replay: issue 15's acceptance run (MUTATE_MINUTES, default 60); findings saved under mutate-crashes/
MUTATE_MINUTES ?= 60
MUTATE_SEED ?= 1
mutate-replay: build
	python3 scripts/mutate_replay.py --eddy .build/debug/eddy --minutes $(MUTATE_MINUTES) --seed $(MUTATE_SEED)

## fuzz: every libFuzzer target for FUZZ_SECONDS each (default 60), or to FUZZ_RUNS executions each (libFuzzer -runs;
## no time limit unless FUZZ_SECONDS is given too), FUZZ_JOBS targets at a time (default 1); prints executions, exec/s,
## wall seconds and crashes per target and a final table (docs/reliability.md, "Fuzzing"). The targets exist only with
## EDDY_FUZZ=1 (Package.swift), built in .build-fuzz with ASan. The issue-15 run: make fuzz FUZZ_RUNS=10000000 FUZZ_JOBS=2
FUZZ_SECONDS ?=
FUZZ_RUNS ?=
FUZZ_JOBS ?= 1
FUZZ_TARGETS ?= csv meta import request response h3 cli hgt
fuzz-build: apt
	EDDY_FUZZ=1 swift build -c release --scratch-path .build-fuzz --product eddy-fuzz \
	  -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library
fuzz: fuzz-build
	FUZZ_RUNS=$(FUZZ_RUNS) FUZZ_JOBS=$(FUZZ_JOBS) \
	  bash scripts/run_fuzzers.sh $(or $(FUZZ_SECONDS),$(if $(FUZZ_RUNS),0,60)) $(FUZZ_TARGETS)

## test-fuzz: the smoke: each target 5 s, or 30 s when CI=true or EDDY_FUZZ_SMOKE=1
FUZZ_SMOKE_SECONDS := $(if $(filter true,$(CI))$(filter 1,$(EDDY_FUZZ_SMOKE)),30,5)
test-fuzz: fuzz-build
	FUZZ_RUNS= FUZZ_JOBS=1 bash scripts/run_fuzzers.sh $(FUZZ_SMOKE_SECONDS) $(FUZZ_TARGETS)

## fuzz-corpus: rewrite the committed seed corpora Fuzz/corpus/<target> from the fixtures
fuzz-corpus:
	python3 scripts/make_fuzz_corpus.py

## bench: release-build benchmarks (figures printed; never timed unit tests)
bench: apt build-release
	.build/release/eddy-bench all

## fixtures: regenerate committed fixtures (simulated and JSBSim flights, H3 vectors, forecast grids, pilot reports,
## P.835 atmospheres, import formats), the EGM96 table and the basemap (each script is deterministic: a re-run changes no byte)
fixtures: venv build-release
	$(PYTHON) scripts/make_basemap.py --out Sources/EddyMap/BasemapData.swift
	$(PYTHON) scripts/make_h3_vectors.py --out Fixtures/h3
	$(PYTHON) scripts/make_geoid_table.py --gtx /usr/share/proj/egm96_15.gtx --out Sources/EddyGeoid/EGM96Grid.swift
	bash scripts/make_flight_fixtures.sh
	bash scripts/make_forecast_fixtures.sh
	$(PYTHON) scripts/make_pirep_fixtures.py
	$(PYTHON) scripts/make_p835_fixture.py
	python3 scripts/make-import-fixtures.py

clean:
	rm -rf .build
