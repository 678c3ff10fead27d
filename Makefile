# hlo-opt: build, test, benchmark and fuzz targets.
GO ?= go
PKGS := ./...
FUZZTIME ?= 60s
BENCHTIME ?= 1x

.PHONY: all build test vet fmt-check bench fuzz golden clean

all: build

build:
	$(GO) build -o bin/hlo-opt ./cmd/hlo-opt

vet:
	$(GO) vet $(PKGS)

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

# test: the command CI runs (.ci/run). vet, gofmt check, then every test with the race detector.
test: vet fmt-check
	$(GO) test -race -count=1 $(PKGS)

# bench: Go benchmarks with allocation counts on the corpus and generated modules.
bench:
	$(GO) test -run='^$$' -bench=. -benchmem $(PKGS)

# fuzz: run each fuzz target for FUZZTIME; crashers are kept under testdata/fuzz.
fuzz:
	$(GO) test ./hlo -run='^$$' -fuzz=FuzzParse -fuzztime=$(FUZZTIME)
	$(GO) test ./indexing -run='^$$' -fuzz=FuzzParseIndexingMap -fuzztime=$(FUZZTIME)

# golden: regenerate golden files; review the diff before committing.
golden:
	$(GO) test $(PKGS) -update

clean:
	rm -rf bin
