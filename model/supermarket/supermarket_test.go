package supermarket

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"lbsweep/analytic"
	"lbsweep/experiments/claims"
	"lbsweep/model"
	"lbsweep/model/policy"
	"lbsweep/model/sim"
	"lbsweep/results"
	"lbsweep/results/schema"
)

// Statistical tests compare simulated means over independent replications with closed forms that are exact at
// finite n (random = n independent M/M/1 queues; round robin = E_n/M/1; s_1 = λ; Little's law), using a two-sided
// Student-t confidence interval at level 1 − alpha. The seeds are fixed, so each test is deterministic; alpha says
// how often a correct simulator would fail it if the seeds were drawn anew. A test that checks k numbers of one law
// checks each at alpha/k (Bonferroni), so that alpha bounds the whole test's chance of failing a correct simulator.
const alpha = 0.01

// Metric columns, by index into Metrics().
const (
	mMean = iota
	mP50
	mP99
	mTail
	mMeanMax
	mPeak
	mJobs
	mEvents
	mUnstable
	mTheoryMean
	mTheoryP99
	mTheoryTail
	mTheorySource
)

func policyIndex(t testing.TB, name string) int64 {
	for i, e := range policy.Registry {
		if e.Name == name {
			return int64(i)
		}
	}
	t.Fatalf("no policy %s", name)
	return -1
}

// point builds a supermarket point of unit-rate servers; d = 0 means the policy takes no d. The other policy
// arguments take their defaults (tau = 10).
func point(t testing.TB, n int, lambda, horizon, warmup float64, pol string, d int, replacement bool) model.Point {
	p := make(model.Point, len(params))
	p[pN], p[pLambda], p[pHorizon] = model.IntValue(int64(n)), model.FloatValue(lambda), model.FloatValue(horizon)
	p[pWarmup], p[pPolicy] = model.FloatValue(warmup), model.IntValue(policyIndex(t, pol))
	return finish(t, p, d, replacement, false)
}

// finish applies the policy arguments' defaults (d and replacement as given), resolves and checks p.
func finish(t testing.TB, p model.Point, d int, replacement, allowUnstable bool) model.Point {
	t.Helper()
	e := policy.Registry[p[pPolicy].I]
	for i := pD; i < len(params); i++ {
		a, _ := e.Arg(params[i].Name)
		p[i] = a.Default // null where e does not take it
	}
	if e.Takes("d") && (d > 0 || e.Requires("d")) {
		p[pD] = model.IntValue(int64(d))
	}
	if e.Takes("replacement") {
		p[pReplacement] = model.BoolValue(replacement)
	}
	if e.Takes("tau") {
		p[model.Index(params, "tau")] = model.FloatValue(10)
	}
	if err := (Model{}).Resolve(p); err != nil {
		t.Fatalf("invalid test point: %v", err)
	}
	if _, err := (Model{}).Check(p, model.CheckOptions{AllowUnstable: allowUnstable}); err != nil {
		t.Fatalf("invalid test point: %v", err)
	}
	return p
}

// heteroPoint builds a point over server classes at the given load (fraction of capacity).
func heteroPoint(t testing.TB, classes []analytic.Class, load, horizon, warmup float64, pol string, d int, allowUnstable bool) model.Point {
	p := make(model.Point, len(params))
	var recs []model.Record
	for _, c := range classes {
		recs = append(recs, model.Record{fCount: model.IntValue(int64(c.Count)), fRate: model.FloatValue(c.Rate), fWeight: {}})
	}
	p[pServers], p[pLoad], p[pHorizon] = model.RecordsValue(recs), model.FloatValue(load), model.FloatValue(horizon)
	p[pWarmup], p[pPolicy] = model.FloatValue(warmup), model.IntValue(policyIndex(t, pol))
	return finish(t, p, d, false, allowUnstable)
}

