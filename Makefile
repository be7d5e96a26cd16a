# lbsweep: experiments/X.toml → results/X/runs.parquet → figures/X-*.svg, X-*.md + figures/REPORT.md, figures/index.html
#   make figures   rerun the stale experiments, draw every figure, write the report, check every claim
#   make test      the test suite (go vet + go test)
#   make bench     benchmarks (events/s of whole runs, allocations) and the C reference side by side by CPU time (ANCHORS=DIR ROUNDS=N);
#                  fails when a speed target is missed
#   make pgo       refresh cmd/sweep/default.pgo, the profile the sweep binary is optimised with
# A dataset is stale when its spec or the sweep binary is newer than it; the binary, when a Go file it is built from is. Spec file stems equal their `name`.
GO      ?= go
ANCHORS ?= ../shared/anchors
ROUNDS  ?= 5
RESULTS ?= results
FIGURES ?= figures
SPECS   := $(wildcard experiments/*.toml)
NAMES   := $(basename $(notdir $(SPECS)))
DATA    := $(NAMES:%=$(RESULTS)/%/runs.parquet)
# The binaries depend on the non-test Go files (and embedded files) of this module's packages that the commands import,
# so editing a _test.go or an unrelated package leaves the datasets up to date.
GOFILES := $(shell $(GO) list -deps -f '{{if and .Module .Module.Main}}{{range .GoFiles}}{{$$.Dir}}/{{.}} {{end}}{{range .EmbedFiles}}{{$$.Dir}}/{{.}} {{end}}{{end}}' ./cmd/sweep ./cmd/plot) go.mod go.sum cmd/sweep/default.pgo

.PHONY: figures test bench pgo clean
figures: $(DATA) bin/plot bin/sweep
	bin/plot -results $(RESULTS) -o $(FIGURES) $(SPECS)
	bin/sweep check -results $(RESULTS) $(SPECS)

bin/sweep bin/plot &: $(GOFILES)
	CGO_ENABLED=0 $(GO) build -buildvcs=auto -o bin/ ./cmd/sweep ./cmd/plot

$(RESULTS)/%/runs.parquet: experiments/%.toml bin/sweep
	bin/sweep -o $(RESULTS) $<

test:
	$(GO) vet ./...
	$(GO) test ./...

bench:
	$(GO) test -pgo=cmd/sweep/default.pgo -run '^$$' -bench . -benchtime 5x -benchmem ./model/...
	bash bench/compare.sh $(ANCHORS) $(ROUNDS)

pgo:
	bash bench/pgo.sh

clean:
	rm -rf bin
