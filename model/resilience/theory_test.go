package resilience

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"lbsweep/analytic"
	"lbsweep/experiments/claims"
	"lbsweep/model"
	"lbsweep/model/sim"
	"lbsweep/results/schema"
)

// thAlpha is the family-wise error rate of this file's statistical checks: each test splits it over its checks
// (Bonferroni), so a correct model fails a test with probability below thAlpha.
const thAlpha = 0.001

// thPoint is point (helpers_test.go) over one class written "servers=COUNTxWORKERS", random dispatch, and settings.
func thPoint(t testing.TB, set ...string) model.Point {
	t.Helper()
	var classes []model.Record
	var rest []string
	for _, kv := range set {
		if v, ok := strings.CutPrefix(kv, "servers="); ok {
			var count, workers int
			fmt.Sscanf(v, "%dx%d", &count, &workers)
			classes = append(classes, srvClass(t, count, fmt.Sprint("workers=", workers)))
			continue
		}
		rest = append(rest, kv)
	}
	return point(t, classes, nil, "random", rest...)
}

// thRows runs p for reps replications (seeds 1..reps) and returns the rows with theory filled, as a sweep does.
func thRows(t testing.TB, p model.Point, reps int) []schema.Row {
	t.Helper()
	rows := make([]schema.Row, reps)
	for i := range rows {
		row, err := model.RunRow(context.Background(), Model{}, p, model.Seed{Run: uint64(1000 + i), Policy: 3})
		if err != nil {
			t.Fatal(err)
		}
		rows[i] = row
	}
	return rows
}

// thCol returns column col of rows as floats (integers converted).
func thCol(rows []schema.Row, col schema.Column) []float64 {
	i := slices.IndexFunc(metrics.Columns(), func(c schema.Column) bool { return c.Name == col.Name })
	out := make([]float64, len(rows))
	for k, r := range rows {
		switch c := r[i]; {
		case !c.Valid:
			out[k] = math.NaN()
		case col.Type == schema.Int64:
			out[k] = float64(c.I)
		default:
			out[k] = c.F
		}
	}
	return out
}

// thCell is row's cell of col.
func thCell(row schema.Row, col schema.Column) schema.Cell {
	return row[slices.IndexFunc(metrics.Columns(), func(c schema.Column) bool { return c.Name == col.Name })]
}

// thWithin checks |mean − want| ≤ CI half-width at level 1 − a, plus allowance (the sketch's relative accuracy for
// percentiles, 0 for exact statistics).
func thWithin(t *testing.T, what string, xs []float64, want, allowance, a float64) {
	t.Helper()
	e := claims.MeanCI(xs, a)
	t.Logf("%s: sim %.5g ± %.2g (%.2f%% CI, %d runs), theory %.5g", what, e.Mean, e.Half, 100*(1-a), e.N, want)
	if !(math.Abs(e.Mean-want) <= e.Half+allowance) {
		t.Errorf("%s: sim %.6g ± %.3g does not cover theory %.6g (allowance %.3g)", what, e.Mean, e.Half, want, allowance)
	}
}

// Random dispatch over alike exponential servers with no timeouts: each server is exactly M/M/c (Poisson
// splitting), and the latency is four hops plus its sojourn. Mean and p99 of the successes against Erlang C's law,
// the theory columns against the analytic functions, at c = 1 and c = 4, with hops and without.
func TestRandomIsMMc(t *testing.T) {
	cases := []struct {
		name string
		set  []string
		c    int
		lam  float64 // per server per ms
		mu   float64
		hop  float64
	}{
		{"M/M/1, no hops, ρ = 0.7", []string{"servers=4x1", "mean=10", "rate=280", "hop=0"}, 1, 0.07, 0.1, 0},
		{"M/M/4, 5 ms hops, ρ = 0.85", []string{"servers=3x4", "mean=20", "rate=510", "hop=5"}, 4, 0.17, 0.05, 5},
	}
	a := thAlpha / float64(2*len(cases))
	for _, tc := range cases {
		p := thPoint(t, append(tc.set, "horizon=200000", "warmup=10000")...)
		rows := thRows(t, p, 8)
		mean := 4*tc.hop + analytic.MMcMeanSojourn(tc.lam, tc.mu, tc.c)
		p99 := 4*tc.hop + analytic.MMcSojournQuantile(tc.lam, tc.mu, tc.c, 0.99)
		thWithin(t, tc.name+": mean latency", thCol(rows, colMeanLatency), mean, 0, a)
		thWithin(t, tc.name+": p99 latency", thCol(rows, colP99Latency), p99, sim.RelativeAccuracy*p99, a)
		if got := thCell(rows[0], colTheoryMean).F; math.Abs(got-mean) > 1e-9*mean {
			t.Errorf("%s: theory_mean_latency %v, want %v", tc.name, got, mean)
		}
		if got := thCell(rows[0], colTheoryP99).F; math.Abs(got-p99) > 1e-9*p99 {
			t.Errorf("%s: theory_p99_latency %v, want %v", tc.name, got, p99)
		}
	}
}