// replicate runs p with seeds 1..reps and returns the rows.
func replicate(t testing.TB, p model.Point, reps int) [][]results.Cell {
	rows := make([][]results.Cell, reps)
	for r := range reps {
		row, err := runRow(Model{}, p, model.Seed{Run: uint64(1000 + r), Policy: 7})
		if err != nil {
			t.Fatal(err)
		}
		rows[r] = row
	}
	return rows
}

func column(rows [][]results.Cell, f func([]results.Cell) float64) []float64 {
	xs := make([]float64, len(rows))
	for i, r := range rows {
		xs[i] = f(r)
	}
	return xs
}

func metric(m int) func([]results.Cell) float64 {
	return func(r []results.Cell) float64 { return r[m].F }
}

func level(i int) func([]results.Cell) float64 {
	return func(r []results.Cell) float64 {
		if i-1 < len(r[mTail].L) {
			return r[mTail].L[i-1]
		}
		return 0
	}
}

// within checks |mean − want| ≤ CI half-width + allowance, and logs the comparison.
func within(t *testing.T, what string, xs []float64, want, allowance, a float64) {
	t.Helper()
	e := claims.MeanCI(xs, a)
	ok := math.Abs(e.Mean-want) <= e.Half+allowance
	t.Logf("%s: sim %.5g ± %.2g (%.1f%% CI, %d runs), theory %.5g, allowance %.2g", what, e.Mean, e.Half, 100*(1-a), e.N, want, allowance)
	if !ok {
		t.Errorf("%s: sim %.6g ± %.3g does not cover %.6g (allowance %.3g)", what, e.Mean, e.Half, want, allowance)
	}
}

// Percentiles come from a DDSketch with relative error sim.RelativeAccuracy: that much is allowed on top of the CI.
func p99Allowance(theory float64) float64 { return sim.RelativeAccuracy * theory }

// Random dispatch makes every server an independent M/M/1 queue with arrival rate λ: exact at any n.
func TestRandomIsMM1(t *testing.T) {
	a := alpha / 7 // 7 checks of one law (Bonferroni)
	const n, lambda = 10, 0.7
	rows := replicate(t, point(t, n, lambda, 20000, 2000, "random", 0, false), 10)
	within(t, "mean sojourn", column(rows, metric(mMean)), analytic.MM1MeanSojourn(lambda, 1), 0, a)
	p99 := analytic.MM1SojournQuantile(lambda, 1, 0.99)
	within(t, "p99 sojourn", column(rows, metric(mP99)), p99, p99Allowance(p99), a)
	p50 := analytic.MM1SojournQuantile(lambda, 1, 0.5)
	within(t, "p50 sojourn", column(rows, metric(mP50)), p50, p99Allowance(p50), a)
	for i, s := range analytic.MM1Tail(lambda, 4) {
		within(t, "s_"+string(rune('1'+i)), column(rows, level(i+1)), s, 0, a)
	}
	if got := rows[0][mTheorySource].S; got != SourceMM1 {
		t.Errorf("theory_source = %q, want %q", got, SourceMM1)
	}
}

// Round robin sends every n-th arrival of a Poisson stream to each server: the E_n/M/1 queue, exact at any n.
func TestRoundRobinIsEnM1(t *testing.T) {
	a := alpha / 5 // 5 checks of one law (Bonferroni)
	const n, lambda = 10, 0.9
	rows := replicate(t, point(t, n, lambda, 50000, 5000, "round_robin", 0, false), 10)
	within(t, "mean sojourn", column(rows, metric(mMean)), analytic.RoundRobinMeanSojourn(lambda, n), 0, a)
	p99 := analytic.RoundRobinSojournQuantile(lambda, n, 0.99)
	within(t, "p99 sojourn", column(rows, metric(mP99)), p99, p99Allowance(p99), a)
	for i, s := range analytic.RoundRobinTail(lambda, n, 3) {
		within(t, "s_"+string(rune('1'+i)), column(rows, level(i+1)), s, 0, a)
	}
}

