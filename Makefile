# hlo-opt: build, test, benchmark and fuzz targets.
GO ?= go
PKGS := ./...
FUZZTIME ?= 60s
BENCHTIME ?= 1s
BENCHCOUNT ?= 1

.PHONY: all build test vet fmt-check lint bench bench-shapes scale fuzz golden clean corpus-today groundtruth groundtruth-data groundtruth-venv xla-diff screenshot dumps

all: build

build:
	$(GO) build -o bin/hlo-opt ./cmd/hlo-opt

vet:
	$(GO) vet $(PKGS)

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

# lint: staticcheck (fetched through the Go module proxy at a pinned version).
lint:
	$(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2 $(PKGS)

# test: the command CI runs (.ci/run). vet, gofmt check, then every test with the race detector.
test: vet fmt-check
	$(GO) test -race -count=1 $(PKGS)

# bench: Go benchmarks with allocation counts on the corpus and generated
# modules; each reports MB/s and/or instructions/s (hlo also peak-x and
# live-x, the heap of a parse as a multiple of the text). The load average
# is printed first: on 2 cores, other work skews the parallel figures; use
# BENCHCOUNT=5 and compare medians.
bench:
	@uptime
	$(GO) test -run='^$$' -bench=. -benchmem -benchtime=$(BENCHTIME) -count=$(BENCHCOUNT) $(PKGS)

# bench-shapes: BenchmarkShapes alone: the parse, the print and every pass
# on each module shape of hlogen (unrolled entry, many computations, nested
# loops, wide tuples) at 1x, 4x and 16x, each for SHAPESTIME, SHAPESCOUNT
# times; it ends with a table of the median ns per instruction by scale and
# its growth from 1x to 16x (about 5 minutes). A stage's CPU includes the
# collections that land while it runs: at 16x one costs what a few runs of
# a short stage do, so each needs enough runs to share them out (with
# 200ms, 1-4 of the 52 pairs landed over 1.3x in each run, never the same
# ones twice; with 500ms none).
SHAPESTIME ?= 500ms
SHAPESCOUNT ?= 3
bench-shapes:
	@uptime
	$(GO) test ./cmd/hlo-opt -run='^$$' -bench='^BenchmarkShapes$$' -benchtime=$(SHAPESTIME) -count=$(SHAPESCOUNT)

# scale: issue 25's figures, each a ratio of two times taken in one run
# (medians of SCALERUNS fresh processes, interleaved) so that the load of
# the machine cancels: on hlogen's training step unrolled into the entry at
# 16x (4096 layers), the layout pass (layout-assign and layout) and every
# analysis against the parse (--timing), and peak RSS against the text, at
# each of SCALEJOBS (1: one goroutine, a figure that does not depend on the
# cores; default: GOMAXPROCS, as a user runs it, where the layout pass's
# two best-fit orders run at once); and parse + print of 120 mobilenet_v2
# modules of the corpus split by '// -----' (99 MB, written to SCALEDIR,
# never to the repository) against wc -l on the same file. SCALEDIR is one
# per checkout, so that two checkouts measuring at once do not write each
# other's files.
SCALEDIR ?= /tmp/hlo-opt-scale$(subst /,-,$(CURDIR))
SCALERUNS ?= 5
SCALEJOBS ?= 1 default
CORPUS ?= ../shared/corpus
scale: build
	@uptime
	@mkdir -p $(SCALEDIR)
	@$(GO) run ./hlo/hlotest/hlogen/cmd/hlogen -shape unrolled -scale 16 > $(SCALEDIR)/unrolled16.hlo
	@: > $(SCALEDIR)/mobilenet120.hlo; for i in $$(seq 120); do \
		if [ $$i -gt 1 ]; then printf '\n// -----\n' >> $(SCALEDIR)/mobilenet120.hlo; fi; \
		cat $(CORPUS)/xla-data__mobilenet_v2.hlo >> $(SCALEDIR)/mobilenet120.hlo; done
	@f=$(SCALEDIR)/unrolled16.hlo; size=$$(stat -c %s $$f); \
	for jobs in $(SCALEJOBS); do flag=--jobs=$$jobs; if [ $$jobs = default ]; then flag=; fi; \
	for what in layout verify,stats,indexing,coalescing,utilization,cost,xla-cost,layout; do \
		for i in $$(seq $(SCALERUNS)); do \
			/usr/bin/time -f "rss %M" bin/hlo-opt $$flag --timing --passes=$$what $$f 2>&1 >/dev/null | \
			awk 'function ms(d) { if (d ~ /µs$$/) return d/1000; if (d ~ /ms$$/) return d+0; return d*1000 } \
				/timing: parse/ {p=ms($$4)} /timing: pass/ {s+=ms($$5)} /^rss/ {r=$$2} \
				END {printf "%.2f %.1f %.0f %.0f\n", s/p, r*1024/'$$size', p, s}' ; \
		done | sort -n | awk -v w=$$what -v j=$$jobs '{x[NR]=$$0} END {split(x[int((NR+1)/2)], v, " "); \
			printf "unrolled 16x, --jobs=%s --passes=%s: the passes %.2fx the parse (%.0f against %.0f ms), peak RSS %.1fx the text (median run)\n", j, w, v[1], v[4], v[3], v[2]}'; \
	done; done
	@f=$(SCALEDIR)/mobilenet120.hlo; for i in $$(seq $(SCALERUNS)); do \
		a=$$(date +%s%N); wc -l $$f >/dev/null; b=$$(date +%s%N); \
		bin/hlo-opt --split-input-file $$f >/dev/null; c=$$(date +%s%N); \
		echo "$$(( (c-b)/1000 )) $$(( (b-a)/1000 ))" | awk '{printf "%.2f %d %d\n", $$1/$$2, $$1/1000, $$2/1000}'; \
	done | sort -n | awk '{x[NR]=$$0} END {split(x[int((NR+1)/2)], v, " "); \
		printf "parse + print of 120 mobilenet_v2 modules (99 MB): %.1fx wc -l (%d against %d ms, median run)\n", v[1], v[2], v[3]}'

# fuzz: run each fuzz target for FUZZTIME (bounded: FUZZTIME per target);
# crashers are kept under each package's testdata/fuzz. Each new
# interesting input is minimized for at most 5 s (Go's default, 60 s, left
# a 120 s run 20k-370k inputs).
FUZZFLAGS = -fuzztime=$(FUZZTIME) -fuzzminimizetime=5s
fuzz:
	$(GO) test ./hlo -run='^$$' -fuzz='^FuzzParse$$' $(FUZZFLAGS)
	$(GO) test ./indexing -run='^$$' -fuzz='^FuzzParseIndexingMap$$' $(FUZZFLAGS)
	$(GO) test ./cmd/hlo-opt -run='^$$' -fuzz='^FuzzPipeline$$' $(FUZZFLAGS)

# golden: regenerate golden files; review the diff before committing.
golden:
	$(GO) test $(PKGS) -update

# groundtruth: set our sizes, layouts, memory and cost beside XLA's own
# compiles of the ground-truth programs (testdata/groundtruth) and print
# the summary of each comparison (the full tables are the .golden files).
GROUNDTRUTH_GOLDENS := sizes layouts memory xla-cost h100-times
groundtruth:
	$(GO) test -count=1 -run 'GroundTruth|Groundtruth' ./layoutassign ./cost
	@for g in $(GROUNDTRUTH_GOLDENS); do echo; sed -n '1,/^## /p' testdata/groundtruth/$$g.golden | sed '$$d'; done

# groundtruth-data: regenerate testdata/groundtruth/<program>/<backend>/<size>/
# with XLA itself (TPU ahead of time, a deviceless H100, the CPU; no
# accelerator needed). VENV=DIR reuses a venv that has
# testdata/groundtruth/gen/requirements.txt; otherwise one is made in
# .venv-groundtruth with the first python3.12 that runs (PATH, then
# ~/.pyenv/versions/3.12*/bin).
# GROUNDTRUTH_ARGS is passed on: --programs, --backends, --sizes, --out, --jobs.
GROUNDTRUTH_VENV = $(if $(VENV),$(VENV),.venv-groundtruth)
PYTHON312 ?= $(shell for p in $$(command -v python3.12) $$HOME/.pyenv/versions/3.12*/bin/python3.12; do $$p --version >/dev/null 2>&1 && { echo $$p; break; }; done)
groundtruth-data: groundtruth-venv
	$(GROUNDTRUTH_VENV)/bin/python testdata/groundtruth/gen/generate.py $(GROUNDTRUTH_ARGS)

# groundtruth-venv: the venv of groundtruth-data and xla-diff (VENV=DIR, or
# .venv-groundtruth made with the pinned requirements).
groundtruth-venv:
	@if [ ! -x $(GROUNDTRUTH_VENV)/bin/python ]; then \
		if [ -z "$(PYTHON312)" ]; then echo "groundtruth-venv: python3.12 not found (PATH, ~/.pyenv/versions/3.12*)"; exit 1; fi; \
		$(PYTHON312) -m venv $(GROUNDTRUTH_VENV) && $(GROUNDTRUTH_VENV)/bin/pip install -r testdata/groundtruth/gen/requirements.txt; \
	fi

# xla-diff: the differential tester. N random JAX programs from seed SEED
# (testdata/xladiff/gen/randprog.py) compiled by XLA for TPU v5e, v6e and v4,
# an H100 and the CPU (no accelerator needed), hlo-opt run on each compile as
# a user would (cmd/xla-diff), the agreement table per backend and figure, and
# up to XLA_DIFF_REDUCE disagreements reduced into testdata/xladiff/ (their
# replay is in make test; this target is not). Compiles are cached in
# XLA_DIFF_CACHE, outside the repository, so reruns are cheap; at most two
# compiler processes run at once. VENV as for groundtruth-data;
# XLA_DIFF_ARGS is passed on (--backends, --jobs, --results, --out).
SEED ?= 1
N ?= 20
XLA_DIFF_CACHE ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/hlo-opt-xladiff
XLA_DIFF_REDUCE ?= 8
xla-diff: groundtruth-venv
	$(GROUNDTRUTH_VENV)/bin/python testdata/xladiff/gen/xladiff.py --seed $(SEED) --n $(N) \
		--cache $(XLA_DIFF_CACHE) --reduce $(XLA_DIFF_REDUCE) $(XLA_DIFF_ARGS)

clean:
	rm -rf bin

# corpus-today: recompile the programs of testdata/xla-today/gen/generate.py
# with the pinned XLA (jax/jaxlib/libtpu/CUDA plugin) and rewrite the dumps in
# testdata/xla-today. Not part of make test. Needs Python 3.12 (python3.12 on
# PATH or under ~/.pyenv/versions/3.12*/bin); the first run makes a venv in
# .venv-xla-today and installs the pins (about 4 GB). VENV=DIR reuses a venv
# that already has them.
XLA_TODAY_VENV = $(if $(VENV),$(VENV),.venv-xla-today)
corpus-today:
	@if [ ! -x "$(XLA_TODAY_VENV)/bin/python" ]; then \
		py=$$(command -v python3.12 || ls $$HOME/.pyenv/versions/3.12*/bin/python3.12 2>/dev/null | tail -n 1); \
		if [ -z "$$py" ]; then echo "corpus-today: python3.12 not found on PATH or under ~/.pyenv/versions/3.12*/bin" >&2; exit 1; fi; \
		"$$py" -m venv "$(XLA_TODAY_VENV)" && "$(XLA_TODAY_VENV)/bin/pip" install -q -r testdata/xla-today/gen/requirements.txt; \
	fi
	"$(XLA_TODAY_VENV)/bin/python" testdata/xla-today/gen/generate.py testdata/xla-today

# screenshot: the Memory Viewer pages (--format=html) of a real TPU dump
# (XLA's compile of testdata/groundtruth's transformer_fwd for a TPU v5e)
# and of the GPU training step in testdata/layout, written to
# testdata/memview/*.html and rendered by headless Chromium (Debian package
# chromium) to PNGs beside them. Not part of make test; look at the PNGs
# before committing them.
CHROMIUM ?= $(shell command -v chromium || command -v chromium-browser || command -v google-chrome)
SCREENSHOT_FLAGS = --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --disable-background-networking \
	--disable-component-update --disable-sync --no-first-run --hide-scrollbars
screenshot: build
	@if [ -z "$(CHROMIUM)" ]; then echo "screenshot: no Chromium (apt install chromium)" >&2; exit 1; fi
	mkdir -p testdata/memview
	bin/hlo-opt --passes=layout,cost,xla-cost --device=tpu-v5e --format=html -o testdata/memview/tpu_transformer_fwd.html \
		testdata/groundtruth/transformer_fwd/tpu-v5e/large/after_optimizations.txt
	bin/hlo-opt --passes=layout,cost --device=h100 --format=html -o testdata/memview/gpu_train_step.html testdata/layout/gpu_train_step.hlo
	"$(CHROMIUM)" $(SCREENSHOT_FLAGS) --window-size=1280,2600 \
		--screenshot=$(CURDIR)/testdata/memview/tpu_transformer_fwd.png file://$(CURDIR)/testdata/memview/tpu_transformer_fwd.html 2>/dev/null
	"$(CHROMIUM)" $(SCREENSHOT_FLAGS) --window-size=1280,2000 \
		--screenshot=$(CURDIR)/testdata/memview/gpu_train_step.png file://$(CURDIR)/testdata/memview/gpu_train_step.html 2>/dev/null

# dumps: regenerate testdata/dumps/<backend>/, XLA dump directories as
# XLA_FLAGS=--xla_dump_to writes them (transformer_fwd compiled at batch 2
# and at batch 8 in one process), the inputs of hlo-opt DIR and hlo-opt
# diff's tests. Needs the ground truth's venv (see groundtruth-data).
dumps:
	$(GROUNDTRUTH_VENV)/bin/python testdata/groundtruth/gen/generate.py --dump-dir testdata/dumps --batches 2,8 \
		--programs transformer_fwd --backends tpu-v5e,cpu --sizes small
