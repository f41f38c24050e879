# newsrank — the two commands a newcomer needs:
#   make demo   build and run the demo (embedded Redis, bundled news site, web UI)
#   make test   install test dependencies if missing, then gofmt, vet, race tests
#               (fuzz targets on their seed corpus only; random fuzzing is make fuzz)
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

# The gate is deterministic: go test runs every fuzz target on its seed
# corpus (f.Add inputs and testdata/fuzz/) only. Random fuzzing is make fuzz.
test: deps lint
	$(GO) test $(TESTFLAGS) ./...
	cd third_party/go-dateparser && $(GO) test $(TESTFLAGS) ./internal/regexp/
	cd third_party/colly && $(GO) test $(TESTFLAGS) -run 'Whatwg|NewRequest|ReadBody' .

# Random fuzzing, never part of make test: FUZZTIME=5m make fuzz. Inputs that
# fail land in the package's testdata/fuzz/; commit them to the seed corpus.
FUZZTIME ?= 30s
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