// JSQ(2) at n = 1000, λ = 0.9 against the mean-field fixed point s_i = λ^(2^i − 1). The fixed point is exact only
// as n → ∞; the finite-n allowance is the excess the C reference measures at this setting (shared/anchors/README.md:
// s_4 = 0.2069 ± 0.0007 vs 0.2059; mean sojourn 2.617 ± 0.002 vs 2.614), rounded up to 0.001 and 0.003.
func TestJSQ2FixedPointAtN1000(t *testing.T) {
	a := alpha / 6 // 6 checks of one law (Bonferroni)
	if testing.Short() {
		t.Skip("about 7·10^7 events")
	}
	const lambda = 0.9
	rows := replicate(t, point(t, 1000, lambda, 10000, 1000, "jsq_d", 2, false), 4)
	fp := analytic.JSQdTail(lambda, 2, 6)
	for i := 1; i <= 5; i++ {
		within(t, "s_"+string(rune('0'+i)), column(rows, level(i)), fp[i-1], 0.001, a)
	}
	within(t, "mean sojourn", column(rows, metric(mMean)), analytic.JSQdMeanSojourn(lambda, 2), 0.003, a)
	if got := rows[0][mTheorySource].S; got != SourceMeanField {
		t.Errorf("theory_source = %q, want %q", got, SourceMeanField)
	}
}

// s_1, the time-average busy fraction, equals λ exactly for unit-rate servers under any policy and any n. Six policies
// are tested; alpha/6 each keeps the family's error at alpha (Bonferroni).
func TestBusyFractionIsLambda(t *testing.T) {
	const n, lambda = 20, 0.8
	cases := []struct {
		pol string
		d   int
		rep bool
	}{{"random", 0, false}, {"round_robin", 0, false}, {"jsq_d", 2, false}, {"jsq_d", 2, true}, {"jsq_d", 3, false}, {"jsq", 0, false}}
	for _, c := range cases {
		rows := replicate(t, point(t, n, lambda, 5000, 500, c.pol, c.d, c.rep), 20)
		within(t, c.pol+" s_1", column(rows, level(1)), lambda, 0, alpha/float64(len(cases)))
	}
}

// Little's law per server: the time-average number of jobs Σ_i s_i equals λ × mean sojourn. The window's edges
// (jobs present at warm-up, jobs still in service at the horizon) cancel in expectation at stationarity.
func TestLittlesLaw(t *testing.T) {
	const n, lambda = 50, 0.85
	for _, pol := range []string{"random", "round_robin", "jsq_d", "jsq"} {
		d := 0
		if pol == "jsq_d" {
			d = 2
		}
		rows := replicate(t, point(t, n, lambda, 10000, 1000, pol, d, false), 10)
		diff := column(rows, func(r []results.Cell) float64 {
			sum := 0.0
			for _, s := range r[mTail].L {
				sum += s
			}
			return sum - lambda*r[mMean].F
		})
		within(t, pol+" L − λW", diff, 0, 0, alpha)
	}
}

// With one server every policy must pick it, and with common random numbers every policy then sees the same
// arrivals and services: the results are identical, not just statistically equal. The ring policies read keys, which
// this model's jobs do not have: they are refused (TestKeyedPoliciesRefused).
func TestOneServerAllPoliciesIdentical(t *testing.T) {
	var first []results.Cell
	for _, e := range policy.Registry {
		if e.Takes("min_ring_size") {
			continue
		}
		d := 0
		if e.Takes("d") {
			d = 1
		}
		row, err := runRow(Model{}, point(t, 1, 0.6, 2000, 100, e.Name, d, false), model.Seed{Run: 42, Policy: uint64(len(e.Name))})
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = row
			continue
		}
		for m := mMean; m <= mEvents; m++ {
			if row[m].F != first[m].F || row[m].I != first[m].I {
				t.Errorf("%s: metric %d = %+v, random gave %+v", e.Name, m, row[m], first[m])
			}
		}
	}
}