// A bounded FIFO queue makes each server M/M/c/K under random dispatch: the rejected share of attempts is the
// blocking probability π_K (PASTA), and the admitted requests' latency follows the admitted sojourn law.
func TestRandomBoundedIsMMcK(t *testing.T) {
	const c, queue = 2, 3
	lam, mu := 0.09, 0.05 // ρ = 0.9: blocking is a few percent
	p := thPoint(t, "servers=5x2", "mean=20", "rate=450", "hop=0", "queue=3", "horizon=200000", "warmup=10000")
	rows := thRows(t, p, 8)
	a := thAlpha / 3
	k := c + queue
	block := analytic.MMcKBlocking(lam, mu, c, k)
	rej, att := thCol(rows, colRejections), thCol(rows, colAttempts)
	share := make([]float64, len(rows))
	for i := range share {
		share[i] = rej[i] / att[i]
	}
	thWithin(t, "rejected share", share, block, 0, a)
	mean := analytic.MMcKMeanSojourn(lam, mu, c, k)
	thWithin(t, "admitted mean latency", thCol(rows, colMeanLatency), mean, 0, a)
	p99 := analytic.MMcKSojournQuantile(lam, mu, c, k, 0.99)
	thWithin(t, "admitted p99 latency", thCol(rows, colP99Latency), p99, sim.RelativeAccuracy*p99, a)
	if got := thCell(rows[0], colTheoryBlocking).F; math.Abs(got-block) > 1e-12 {
		t.Errorf("theory_blocking %v, want %v", got, block)
	}
}

// With a timeout and no retries, the share of attempts the balancer times out is the tail of the server's sojourn
// at timeout − 2·hop (the balancer's clock starts when it forwards the attempt and the answer needs a hop back).
func TestTimeoutProbabilityIsTheTail(t *testing.T) {
	lam, mu := 0.16, 0.05 // M/M/4 at ρ = 0.8
	p := thPoint(t, "servers=3x4", "mean=20", "rate=480", "hop=5", "timeout=80", "horizon=200000", "warmup=10000")
	rows := thRows(t, p, 8)
	want := analytic.TimeoutProb(func(x float64) float64 { return analytic.MMcSojournTail(lam, mu, 4, x) }, 80-2*5)
	to, att := thCol(rows, colTimeouts), thCol(rows, colAttempts)
	share := make([]float64, len(rows))
	for i := range share {
		share[i] = to[i] / att[i]
	}
	thWithin(t, "timed-out share", share, want, 0, thAlpha)
	if got := thCell(rows[0], colTheoryPTimeout).F; math.Abs(got-want) > 1e-12 {
		t.Errorf("theory_p_timeout %v, want %v", got, want)
	}
}

