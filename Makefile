# Tofu. `make run` sets up and opens the app; `make test` sets up and runs every test.
SHELL   := /bin/bash
GO      ?= go
VERSION := $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -s -w -X github.com/tofu-research/tofu/app/cli.Version=$(VERSION)
# tofu is the command line, built without cgo so that it starts in milliseconds; without a
# command it becomes tofu-window beside it, the window (cgo, Wails: GTK and WebKit).
BIN     := build/bin/tofu
# Run a command with loopback only: proves nothing leaves the machine.
OFFLINE := build/offline.sh
# A program built with -race sleeps a second when it exits (ThreadSanitizer's atexit_sleep_ms,
# there for C++ threads still printing a report): every test binary, and every `tofu` the tests
# start from their own binary, paid it. A race is reported when it happens, by the goroutine
# that finds it, and still fails the test. (A GORACE of your own comes after, so it wins.)
export GORACE := atexit_sleep_ms=0 $(GORACE)
# Programs are linked without DWARF (-ldflags=-w, what the build's own -ldflags say anyway):
# the ~140 test binaries a run links took a third less CPU (the linker was 12% of make test's).
# Stack traces and race reports still name file and line: they read Go's own symbol table.
export GOFLAGS := -ldflags=-w $(GOFLAGS)

.PHONY: run test test-checks build setup setup-test frontend test-go test-backend test-app test-attack test-eval test-frontend test-e2e test-window test-ollama test-matrix test-package package test-stress test-quick bench vet clean

run: build
	./$(BIN)

# wails builds the top-level package with its build tags (desktop; webkit2_41 from wails.json),
# which make it the window program (main_window.go): tofu-window lands in build/bin beside tofu,
# the same package built without them and without cgo.
# (The sponsor note wails prints after every build is left out of the output.)
build: setup frontend
	set -o pipefail; $(GO) tool wails build -s -m -skipbindings -ldflags "$(LDFLAGS)" -o tofu-window 2>&1 | sed '/consider sponsoring/d; /github.com\/sponsors\//d'
	CGO_ENABLED=0 $(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) .
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags "-s -w" -o build/bin/tofu-pdf ./cmd/tofu-pdf

setup:
	build/setup.sh run

setup-test:
	build/setup.sh test

# protocol.gen.ts is generated from the Go protocol (backend/protocol); the build type-checks
# the front end against it.
frontend:
	$(GO) run ./backend/protocol/cmd/gen-ts
	$(GO) run ./app/cmd/gen-services
	cd frontend && npm run build

# After the setup and the front end's build, the checks run two at a time (TEST_JOBS), each
# one's output printed whole when it ends. Most use one and a half of two cores alone; side by
# side they fill both. They start in the order listed: the longest first, with the build and the
# package the window and package checks need made early (left to those checks, the build could
# start last and keep them waiting at the end); then those checks, which mostly wait (an
# install, a window starting: ~0.5 core) while the other side can use the rest; last the type
# check and unit tests, which fill both cores to the end.
TEST_JOBS ?= 2
test: setup-test frontend
	$(MAKE) --no-print-directory -j$(TEST_JOBS) --output-sync=target -o setup -o setup-test -o frontend test-checks
	@echo "all tests passed"

test-checks: test-backend test-attack package test-app test-e2e test-package test-window test-matrix test-ollama test-eval vet test-frontend

# staticcheck, pinned: installed once from the module proxy into the user's cache, by version
# (about 1.5 min the first time), as build/ollama.sh does for Ollama.
STATICCHECK_VERSION := v0.8.2
STATICCHECK := $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/tofu/staticcheck/$(STATICCHECK_VERSION)/staticcheck
$(STATICCHECK):
	GOBIN=$(dir $@) CGO_ENABLED=0 GOFLAGS= $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)

vet: $(STATICCHECK)
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); echo "gofmt needed"; exit 1; }
	CGO_ENABLED=0 $(GO) vet . ./build/ ./frontend ./backend/... ./app/... ./assets/...
	# The engine and the CLI must keep building for the other desktops (the window needs cgo there).
	GOOS=windows CGO_ENABLED=0 $(GO) vet . ./backend/... ./app/cli/...
	GOOS=darwin CGO_ENABLED=0 $(GO) vet . ./backend/... ./app/cli/...
	CGO_ENABLED=0 $(STATICCHECK) . ./backend/... ./app/... ./assets/...
	# Store writes whose error is dropped without a reason (backend/guardrails/storewrites), and
	# the import graph's layers (backend/guardrails).
	CGO_ENABLED=0 $(GO) build -o build/bin/storewrites ./backend/guardrails/cmd/storewrites
	CGO_ENABLED=0 $(GO) vet -vettool=$(CURDIR)/build/bin/storewrites . ./backend/... ./app/...
	CGO_ENABLED=0 $(GO) test -count=1 ./backend/guardrails/...