// JSQ(d) with d = n distinct samples is full JSQ (two code paths); JSQ(1) is random dispatch.
func TestJSQdLimits(t *testing.T) {
	const n, lambda = 10, 0.85
	full := column(replicate(t, point(t, n, lambda, 20000, 2000, "jsq", 0, false), 10), metric(mMean))
	dn := column(replicate(t, point(t, n, lambda, 20000, 2000, "jsq_d", n, false), 10), metric(mMean))
	diff := make([]float64, len(full))
	for i := range full {
		diff[i] = dn[i] - full[i] // same seeds: paired differences
	}
	within(t, "jsq_d(d=n) − jsq mean sojourn", diff, 0, 0, alpha)
	one := column(replicate(t, point(t, n, lambda, 20000, 2000, "jsq_d", 1, false), 10), metric(mMean))
	within(t, "jsq_d(d=1) mean sojourn vs M/M/1", one, analytic.MM1MeanSojourn(lambda, 1), 0, alpha)
}

// Accounting: every arrival departs (the system drains), so events = 2 × arrivals and is even; measured jobs are the
// Poisson count of arrivals in [warmup, horizon), within z·√mean of λ·n·(horizon − warmup), z for two-sided 0.001.
func TestAccounting(t *testing.T) {
	const n, lambda, horizon, warmup = 30, 0.75, 4000.0, 400.0
	row, err := runRow(Model{}, point(t, n, lambda, horizon, warmup, "jsq_d", 2, false), model.Seed{Run: 9})
	if err != nil {
		t.Fatal(err)
	}
	if row[mEvents].I%2 != 0 {
		t.Errorf("events = %d: arrivals and departures should pair up", row[mEvents].I)
	}
	mean := lambda * n * (horizon - warmup)
	const z = 3.2905 // two-sided 0.001 normal quantile
	if d := math.Abs(float64(row[mJobs].I) - mean); d > z*math.Sqrt(mean) {
		t.Errorf("jobs = %d, expected %.0f ± %.0f", row[mJobs].I, mean, z*math.Sqrt(mean))
	}
	if row[mPeak].I < 1 || float64(row[mPeak].I) < row[mMeanMax].F || len(row[mTail].L) != int(row[mPeak].I) {
		t.Errorf("peak %d, mean max %v, tail length %d: inconsistent", row[mPeak].I, row[mMeanMax].F, len(row[mTail].L))
	}
	if len(row[mTheoryTail].L) != len(row[mTail].L) {
		t.Errorf("theory_queue_tail has %d levels, queue_tail %d", len(row[mTheoryTail].L), len(row[mTail].L))
	}
	again, _ := runRow(Model{}, point(t, n, lambda, horizon, warmup, "jsq_d", 2, false), model.Seed{Run: 9})
	for m := range row {
		if !results.Equal(metrics.Columns()[m].Type, row[m], again[m]) && metrics.Columns()[m].Type != results.Float64List {
			t.Errorf("metric %s differs between identical runs", metrics.Columns()[m].Name)
		}
	}
}

// JSQ has no closed form: its theory columns are null; λ ≥ 1 (allowed) has none either.
func TestTheoryNullWhereNoneApplies(t *testing.T) {
	row, _ := runRow(Model{}, point(t, 5, 0.5, 500, 50, "jsq", 0, false), model.Seed{Run: 1})
	for _, m := range []int{mTheoryMean, mTheoryP99, mTheoryTail, mTheorySource} {
		if row[m].Valid {
			t.Errorf("jsq: %s should be null", metrics.Columns()[m].Name)
		}
	}
	p := point(t, 5, 0.5, 200, 20, "random", 0, false)
	p[pLambda] = model.FloatValue(1.1)
	if _, err := (Model{}).Check(p, model.CheckOptions{}); err == nil {
		t.Error("λ = 1.1 accepted without allow_unstable")
	}
	if w, err := (Model{}).Check(p, model.CheckOptions{AllowUnstable: true}); err != nil || len(w) == 0 {
		t.Errorf("λ = 1.1 with allow_unstable: warnings %v, err %v", w, err)
	}
	row, _ = runRow(Model{}, p, model.Seed{Run: 1})
	if row[mTheoryMean].Valid {
		t.Error("λ ≥ 1: theory_mean_sojourn should be null")
	}
}

