# semcat — see README.md. `make run` starts semcat with its embedded defaults
# (a managed local PostgreSQL and a Bleve index under ./var); `make test` runs
# every test against a real PostgreSQL.

GO      ?= go
DATA    ?= ./var
ADDR    ?= 127.0.0.1:8090

.PHONY: run test bench bench-relevance bench-dbt lint build reset

# Built, then run, rather than `go run`: go run exits 1 when interrupted,
# so every Ctrl-C would end in "make: *** Error 1" although semcat stopped
# cleanly (exit 0).
run: build
	./bin/semcat serve --demo --data-dir $(DATA) --addr $(ADDR)

test:
	$(GO) test -race -count=1 ./...

bench:
	$(GO) run ./benchmarks $(BENCHFLAGS)

# nDCG@10 and more on judged queries over ../shared/data/catalog-corpus.jsonl,
# side by side with a field-boosted BM25 baseline (benchmarks/relevance.go).
bench-relevance:
	$(GO) run ./benchmarks -relevance $(BENCHFLAGS)

# dbt import of ~2,000 generated GitLab-shaped models: first, repeat (no
# writes), one change (benchmarks/dbt.go).
bench-dbt:
	$(GO) run ./benchmarks -dbt $(BENCHFLAGS)

build:
	$(GO) build -o bin/semcat ./cmd/semcat

# Start over: delete $(DATA) and its managed PostgreSQL cluster (stop
# `make run` first).
reset: build
	./bin/semcat reset --data-dir $(DATA) --yes

lint:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || (gofmt -l $$(git ls-files '*.go'); exit 1)
	$(GO) vet ./...
	$(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2 ./...