# backend/... must build with no cgo, no display and no network: it is built with
# CGO_ENABLED=0 (and make vet type-checks its tests so). The tests run under the race detector (which needs cgo and gcc),
# a race being a failure, except where they are CPU-bound and 10-20x slower under it:
# backend/eval starts no goroutine; backend/paper reads pages in parallel, so the extraction
# tests that cross pages, ranges and cancellation run under -race and the rest without. The
# attack suite (docs/SECURITY.md) checks decisions through ~1,050 turns: it runs without -race.
# The child processes' memory bounds leave -race no room: those tests run without it too.
NORACE     := /backend/eval|/backend/paper$$
# go test's default 10-minute limit per package is too tight for app/cli on a loaded machine
# (the attack suite alone runs ~350 cases in three modes); CI's own limit is 90 minutes.
TIMEOUT    := -timeout 40m
PAPER_RACE := TestPageRangesAndFormats|TestCancellationAndProgress|TestTwoColumnReadingOrder|TestBrokenPageTrees|TestObjectStreamRereadsAreBounded|TestObjStmInflatedOnceWhenAskedAtOnce|TestGlyphBudget
# Tests whose cost is computation, over code shorter tests run under -race: a test is marked
# (testtools.CPUBound) when it takes 1 s or more under -race and 4 times or more its time
# without. The race pass skips them and they run after it without -race (~95 s of CPU -> ~10).
# backend/guardrails checks this list names every marked test and package.
CPU_BOUND      := TestTraceStorageOf200Calls|TestDeadPrimaryCost|TestPrunedSearchIsExact|TestLocalEditsOnlyWhenTheCostRuleAllows|TestBudgetsFitTheModelWindow|TestXLSXSharedStringAmplificationRefused|TestRemoteAnswerIsBounded|TestModelListIsBounded|TestRereadsPointAtWholeResults|TestBlobRoundTrip|TestXLSXWideRowsRefused|TestEventStreamIsBoundedByEvent|TestPrefixNeverRewritten|TestFollowUpKeepsThePrefix
CPU_BOUND_PKGS := ./backend/compact/ ./backend/llm/gateway/ ./backend/llm/ollama/ ./backend/llm/openai/ ./backend/mcp/ ./backend/paper/library/ ./backend/search/ ./backend/store/ ./backend/swarm/ ./backend/tools/coding/ ./backend/trace/
# (Compiling and linking every test binary once more without cgo, and app's once more without
# -race, took ~1.5 min and checked nothing vet and the runs below do not.)
test-go: test-backend test-app test-attack

test-backend:
	CGO_ENABLED=0 $(GO) build ./backend/... ./assets/...
	$(OFFLINE) env CGO_ENABLED=1 TOFU_RACE_SKIPS_CPU_BOUND=1 $(GO) test $(TIMEOUT) -race -count=1 $$($(GO) list ./backend/... ./assets/... | grep -Ev '$(NORACE)')
	$(OFFLINE) env CGO_ENABLED=0 $(GO) test $(TIMEOUT) -count=1 -run '^($(CPU_BOUND))$$' $(CPU_BOUND_PKGS)
	$(OFFLINE) env CGO_ENABLED=0 $(GO) test $(TIMEOUT) -count=1 ./build/ ./backend/eval/... ./backend/paper/ ./backend/paper/worker/ ./backend/child/ ./cmd/tofu-pdf/
	$(OFFLINE) env CGO_ENABLED=0 $(GO) test $(TIMEOUT) -count=1 -run '^TestOfficeReaderInAChild$$' ./backend/tools/coding/
	$(OFFLINE) env CGO_ENABLED=1 $(GO) test $(TIMEOUT) -race -count=1 -run '$(PAPER_RACE)' ./backend/paper/

test-app:
	$(OFFLINE) env CGO_ENABLED=1 $(GO) test $(TIMEOUT) -race -count=1 $$($(GO) list ./app/... | grep -v '/app/cli$$')
	# app/cli's tests set the process's environment, so they run one after another, mostly
	# waiting: three processes side by side (4.5 -> 2.5 min on two cores).
	$(OFFLINE) env CGO_ENABLED=1 build/shard.sh 3 ./app/cli/ -race -- -test.timeout=40m

# The attack suite (docs/SECURITY.md), in shards of its own.
test-attack:
	$(OFFLINE) env CGO_ENABLED=0 $(GO) test $(TIMEOUT) -count=1 -run '^TestAttackSuite$$' ./app/cli/

