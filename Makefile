# Build, run and test the provider directory service. Every target works on a fresh checkout with
# nothing beside it; `make help` lists them.

SHELL      := /bin/bash
GO         ?= go
# Every build, test and benchmark compiles Go only: the binaries are static and run in a scratch
# container, and Pebble's zstd is its pure-Go implementation (klauspost/compress), not a C
# library through cgo. `make ... CGO_ENABLED=1` builds with cgo.
export CGO_ENABLED := 0
# Outside a git checkout COMMIT is empty and the binaries report their commit as unknown.
COMMIT     := $(shell git rev-parse --short=7 HEAD 2>/dev/null)
LDFLAGS    := -X providerdir/internal/buildinfo.Commit=$(COMMIT)
BIN        := bin
# The reference files (Census, NUCC, ...) are built into the binaries; REFERENCE=DIR reads a
# directory of newer releases instead.
REFERENCE  ?=
REFERENCE_FLAG := $(if $(REFERENCE),--reference $(REFERENCE))
DEMO_DIR   ?= data/demo
DEMO_STORE ?= embedded:data/db
DEMO_SEED  ?= 20250608
PROVIDERS  ?= 2000
ADDR       ?= 127.0.0.1:8080
METRICS_ADDR ?= 127.0.0.1:9090
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2
REDOCLY     := @redocly/cli@2.77.0

.PHONY: help build run demo-data test test-go fhirjs mcpinspector mongotest-build lint fuzz bench bench-1m bench-quick bench-go pgo clean

help:
	@echo "make run    build, generate and ingest the demo data, serve on http://$(ADDR)"
	@echo "make test   run every test (starts its own MongoDB-protocol server for the mongo backend)"
	@echo "make lint   gofmt, go vet, staticcheck, the OpenAPI document (Redocly, with npm)"
	@echo "make fuzz   every fuzz target for FUZZTIME each (default 10s); FUZZ=regexp picks targets"
	@echo "make bench  load a 1-million-provider snapshot over loopback and rewrite docs/BENCHMARKS.md"
	@echo "make bench-1m  the 1,000,000-provider figures alone: the page keeps its national and MongoDB rows, each with its date"
	@echo "make bench-quick  the same at 100,000 providers, printed only, to check a change"
	@echo "make bench-go  Go benchmarks of the hot paths"
	@echo "make build  build bin/providerd, bin/providerctl and bin/provider-mcp"
	@echo "make pgo    profile a 2-million-provider ingest for the builds' profile-guided optimization"

build:
	@echo "building $(BIN)/providerd, $(BIN)/providerctl and $(BIN)/provider-mcp (a first build compiles every dependency: a few minutes)"
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN)/ ./cmd/...

# The demo drop is generated once; delete data/ to start over.
demo-data: build
	@if [ ! -f $(DEMO_DIR)/manifest.json ]; then \
		$(BIN)/providerctl generate --providers $(PROVIDERS) --seed $(DEMO_SEED) $(REFERENCE_FLAG) --out $(DEMO_DIR); \
	fi
	$(BIN)/providerctl ingest --store $(DEMO_STORE) $(REFERENCE_FLAG) $(DEMO_DIR)

# The demo admits webhook and FHIR subscription receivers on 127.0.0.1 (providerctl
# webhook-listen on RECEIVER_PORT) only with its embedded store on a loopback ADDR.
RECEIVER_PORT ?= 8099
DEMO_LOOPBACK := $(and $(filter embedded:%,$(DEMO_STORE)),$(filter 127.% localhost:% [::1]:%,$(ADDR)))
run: demo-data
	@$(BIN)/providerctl demo --store $(DEMO_STORE) --base-url http://$(ADDR) $(if $(METRICS_ADDR),--metrics-url http://$(METRICS_ADDR)) $(if $(DEMO_LOOPBACK),--receiver-port $(RECEIVER_PORT))
	$(BIN)/providerd --addr $(ADDR) --metrics-addr $(METRICS_ADDR) --store $(DEMO_STORE) $(REFERENCE_FLAG) --log-format text $(if $(DEMO_LOOPBACK),--webhook-allow-loopback)

# The mongo backend's suite needs a MongoDB-protocol server: scripts/mongotest.sh starts FerretDB
# on a private PostgreSQL unless MONGODB_URI already names a server. What the tests need is
# installed and built side by side (npm packages download while FerretDB compiles) before the
# server starts.
test:
	@start=$$(date +%s); $(MAKE) --no-print-directory -j3 fhirjs mcpinspector mongotest-build && \
		bash scripts/with-mongotest.sh $(MAKE) --no-print-directory test-go; status=$$?; \
		wall=$$(($$(date +%s) - start)); printf 'make test wall time: %dm%02ds\n' $$((wall / 60)) $$((wall % 60)); exit $$status

# PostgreSQL and FerretDB for scripts/with-mongotest.sh, unless MONGODB_URI names a server.
mongotest-build:
	@if [ -z "$${MONGODB_URI:-}" ]; then bash scripts/mongotest.sh build; fi

# The conformance suite also validates every FHIR resource it is served with the npm fhir package
# (R4 schema and FHIRPath checks written elsewhere), installed once under .cache when npm is there.
FHIRJS     := .cache/fhirjs
FHIRJS_PKG := fhir@4.12.0
fhirjs:
	@if [ ! -d $(FHIRJS)/node_modules/fhir ] && command -v npm >/dev/null; then \
		npm install --prefix $(FHIRJS) --no-audit --no-fund $(FHIRJS_PKG) >/dev/null; \
	fi

