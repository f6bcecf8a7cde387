# asa: see README.md. `make run` and `make test` install Go and a C compiler first where the machine
# lacks them (.ci/deps, Debian's apt-get); .ci/run installs the rest the suite's tests use.
SHELL := /bin/bash
GO ?= go
CORPUS ?= ../shared/corpus
BIN := bin/asa
GOFLAGS_TEST := -race -shuffle=on -count=1 -timeout 30m
NO_RACE_TESTS := (TestCorpusAll|TestCorpusJSONLDBlocks|TestDecodeFastOnCorpus|TestEquivalentPages|TestSameAsRegexp|TestSplitSameAsRegexp|TestChainSameAsRegexp|TestFastXPathMatchesFull|TestNativeXPathMatchesFull|TestEquivalentCorpus|TestDecodeInternedOnCorpus|TestScanXPathsOnPages|TestElementsPages|TestDirectIsTheVM|TestRuleOrderIsPure|TestProjectionKeepsOutput|TestJSONLDProjectedCorpus|TestScanByLiteralOnPages|TestLazyTreeKeepsOutput|TestCardMasksOnPages|TestAddFamilySiteNeedsNoGo|TestShowIsWhatRuns|TestMCPToolsOfEveryEndpoint|TestValidatesAgainstOpenAPI31Schema)

.PHONY: all deps build run test lint vet fmt sitedefs update generate generate-check bench bench-compare eval-universal loadtest floodtest crashtest crashtest-pg clustertest batchbench fuzz clean

all: build

## deps: on a machine without Go or a C compiler (cgo, for SQLite), install what the suite needs (.ci/deps)
deps:
	@command -v $(GO) >/dev/null 2>&1 && command -v gcc >/dev/null 2>&1 || bash .ci/deps

build: deps
	$(GO) build -o $(BIN) ./cmd/asa

## run: build and start the service on its embedded defaults (SQLite under ./data/)
run: build
	./$(BIN) serve

## test: the whole suite: formatting, vet, staticcheck, race tests, sitedef lint, fixtures and corpus expectations, stale docs
test: deps lint generate-check
	$(GO) test $(GOFLAGS_TEST) ./...
	@# The equivalence tests (a fast path against its reference on every page or many random inputs)
	@# and the corpus-wide parses are one goroutine of pure computation: under -race they check a
	@# sample or skip (the race_*_test.go files of their packages say why), and here they run whole,
	@# without the detector.
	$(GO) test -count=1 -run '^$(NO_RACE_TESTS)$$' ./engine ./engine/dom ./engine/dom/htmlparse ./engine/regexfast ./engine/xpatheval \
		./engine/universal/readability ./cmd/asa ./fixtures ./api/openapi
	$(GO) run ./cmd/asa sitedef check
	$(GO) run ./cmd/asa sitedef test --corpus $(CORPUS)

## lint: gofmt, go vet and staticcheck (pinned in go.mod's tool line; staticcheck.conf files turn checks
## off where generated code trips them)
lint: vet
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) tool staticcheck ./...

vet:
	$(GO) vet ./...

fmt:
	gofmt -w $$(git ls-files '*.go')

## update: rewrite fixture goldens from the current output; review the diff
update:
	$(GO) run ./cmd/asa sitedef test --update

## generate: the JSON Schema and the reference docs, from the Go types, and docs/endpoints.md from the
## sitedefs (which lists each family once, not its sites: adding a family site needs no generate)
generate:
	$(GO) run ./cmd/asa sitedef schema -o sitedefs/sitedef.schema.json
	$(GO) run ./cmd/asa sitedef docs -o docs/sitedef-reference.md
	$(GO) run ./cmd/asa sitedef docs --endpoints -o docs/endpoints.md
	$(GO) test ./engine/funcs -run TestDocsUpToDate -update >/dev/null

## generate-check: fail when a generated file differs from what make generate would write (make test runs it)
generate-check:
	@tmp=$$(mktemp -d); \
	$(GO) run ./cmd/asa sitedef schema -o $$tmp/schema.json && \
	$(GO) run ./cmd/asa sitedef docs -o $$tmp/ref.md && \
	$(GO) run ./cmd/asa sitedef docs --endpoints -o $$tmp/endpoints.md && \
	cmp -s $$tmp/schema.json sitedefs/sitedef.schema.json && cmp -s $$tmp/ref.md docs/sitedef-reference.md \
	&& cmp -s $$tmp/endpoints.md docs/endpoints.md \
	|| { echo "generated files are stale: run make generate"; rm -rf $$tmp; exit 1; }; rm -rf $$tmp

## bench: extraction against parse-only on the largest corpus pages (ms per page, allocations, x-parse: against
## asa's own parse; x-netparse: against golang.org/x/net/html's parse of the same page, same run)
bench:
	ASA_CORPUS=$(abspath $(CORPUS)) $(GO) test -run '^$$' -bench . -benchmem -benchtime 2s ./fixtures/ ./engine/dom/ ./engine/funcs/

