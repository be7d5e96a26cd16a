#!/usr/bin/env bash
# Side-by-side speed of lbsweep and the C reference simulator (shared/anchors beside this repository), alternating
# the two on the same configurations, ROUNDS times, and printing each configuration's median events/s and the ratio.
#   bash bench/compare.sh [ANCHORS_DIR] [ROUNDS]
# Machines here are noisy: run it on a quiet machine, and read the ratios, not the absolute numbers.
# Both sides run the same engine family: lbsweep's exact CTMC against the C reference's `engine=ctmc` (its default).
# The Go benchmarks are compiled with the sweep binary's profile (cmd/sweep/default.pgo), so they time the code
# `bin/sweep` runs.
set -euo pipefail
cd "$(dirname "$0")/.."
anchors=${1:-../shared/anchors}
rounds=${2:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$anchors"/. "$work/anchors"
chmod -R u+w "$work/anchors"
make -s -C "$work/anchors" supermarket bins >/dev/null
go test -c -pgo=cmd/sweep/default.pgo -o "$work/supermarket.test" ./model/supermarket/
go test -c -pgo=cmd/sweep/default.pgo -o "$work/bins.test" ./model/bins/

json() { python3 -c "import json,sys; print(json.load(sys.stdin)['$1'])"; }
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
declare -A go c
for r in $(seq "$rounds"); do
  out=$("$work/supermarket.test" -test.run '^$' -test.bench . -test.benchtime 5x)
  for b in P2CN100 P2CN1000 RandomN100 JSQN100; do
    go[$b]+="$(awk -v b="Benchmark$b-" 'index($1, b) == 1 { print $(NF-1) }' <<<"$out") "
  done
  binsout=$("$work/bins.test" -test.run '^$' -test.bench P2CMillion -test.benchtime 20x)
  go[bins]+="$(awk '$1 ~ /^BenchmarkP2CMillion-/ { print $(NF-1) }' <<<"$binsout") "
  go[place]+="$(awk '$1 ~ /^BenchmarkP2CMillionPlace-/ { print $(NF-1) }' <<<"$binsout") "
  # The C reference on the same configurations (horizon 2·10^6/n, warm-up a tenth, as the Go benchmarks).
  c[P2CN100]+="$("$work/anchors/supermarket" jsqd 2 100 0.9 20000 2000 "$r" | json events_per_sec) "
  c[P2CN1000]+="$("$work/anchors/supermarket" jsqd 2 1000 0.9 2000 200 "$r" | json events_per_sec) "
  c[RandomN100]+="$("$work/anchors/supermarket" random 1 100 0.9 20000 2000 "$r" | json events_per_sec) "
  c[JSQN100]+="$("$work/anchors/supermarket" jsq 1 100 0.9 20000 2000 "$r" | json events_per_sec) "
  c[bins]+="$("$work/anchors/bins" 1000000 1000000 2 "$r" dchoice reps=20 | json balls_per_sec) "
  c[place]=${c[bins]}
done
printf '%-32s %16s %16s %7s\n' configuration lbsweep "C reference" ratio
for b in P2CN100 P2CN1000 RandomN100 JSQN100 bins place; do
  g=$(tr ' ' '\n' <<<"${go[$b]}" | grep . | median)
  r=$(tr ' ' '\n' <<<"${c[$b]}" | grep . | median)
  case $b in
    P2CN100) name="supermarket jsq_d d=2, n=100";; P2CN1000) name="supermarket jsq_d d=2, n=1000";;
    RandomN100) name="supermarket random, n=100";; JSQN100) name="supermarket jsq, n=100";;
    bins) name="balls_into_bins d=2, m=n=10^6";;
    place) name="  its placement loop alone";;
  esac
  awk -v n="$name" -v g="$g" -v r="$r" 'BEGIN { printf "%-32s %14.3gM/s %14.3gM/s %7.2f\n", n, g/1e6, r/1e6, g/r }'
done
echo "(events/s for the supermarket, balls/s for bins; medians of $rounds alternating rounds. The C reference times"
echo " its event loop and its throw loop only; lbsweep's rows are whole runs, except the placement loop's.)"

# Two workers against one on a grid of equal runs (8 runs of JSQ(2), n = 100, 3.6·10^7 events each), and the peak
# resident memory of one long run (n = 1000, horizon 50000: 9·10^7 events) — with the sweep binary as `make` builds it.
go build -o "$work/sweep" ./cmd/sweep
spec() { # NAME N HORIZON REPLICATIONS
  cat <<TOML
name = "$1"
model = "supermarket"
seed = 1
replications = $4
[params]
n = $2
lambda = 0.9
horizon = $3
warmup = $(($3 / 10))
policy = { name = "jsq_d", d = 2 }
TOML
}
spec grid 100 200000 8 >"$work/grid.toml"
spec long 1000 50000 1 >"$work/long.toml"
secs() { local s=$EPOCHREALTIME; "$@" >/dev/null 2>&1; awk -v a="$s" -v b="$EPOCHREALTIME" 'BEGIN { print b - a }'; }
one=$(secs "$work/sweep" -q -force -j 1 -o "$work/out1" "$work/grid.toml")
two=$(secs "$work/sweep" -q -force -j 2 -o "$work/out2" "$work/grid.toml")
cmp -s "$work/out1/grid/runs.parquet" "$work/out2/grid/runs.parquet" && same="byte-identical" || same="DIFFERENT"
awk -v a="$one" -v b="$two" -v s="$same" 'BEGIN { printf "workers: 8 equal runs in %.2f s with -j 1, %.2f s with -j 2: %.2fx (%s Parquet)\n", a, b, a / b, s }'
/usr/bin/time -o "$work/rss" -f '%M' "$work/sweep" -q -force -j 1 -o "$work/out3" "$work/long.toml" >/dev/null 2>&1
rss=$(tail -1 "$work/rss")
echo "peak RSS of one run, n = 1000, horizon 50000: $((rss / 1024)) MB"