# provider-mcp's tests also drive it with the MCP Inspector's CLI mode (npm
# @modelcontextprotocol/inspector), installed once under .cache when npm is there.
MCPINSPECTOR     := .cache/mcpinspector
MCPINSPECTOR_PKG := @modelcontextprotocol/inspector@2.12.0
mcpinspector:
	@if [ ! -x $(MCPINSPECTOR)/node_modules/.bin/mcp-inspector ] && command -v npm >/dev/null; then \
		npm install --prefix $(MCPINSPECTOR) --no-audit --no-fund $(MCPINSPECTOR_PKG) >/dev/null; \
	fi

# The mongo backend's suite takes a minute or more on FerretDB, hence the long timeout. go test
# starts packages in the order they are named, as many at a time as there are cores: the slow ones
# (SLOW_PACKAGES, longest first, as listed at the end of a run) go first, so that the run ends on
# short packages instead of leaving one long one running alone while the other core idles.
# scripts/gotest.sh ends with the slowest packages and the run's wall time.
SLOW_PACKAGES := ./store/mongo ./web ./fhir ./cmd/providerctl ./ingest ./webhook ./store/remote ./store/embedded ./quota ./internal/httpserver
test-go:
	PROVIDERDIR_FHIR_JS=$$([ -d $(FHIRJS)/node_modules/fhir ] && echo $(CURDIR)/$(FHIRJS)) \
	PROVIDERDIR_MCP_INSPECTOR=$(CURDIR)/$(MCPINSPECTOR) GO=$(GO) bash scripts/gotest.sh -count=1 -timeout 30m $(SLOW_PACKAGES) ./...

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) run $(STATICCHECK) ./...
	npm exec --yes --package=$(REDOCLY) -- redocly lint --config redocly.yaml --format=stylish rest/supply/openapi.json

# Every parser and validator of outside input has a fuzz target; make test runs their seed
# corpora, this searches beyond them (scripts/fuzz.sh).
fuzz:
	@GO=$(GO) bash scripts/fuzz.sh

# The load harness (scripts/bench.sh) drives a real providerd over loopback at fixed offered rates,
# each figure beside a ceiling measured in the same run. bench-quick checks a change on a cached
# 100,000-provider store; bench times a fresh ingest of a cached 1,000,000-provider drop, one of a
# cached national (9,000,000-provider) drop and one of that drop's NPPES files alone, then the
# load, and rewrites docs/BENCHMARKS.md. bench-1m measures the 1,000,000-provider figures alone
# (no national drop, no MongoDB page): the page keeps those rows, and their phase tables, from
# its last run of them, each with that run's date (scripts/benchpage.sh).
bench-quick: build
	@BENCH_COMMIT=$(COMMIT) BENCH_PROVIDERS=100000 BENCH_RATES=250,1000 BENCH_DURATION=2s BENCH_WARMUP=1s BENCH_WEBHOOK_EVENTS=20000 BENCH_MONGO=0 bash scripts/bench.sh

BENCH_1M := BENCH_COMMIT=$(COMMIT) BENCH_PROVIDERS=1000000 BENCH_RATES=500,1000,1500,2000 BENCH_DURATION=8s BENCH_WARMUP=2s BENCH_INGEST=always BENCH_DOCS=docs/BENCHMARKS.md
bench: build
	@$(BENCH_1M) BENCH_NATIONAL=9000000 bash scripts/bench.sh

bench-1m: build
	@$(BENCH_1M) BENCH_MONGO=0 bash scripts/bench.sh

# FerretDB is orders of magnitude slower than the embedded store, so the mongo backend's
# benchmarks run fewer iterations and skip the prefix scan.
bench-go:
	$(GO) test -run '^$$' -bench . -benchtime 2000x ./store/embedded/ ./source/... ./smart/ ./fhir/ ./rest/...
	@bash scripts/with-mongotest.sh $(GO) test -run '^$$' -bench . -benchtime 20x -skip 'BenchmarkStore/FindPrefix' ./store/mongo/

# providerctl and providerd are built with profile-guided optimization from
# cmd/providerctl/default.pgo (cmd/providerd's is a link to it): the CPU profile of an ingest of
# 2 million synthetic providers, whose hot paths (mapping, the FHIR builders, the bulk loads) a
# national ingest spends its time in. Refresh it after changing them. The drop is generated
# under data/pgo once (about 2.5 GB), before the profiled run.
pgo: build
	@if [ ! -f data/pgo/drop/manifest.json ]; then \
		$(BIN)/providerctl generate --providers 2000000 --seed 1 $(REFERENCE_FLAG) --out data/pgo/drop; \
	fi
	PROVIDERDIR_INGEST_SCALE=2000000 PROVIDERDIR_SCALE_DIR=$(CURDIR)/data/pgo $(GO) test -count=1 -timeout 60m \
		-run TestIngestAtScale -cpuprofile $(CURDIR)/data/pgo/ingest.pprof -o $(CURDIR)/data/pgo/ingest.test ./ingest/
	mv data/pgo/ingest.pprof cmd/providerctl/default.pgo
	rm -rf data/pgo/db

clean:
	rm -rf $(BIN) data
