#!/usr/bin/env bash
# Writes cmd/sweep/default.pgo, the CPU profile `go build` uses to optimise the sweep binary (profile-guided
# optimisation, Go ≥ 1.21: it inlines the hot calls of the event loops — the levels, the FIFO rings, the samplers —
# that the default inlining budget leaves as calls). The profile is of the benchmarks of the hot models: the
# supermarket's configurations, the bulletin board's (JSQ(2) and JSQ at T = 5 and 50) and balls into bins (d = 1 and
# 2). Refresh it after changing an engine; a stale profile still builds, it only optimises less. PGO changes no result
# on amd64 at the default GOAMD64=v1 (the compiler fuses no multiply-adds there; it does on arm64 and from GOAMD64=v3).
#   bash bench/pgo.sh
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The benchmarks run as the current profile builds them (iterative PGO, as the Go documentation recommends: the new
# profile then sees the calls that remain calls once the old one's inlining is done).
pgo=off
if [ -f cmd/sweep/default.pgo ]; then pgo=$PWD/cmd/sweep/default.pgo; fi
go test -pgo="$pgo" -run '^$' -bench . -benchtime 10x -cpuprofile "$work/supermarket.prof" -o "$work/supermarket.test" \
  ./model/supermarket/ >/dev/null
go test -pgo="$pgo" -run '^$' -bench . -benchtime 1s -cpuprofile "$work/bins.prof" -o "$work/bins.test" ./model/bins/ >/dev/null
go tool pprof -proto "$work/supermarket.prof" "$work/bins.prof" >cmd/sweep/default.pgo 2>/dev/null
echo "wrote cmd/sweep/default.pgo ($(wc -c <cmd/sweep/default.pgo) bytes)"