// The CTMC engine knows a job's latency only when it departs, so the seed's observe = dispatch is refused; the seed's
// EWMA policies otherwise run, observing at completion.
func TestObserveAtDispatchRefused(t *testing.T) {
	p := point(t, 4, 0.5, 100, 0, "ewma", 0, false)
	i := model.Index(params, "observe")
	p[i] = model.IntValue(int64(slices.Index(params[i].Choices, "dispatch")))
	if _, err := (Model{}).Check(p, model.CheckOptions{}); err == nil || !strings.Contains(err.Error(), "observe") {
		t.Errorf("observe = dispatch: Check = %v, want an error naming observe", err)
	}
	if _, err := runRow(Model{}, point(t, 4, 0.5, 100, 0, "ewma_success", 2, false), model.Seed{Run: 1}); err != nil {
		t.Errorf("ewma_success with d = 2: %v", err)
	}
}

// runRow is model.RunRow with a background context: the metric row as a sweep writes it, theory included.
func runRow(m model.Model, p model.Point, seed model.Seed) (schema.Row, error) {
	return model.RunRow(context.Background(), m, p, seed)
}

// A cancelled context stops a long run soon after the cancel: about 2·10^9 events (minutes) return context.Canceled
// within a fraction of a second.
func TestRunStopsWhenCancelled(t *testing.T) {
	p := point(t, 100, 0.9, 1e7, 0, "jsq_d", 2, false)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	start := time.Now()
	row, err := Model{}.Run(ctx, p, model.Seed{Run: 1})
	if elapsed := time.Since(start); err != context.Canceled || row != nil || elapsed > 2*time.Second {
		t.Errorf("cancelled after 50 ms: row %v, err %v after %v; want context.Canceled within 2 s", row, err, elapsed)
	}
}

// The supermarket's and the bulletin board's jobs carry no key: a keyed policy (least_outstanding with tie = key,
// ring_hash) is refused with an Issue naming policy.
func TestKeyedPoliciesRefused(t *testing.T) {
	for _, tc := range []struct {
		name  string
		m     model.Model
		p     model.Point
		ps    []model.Param
		index int
	}{
		{"supermarket", Model{}, point(t, 4, 0.5, 100, 10, "least_outstanding", 0, false), params, pPolicy},
		{"bulletin_board", BulletinBoard{}, boardPoint(t, 4, 0.5, 100, 10, 1, 0, 1, "least_outstanding", 0), boardParams, bPolicy},
	} {
		p := tc.p
		p[model.Index(tc.ps, "tie")] = model.IntValue(int64(policy.TieKey))
		_, err := tc.m.Check(p, model.CheckOptions{})
		if is, ok := err.(model.Issue); !ok || is.Param != "policy" {
			t.Errorf("%s, tie = key: Check = %v, want an issue for policy", tc.name, err)
		}
		p[model.Index(tc.ps, "tie")] = model.Value{}
		p[tc.index] = model.IntValue(policyIndex(t, "ring_hash"))
		p[model.Index(tc.ps, "min_ring_size")] = model.IntValue(1024)
		_, err = tc.m.Check(p, model.CheckOptions{})
		if is, ok := err.(model.Issue); !ok || is.Param != "policy" {
			t.Errorf("%s, ring_hash: Check = %v, want an issue for policy", tc.name, err)
		}
	}
}