PYTHON_PARSEL ?= /usr/bin/python3
## bench-compare: asa against Python parsel/lxml (Debian's python3-parsel, installed with apt-get when missing) on
## every endpoint's largest corpus page of 200 KB or more, with the endpoint's own XPaths, interleaved rounds, medians
## (flags: go run ./cmd/benchcompare -h). Not part of make test.
bench-compare:
	@$(PYTHON_PARSEL) -c 'import parsel' 2>/dev/null || { \
		echo "installing python3-parsel"; \
		if [ "$$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y python3-parsel; else sudo apt-get update -qq && sudo apt-get install -y python3-parsel; fi; }
	$(GO) run ./cmd/benchcompare -corpus $(CORPUS) -python $(PYTHON_PARSEL)

## eval-universal: the universal extractor on its development set (fixtures/evaluniversal/devset.yaml and the
## corpus pages it names, Zyte's product pages, Readability's test pages), per candidate main-text extractor:
## text P/R/F1 (word 4-gram shingles), product price/sku/availability F1, median and p90 ms per page
eval-universal:
	$(GO) run ./cmd/evaluniversal -corpus $(CORPUS) -devset fixtures/evaluniversal
	ASA_CORPUS=$(abspath $(CORPUS)) $(GO) test -run '^$$' -bench ExtractAuto -benchtime 400x ./engine/universal/

## loadtest: rate, burst and concurrency ceilings under load, the service's overhead per request, and
## asa serve against the target farm: 1000 requests kept in flight, then 1000 at the same instant
## (flags: go run ./cmd/loadtest -h; LOADTEST_CPUPROFILE=FILE profiles asa serve)
loadtest:
	$(GO) run ./cmd/loadtest

FLOODTIME ?= 60s
## floodtest: refused requests (429) as fast as 64 connections can send them for FLOODTIME, spread over 4
## free-plan keys: the WAL's size every second and at the end (target < 64 MB), then every counter
## (refusals per key and minute, usage, credits) checked against what the clients were answered
floodtest:
	$(GO) run ./cmd/loadtest -flood $(FLOODTIME)

## crashtest: 400 batch items against the target farm while asa serve is SIGKILLed 7 times and restarted:
## every item one result, one charge per success, webhooks delivered, integrity_check ok after every kill
crashtest: build
	$(GO) run ./cmd/crashtest -bin $(BIN)

## clustertest: three asa serve nodes on one PostgreSQL and one Redis (servers the harness starts; needs
## Debian's postgresql and redis-server): a free key's rate and concurrency ceilings hold across nodes,
## a key revoked on one node is refused by the others within 10 s, the dashboard's sign-in limit is
## counted over all nodes, a 1000-item batch survives two
## nodes SIGKILLed (exactly once). Not part of make test (about a minute).
clustertest: build
	$(GO) run ./cmd/clustertest -bin $(BIN)

## crashtest-pg: the same on PostgreSQL (a server the harness starts: initdb, pg_ctl; needs Debian's postgresql)
crashtest-pg: build
	$(GO) run ./cmd/crashtest -postgres -bin $(BIN)

## batchbench: a 1000-item batch against the farm answering in 200 ms, default budget: time to the webhook (< 15 s)
batchbench: build
	$(GO) run ./cmd/crashtest -throughput -bin $(BIN)

## e2e: the dashboard in headless Chromium: sign up, key, request, usage, revoke (screenshots in e2e/artifacts/)
e2e:
	$(GO) test -count=1 -v -run TestDashboardInChromium ./e2e

## e2e-deps: playwright-core into e2e/node_modules (chromium comes from apt-get install chromium)
e2e-deps:
	npm ci --prefix e2e --no-audit --no-fund

FUZZTIME ?= 20s
FUZZPKGS ?= ./...
## fuzz: every fuzz target of FUZZPKGS for FUZZTIME each. Every target runs even when one fails; a
## summary lists each target's result and the exit status is non-zero if any failed. A run that the
## fuzz coordinator ends with "context deadline exceeded" and no failing input (Go 1.26 can end a
## healthy run so) is retried once.
fuzz:
	@pkgs=$$($(GO) list $(FUZZPKGS)) || exit 1; results=(); failed=0; log=$$(mktemp); \
	for pkg in $$pkgs; do \
	  if ! targets=$$($(GO) test -list '^Fuzz' $$pkg 2>&1); then \
	    echo "$$targets"; results+=("FAIL  $$pkg (does not build)"); failed=$$((failed+1)); continue; \
	  fi; \
	  for f in $$(grep '^Fuzz' <<<"$$targets"); do \
	    for try in 1 2; do \
	      echo "== $$pkg $$f"; \
	      $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) $$pkg 2>&1 | tee $$log; rc=$${PIPESTATUS[0]}; \
	      if [ $$rc -ne 0 ] && [ $$try = 1 ] && grep -q 'context deadline exceeded' $$log && ! grep -q 'Failing input written to' $$log; then \
	        echo "-- $$f: the coordinator ended with context deadline exceeded and no failing input: retrying once"; continue; \
	      fi; \
	      break; \
	    done; \
	    note=; [ $$try = 2 ] && note=" (retried after context deadline exceeded)"; \
	    if [ $$rc -eq 0 ]; then results+=("ok    $$pkg $$f$$note"); else results+=("FAIL  $$pkg $$f$$note"); failed=$$((failed+1)); fi; \
	  done; \
	done; \
	rm -f $$log; echo; echo "== fuzz: $${#results[@]} targets, $$failed failed"; printf '%s\n' "$${results[@]}"; \
	[ $$failed -eq 0 ]

clean:
	rm -rf bin