// The retry fixed point's columns are the analytic roots, in attempts per second over the fleet, and the simulated
// fleet rests in either stable state: left alone it stays at the healthy root (within the CI: at p(x) ≈ 10^-3 the
// approximation's neglect of correlated retries is second order), and after a trigger (every server at a quarter
// speed for 1.5 s, as seed 004's retry-storm) it stays beyond the unstable root, in the metastable basin, long after
// the trigger has ended. Seed 004's retry-storm numbers: 100 ms timeout, 5 ms hops, 3 retries; four M/M/1 servers
// at 5 ms and 60% load, where the healthy state is robust (at 70% its fluctuations alone trigger storms within a
// minute in a fraction of runs: the threshold root is only 25% above the healthy one).
func TestRetryFixedPointStates(t *testing.T) {
	set := []string{"servers=4x1", "mean=5", "rate=480", "hop=5", "timeout=100", "retries=3", "horizon=60000", "warmup=15000"}
	p := thPoint(t, set...)
	roots := analytic.MMcRetryFixedPoints(0.12, 0.2, 1, 90, 3, math.Inf(1))
	if len(roots) != 3 || !roots[0].Stable || roots[1].Stable || !roots[2].Stable {
		t.Fatalf("want stable, unstable, stable roots: %+v", roots)
	}
	healthy, threshold, meta := roots[0].Load*4000, roots[1].Load*4000, roots[2].Load*4000
	rows := thRows(t, p, 6)
	if got := thCell(rows[0], colTheoryHealthy).F; math.Abs(got-healthy) > 1e-9*healthy {
		t.Errorf("theory_attempt_rate_healthy %v, want %v", got, healthy)
	}
	if got := thCell(rows[0], colTheoryMeta).F; math.Abs(got-meta) > 1e-9*meta {
		t.Errorf("theory_attempt_rate_metastable %v, want %v", got, meta)
	}
	thWithin(t, "attempt rate, healthy", thCol(rows, colAttemptRate), healthy, 0, thAlpha/2)

	trigger, restore := entry(t, 10000, "slow", "factor=0.25"), entry(t, 11500, "restore")
	p[pTimeline] = model.RecordsValue([]model.Record{trigger, restore})
	if _, err := (Model{}).Check(p, model.CheckOptions{}); err != nil {
		t.Fatal(err)
	}
	storm := claims.MeanCI(thCol(thRows(t, p, 6), colAttemptRate), thAlpha/2)
	t.Logf("attempt rate after the trigger: %.5g ± %.2g; roots: healthy %.5g, threshold %.5g, metastable %.5g attempts/s", storm.Mean, storm.Half, healthy, threshold, meta)
	if !(storm.Mean-storm.Half > threshold) {
		t.Errorf("attempt rate %.5g ± %.2g after the trigger: not beyond the unstable root %.5g", storm.Mean, storm.Half, threshold)
	}
}

// An attempt keeps its request's measured flag: a timed-out attempt from before the window, still queued or in
// service after its request has ended (and the request's record has been reused by a measured one), must not be
// counted as measured. With a window (15 ms) shorter than the timeout (20 ms) no measured attempt can time out, so
// none can be dropped as expired or waste work (a 10× overloaded server: before the fix, replications counted up to
// 6 drops and 14.6 ms of waste).
func TestWarmupLeftoversNotMeasured(t *testing.T) {
	for _, drop := range []string{"true", "false"} {
		p := point(t, []model.Record{srvClass(t, 1)}, nil, "random", "queue=1000", "drop_expired="+drop, "rate=1000",
			"mean=10", "hop=0.001", "timeout=20", "horizon=1015", "warmup=1000", "bin=0")
		for i, row := range thRows(t, p, 8) {
			if to, dr, w := thCell(row, colTimeouts).I, thCell(row, colDropped).I, thCell(row, colWastedWork).F; to != 0 || dr != 0 || w != 0 {
				t.Errorf("drop_expired = %s, replication %d: timeouts %d, dropped %d, wasted %v ms: want all 0", drop, i, to, dr, w)
			}
		}
	}
}

// The series has exactly horizon/bin bins, at times i·bin (a product, not a running sum that drifts and loses the
// last bin).
func TestSeriesBinsExact(t *testing.T) {
	p := point(t, []model.Record{srvClass(t, 1)}, nil, "random", "rate=10", "horizon=1000", "bin=0.1")
	_, rows, err := Model{}.RunSeries(context.Background(), p, model.Seed{Run: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 10000 {
		t.Fatalf("%d bins, want 10000", len(rows))
	}
	for i, r := range rows {
		if got := r[0].F; got != float64(i)*0.1 {
			t.Fatalf("bin %d at %v, want %v", i, got, float64(i)*0.1)
		}
	}
}

// The per-server series are exact time averages over each bin: with warm-up 0 and no pauses, the in-service part
// (in_flight − queued) integrates over the bins to the worker time spent (outcome.busy, accounted attempt by attempt
// at the end of service), up to the work of the attempts still in service at the horizon (at most workers·n of them,
// each under its own draw: bounded here by the largest work, constant service).
func TestSeriesTimeAverages(t *testing.T) {
	p := point(t, []model.Record{srvClass(t, 2, "workers=2")}, nil, "round_robin", "service=constant", "mean=20",
		"rate=150", "hop=5", "horizon=20000", "bin=250")
	out := run(t, p, 7)
	area := 0.0
	for _, smp := range out.series {
		for k := range smp.inFlight {
			area += (smp.inFlight[k] - smp.queue[k]) * 250
		}
	}
	if gap := area - out.busy; gap < -1e-6 || gap > 4*20 {
		t.Errorf("∫ in service over the bins %.6g ms, worker time %.6g ms: gap %.3g, want within [0, 80]", area, out.busy, gap)
	}
}
