# newsrank — the two commands a newcomer needs:
#   make demo   build and run the demo (embedded Redis, bundled news site, web UI)
#   make test   install test dependencies if missing, then gofmt, vet, race tests
GO      ?= go
BIN     := bin/newsrank
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X main.version=$(VERSION)
TESTFLAGS ?= -race -timeout 30m

.PHONY: all build demo deps test lint vet fmt-check fuzz bench faults clean

all: build

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/newsrank

demo: build
	./$(BIN) demo $(DEMO_FLAGS)

deps:
	@bash scripts/deps.sh

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...

lint: fmt-check vet

test: deps lint
	$(GO) test $(TESTFLAGS) ./...
	FUZZTIME=$(FUZZTIME) bash scripts/fuzz.sh

# Each fuzz target runs briefly in make test; run longer with FUZZTIME=5m make fuzz.
FUZZTIME ?= 5s
fuzz:
	FUZZTIME=$(FUZZTIME) bash scripts/fuzz.sh

bench: deps
	bash scripts/bench.sh

# The fault-injection suite alone (it also runs in make test): SIGKILLed
# consumers, Redis restarts, a 10 s Redis outage under the daemon, hostile sites.
faults: deps
	bash scripts/faults.sh

clean:
	rm -rf bin
