#!/usr/bin/env bash
# lbsweep beside the C reference simulator (shared/anchors), by CPU time on a shared machine:
#   bash bench/compare.sh [ANCHORS_DIR] [ROUNDS]        (make bench [ANCHORS=DIR] [ROUNDS=N])
# 1. Whole processes, interleaved pairs (C, lbsweep, then lbsweep, C, … ROUNDS times, default 5), each timed by the
#    CPU time the kernel charged it (wait4's rusage: user + system), on the same configurations: the C reference's
#    `supermarket` and `bins` against `sweep` on a one-point spec, equal parameters and seeds of the same kind. The
#    ratio is C's CPU time per unit of work over lbsweep's (1: level; above 1, lbsweep is faster), its median and
#    range over the pairs; the work (events: arrivals and departures, warm-up and drain included, on both sides;
#    balls) is printed for both sides. "matched": C computes exact percentiles from stored samples (samples=1) where
#    lbsweep keeps a DDSketch, and both compute the queue-length tail and the mean max queue; lbsweep also writes
#    Parquet and its theory columns. "bare": C with samples=0 (its event loop and time averages only).
# 2. Instructions (valgrind's callgrind), each side once on a small fixed run: the same count whatever else runs.
# 3. Two workers against one: 8 equal runs with -j 1 and -j 2, idle, then beside one busy loop on another process.
# Needs gcc and make (the C reference), valgrind for part 2. Exits 1 when a target is not met.
set -euo pipefail
cd "$(dirname "$0")/.."
anchors=${1:-../shared/anchors}
rounds=${2:-5}
work=$(mktemp -d)
trap 'rm -rf "$work"; [ -z "${hog:-}" ] || kill "$hog" 2>/dev/null || true' EXIT
cp -r "$anchors"/. "$work/anchors"
chmod -R u+w "$work/anchors"
make -s -C "$work/anchors" supermarket bins >/dev/null
# With cmd/sweep/default.pgo, the VCS stamp and without cgo, as make builds bin/sweep (without the stamp every sweep
# reruns; cgo would add about 0.5·10^6 instructions and 70 page faults of start-up: the dynamic loader and libc).
CGO_ENABLED=0 go build -buildvcs=auto -o "$work/sweep" ./cmd/sweep
go build -o "$work/pairs" ./bench/pairs
CGO_ENABLED=0 go build -o "$work/floor" ./bench/floor
C=$work/anchors
mkdir -p "$work/specs"