# The retrieval engine on the shared IR collections (docs/SEARCH.md has the reference figures).
test-eval:
	$(OFFLINE) env CGO_ENABLED=0 $(GO) run . eval retrieval ../shared/data/ir/cacm ../shared/data/ir/cmrc2018-zh
	$(OFFLINE) env CGO_ENABLED=0 $(GO) run . eval browser backend/eval/testdata/browser/* backend/browser/testdata/sites/*
	$(OFFLINE) env CGO_ENABLED=0 $(GO) run . eval translate ../shared/data/multilingual/*.jsonl

# The type check (svelte-check, tsc against the generated protocol types) runs here, not in
# every build: it costs ~40 s that `make run` should not pay.
test-frontend:
	cd frontend && $(CURDIR)/$(OFFLINE) npm run check
	cd frontend && $(CURDIR)/$(OFFLINE) npm test

# The browser front end against `tofu serve` and the scripted model, in headless Chromium
# (under -race: the server's goroutines are what these exercise; it costs no time here).
test-e2e:
	$(OFFLINE) env TOFU_E2E=1 CGO_ENABLED=1 $(GO) test $(TIMEOUT) -race -count=1 -run 'EndToEnd' -v ./app/cli/

# The Ollama provider's contract tests, and the pull, resume, load and delete of models
# (backend/llm/ollama/manage), against a real `ollama serve` with tiny models the tests
# make (docs/PROVIDERS.md). build/ollama.sh builds the server with cgo the first time (the only
# step that uses the network: the module proxy) and caches it by version in ~/.cache/tofu; the
# tests skip in test-go, where TOFU_OLLAMA_BIN is not set. The EndToEnd ones pull a model
# from Settings and start Ollama from the first-run help, in headless Chromium (as test-e2e).
test-ollama:
	bin=$$(build/ollama.sh) && $(OFFLINE) env TOFU_OLLAMA_BIN=$$bin CGO_ENABLED=1 $(GO) test -race -count=1 -run '^TestReal' -v ./backend/llm/ollama/...
	# tofu eval local on a slice (3 sessions x 2 calls, every mode; docs/PERFORMANCE.md has the figures).
	bin=$$(build/ollama.sh) && $(OFFLINE) env TOFU_OLLAMA_BIN=$$bin CGO_ENABLED=0 $(GO) test $(TIMEOUT) -count=1 -run '^TestLocalAgainstTheRealServer$$' -v ./backend/eval/
	bin=$$(build/ollama.sh) && $(OFFLINE) env TOFU_E2E=1 TOFU_OLLAMA_BIN=$$bin CGO_ENABLED=1 $(GO) test $(TIMEOUT) -race -count=1 -run '^TestReal.*EndToEnd$$' -v ./app/cli/

# The edit-compile-test loop: the unit tests of the packages and front-end files you changed
# (build/test-quick.sh says which). Not a substitute for make test.
test-quick:
	build/test-quick.sh

# The chat bridge's Matrix platform against a real Dendrite homeserver on 127.0.0.1 (docs/BRIDGES.md).
# build/dendrite.sh builds Dendrite with cgo (SQLite) the first time (the module proxy: ~20 min
# on a loaded 2-core machine) and caches it by version in ~/.cache/tofu; the test skips in
# test-go, where TOFU_DENDRITE is not set.
test-matrix:
	dir=$$(build/dendrite.sh) && $(OFFLINE) env TOFU_DENDRITE=$$dir CGO_ENABLED=1 $(GO) test -race -count=1 -v ./backend/bridge/matrix/

# Every Go test and the front-end unit tests, several times each with the CPU kept busy: finds
# tests that wait on time or on output that can appear early. Not part of `make test` (it takes
# long); STRESS_COUNT, STRESS_CPU, STRESS_FRONT, STRESS_BURN, STRESS_RACE and STRESS_OUT (keep the
# logs) tune it (build/stress.sh).
test-stress: setup-test
	build/stress.sh

# Every figure of the performance table beside its anchor, printed as one table and written into
# docs/PERFORMANCE.md with the machine it ran on (backend/bench). Not part of `make test`: it takes
# minutes, uses the network for nothing, and judges nothing. BENCH_REPLAY adds trajectory folders
# to replay (comma-separated), e.g. held-out runs kept outside the repository.
bench: build
	$(OFFLINE) env CGO_ENABLED=0 $(GO) run ./backend/bench/cmd/bench -doc docs/PERFORMANCE.md \
		-tofu $(BIN) -replay "../shared/data/trajectories,$(BENCH_REPLAY)"

# The Debian package (and the portable tarball) of what `make build` built, by build/package, a
# module of its own around nfpm (docs/PACKAGING.md). The version grows with every commit.
PKG_VERSION := 0.0.$(shell git rev-list --count HEAD 2>/dev/null || echo 0)+g$(shell git rev-parse --short HEAD 2>/dev/null || echo 0)
package: build
	rm -rf build/dist
	cd build/package && $(GO) run . -bin ../bin -icon ../appicon.png -license ../../LICENSE -out ../dist -version $(PKG_VERSION) -tarball

# The package installed with apt on this machine (root or password-less sudo), the installed
# window started from its menu entry and given PDFs through the MIME association, then purged
# leaving none of its files (.ci/package-test.sh).
test-package: package
	cd build/package && $(GO) vet . && $(CURDIR)/$(OFFLINE) $(GO) test -count=1 .
	$(OFFLINE) .ci/package-test.sh build/dist/tofu_*.deb

# The real window under Xvfb, started as users start it: `tofu`, which becomes tofu-window; then
# `wails dev` from the root (the front end's live reload against the Go services: the page served
# on its dev server).
test-window: build
	$(OFFLINE) .ci/window-smoke.sh ./$(BIN)
	$(OFFLINE) .ci/wails-dev.sh

clean:
	rm -rf build/bin frontend/dist/assets frontend/dist/index.html