# Names keep to [a-z0-9-]: jsqd_wr becomes jsqd-wr.
# sweepcmd NAME: the command that sweeps spec NAME afresh, one worker.
sweepcmd() { echo "$work/sweep -q -force -j 1 -o $work/out $work/specs/${1//_/-}.toml"; }
# spec NAME MODEL TOML-BODY: writes a one-point experiment and prints sweepcmd NAME.
spec() {
  local name=${1//_/-}
  printf 'name = "%s"\nmodel = "%s"\nseed = 7\n%s\n' "$name" "$2" "$3" >"$work/specs/$name.toml"
  sweepcmd "$name"
}
events() { echo "sum:events@$work/out/${1//_/-}"; }
# supermarket NAME N LAMBDA HORIZON POLICY-TABLE [MODEL [EXTRA]]
market() {
  spec "$1" "${6:-supermarket}" "[params]
n = $2
lambda = $3
horizon = $4
warmup = ${WARMUP:-$(($4 / 10))}
policy = $5
${7:-}"
}
# bins NAME D REPLICATIONS: balls into bins, m = n = 10^6 unless N is set, greedy with D probes.
bins() {
  spec "$1" balls_into_bins "replications = $3
[params]
n = ${N:-1000000}
balls_per_bin = 1.0
scheme = \"greedy\"
d = $2"
}
row() { printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$@" >>"$work/plan"; }
declare -A cpol=([random]="random 1" [rr]="rr 1" [jsqd]="jsqd 2" [jsqd_wr]="jsqd_wr 2" [jsq]="jsq 1")
declare -A gpol=([random]='{ name = "random" }' [rr]='{ name = "round_robin" }' [jsqd]='{ name = "jsq_d", d = 2 }'
  [jsqd_wr]='{ name = "jsq_d", d = 2, replacement = true }' [jsq]='{ name = "jsq" }')
declare -A label=([random]="random" [rr]="round robin" [jsqd]="JSQ(2)" [jsqd_wr]="JSQ(2) with replacement" [jsq]="JSQ")
# Horizons give about 1.8·10^7 events a process (0.3-0.6 s of C's CPU here).
horizon() { [ "$1" = 100 ] && echo 100000 || echo 10000; }

: >"$work/plan"
for n in 100 1000; do
  for p in random rr jsqd jsqd_wr jsq; do
    h=$(horizon $n)
    row "${label[$p]}, n = $n, λ = 0.9, matched" 0.9 json:events "$(events sm-$p-$n)" \
      "$C/supermarket ${cpol[$p]} $n 0.9 $h $((h / 10)) 7 samples=1" "$(market sm-$p-$n $n 0.9 $h "${gpol[$p]}")"
  done
done
for n in 100 1000; do
  h=$(horizon $n)
  row "JSQ(2), n = $n, λ = 0.99, matched" 0.9 json:events "$(events sm99-$n)" \
    "$C/supermarket jsqd 2 $n 0.99 $h $((h / 10)) 7 samples=1" "$(market sm99-$n $n 0.99 $h "${gpol[jsqd]}")"
done
for p in random rr jsqd jsqd_wr jsq; do
  row "${label[$p]}, n = 1000, λ = 0.9, bare (C samples=0)" 0.8 json:events "$(events sm-$p-1000)" \
    "$C/supermarket ${cpol[$p]} 1000 0.9 10000 1000 7 samples=0" "$(sweepcmd "sm-$p-1000")"
done
# The bulletin board against C's fresh-information loop (C has no board: the work is the same events, plus the
# board's copies of n entries every T, 1/(1.8·T) of an event per server here).
for p in jsqd jsq; do
  for T in 5 50; do
    row "bulletin board ${label[$p]}, T = $T, n = 100 (C: fresh)" 0.9 json:events "$(events bb-$p-$T)" \
      "$C/supermarket ${cpol[$p]} 100 0.9 100000 10000 7 samples=1" \
      "$(market bb-$p-$T 100 0.9 100000 "${gpol[$p]}" bulletin_board "period = $T")"
  done
done
row "bulletin board JSQ(2), T = 5, vs the supermarket" 0.9 "$(events sm-jsqd-100)" "$(events bb-jsqd-5)" \
  "$(sweepcmd sm-jsqd-100)" "$(sweepcmd bb-jsqd-5)"
# Balls into bins: R repetitions of m = n balls in n bins, greedy d (with replacement, the first probe wins ties,
# as C's dchoice); lbsweep also computes its theory columns once per point, for d = 1 at m ≤ 10^6 the exact
# multinomial median of the max load (about 4 ms at m = 10^6).
for n in 1000000 10000000; do
  for d in 1 2; do
    reps=$((n == 1000000 ? 100 : 10))
    row "bins d = $d, m = n = $n, $reps runs" 0.9 json:m*reps "sum:balls@$work/out/bins-$d-$n" \
      "$C/bins $n $n $d 7 dchoice reps=$reps" "$(N=$n bins "bins-$d-$n" "$d" "$reps")"
  done
done
# The fixed cost lbsweep adds to a bins point: one run of d = 1 at m = n = 10^6 with its exact median.
row "bins d = 1, m = n = 10^6, 1 run (lbsweep: + exact theory)" - json:m*reps "sum:balls@$work/out/bins-1-one" \
  "$C/bins 1000000 1000000 1 7 dchoice reps=1" "$(bins bins-1-one 1 1)"
# smooth_wrr against round robin, per event (equal weights), both lbsweep: within 2×.
row "smooth_wrr vs round robin, n = 500, per event" 0.5 "$(events rr-500)" "$(events swrr-500)" \
  "$(market rr-500 500 0.9 20000 '{ name = "round_robin" }')" "$(market swrr-500 500 0.9 20000 '{ name = "smooth_wrr" }')"
# Start-up: a sweep whose dataset is complete runs nothing; the target is on its CPU time over /bin/true's (both under
# GNU time, whose own cost cancels). The floor: a Go program that only links the Parquet library and the sketch
# (bench/floor).
row "start-up floor: a program linking only parquet/file and ddsketch (A: true)" - - - /bin/true "$work/floor"
row "start-up: a sweep with nothing to run (A: true)" "<0.010" - - /bin/true "$work/sweep -q -j 1 -o $work/out $work/specs/sm-jsqd-100.toml"

echo "== whole processes, CPU time, $rounds interleaved pairs each ($(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%F))"
status=0
"$work/pairs" -rounds "$rounds" "$work/plan" || status=$?
[ "$status" -le 1 ] || exit "$status"

echo
echo "== instructions (callgrind), each side once at two sizes: the marginal instructions per event (ball) and the fixed cost"
: >"$work/plan"
# Two sizes of each run: horizon 1500 and 2500 (warm-up 100) for the supermarket and the board, 1 and 2 runs of
# m = n = 10^6 for bins, so that start-up, theory and output (fixed) are told from the engine (marginal).
for x in 1 2; do
  for p in random jsqd jsq; do
    WARMUP=100 market "g-$p-$x" 100 0.9 "${x}500" "${gpol[$p]}" >/dev/null
  done
  WARMUP=100 market "g-bb-$x" 100 0.9 "${x}500" "${gpol[jsqd]}" bulletin_board "period = 5" >/dev/null
  for d in 1 2; do
    bins "g-bins-$d-$x" "$d" "$x" >/dev/null
  done
done
for p in random jsqd jsq; do
  row "${label[$p]}, n = 100, λ = 0.9" - json:events "$(events "g-$p-{x}")" \
    "$C/supermarket ${cpol[$p]} 100 0.9 {x}500 100 7 samples=1" "$(sweepcmd "g-$p-{x}")"
done
row "bulletin board JSQ(2), T = 5 (C: fresh)" - json:events "$(events "g-bb-{x}")" \
  "$C/supermarket jsqd 2 100 0.9 {x}500 100 7 samples=1" "$(sweepcmd "g-bb-{x}")"
for d in 1 2; do
  row "bins d = $d, m = n = 10^6" - json:m*reps "sum:balls@$work/out/g-bins-$d-{x}" "$C/bins 1000000 1000000 $d 7 dchoice reps={x}" \
    "$(sweepcmd "g-bins-$d-{x}")"
done
if command -v valgrind >/dev/null; then
  "$work/pairs" -callgrind "$work/plan"
else
  echo "valgrind is not installed (Debian: apt-get install valgrind): instruction counts skipped"
fi

echo
echo "== two workers against one: 8 runs of JSQ(2), n = 100, 1.8·10^7 events each (A: -j 1, B: -j 2)"
: >"$work/plan"
cmd=$(spec workers supermarket 'replications = 8
[params]
n = 100
lambda = 0.9
horizon = 100000
warmup = 10000
policy = { name = "jsq_d", d = 2 }')
row "idle machine" - "$(events workers)" "$(events workers)" "$cmd" "${cmd/-j 1/-j 2}"
"$work/pairs" -rounds 3 "$work/plan" | tail -n +2
bash -c 'while :; do :; done' &
hog=$!
: >"$work/plan"
row "beside one busy loop" - "$(events workers)" "$(events workers)" "$cmd" "${cmd/-j 1/-j 2}"
"$work/pairs" -rounds 3 "$work/plan" | tail -n +2
kill "$hog"
hog=
echo "(ratio: CPU per event with -j 1 over -j 2, 1 when two workers cost no extra CPU; wall: the speed-up)"
exit "$status"
