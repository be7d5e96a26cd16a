package supermarket

import (
	"context"
	"math"

	"gonum.org/v1/gonum/stat/distuv"
	"testing"

	"lbsweep/experiments/claims"
	"lbsweep/model"
	"lbsweep/model/policy"
	"lbsweep/model/sim"
	"lbsweep/results"
)

func boardPoint(t testing.TB, n int, lambda, horizon, warmup, period float64, rule update, k int, pol string, d int) model.Point {
	t.Helper()
	p := make(model.Point, len(boardParams))
	p[bN], p[bLambda], p[bHorizon], p[bWarmup] = model.IntValue(int64(n)), model.FloatValue(lambda), model.FloatValue(horizon), model.FloatValue(warmup)
	p[bPeriod], p[bUpdate], p[bDispatchers] = model.FloatValue(period), model.IntValue(int64(rule)), model.IntValue(int64(k))
	p[bSample], p[bTrack] = model.FloatValue(0), model.IntValue(4)
	p[bPolicy] = model.IntValue(policyIndex(t, pol))
	e := policy.Registry[p[bPolicy].I]
	for i := bD; i < len(boardParams); i++ {
		a, _ := e.Arg(boardParams[i].Name)
		p[i] = a.Default // null where e does not take it
	}
	if e.Takes("d") {
		p[bD] = model.IntValue(int64(d))
	}
	if e.Takes("tau") {
		p[model.Index(boardParams, "tau")] = model.FloatValue(10)
	}
	if _, err := (BulletinBoard{}).Check(p, model.CheckOptions{}); err != nil {
		t.Fatalf("invalid test point: %v", err)
	}
	return p
}

// levelsEqual reports whether two levels hold the same queue lengths.
func levelsEqual(a, b *sim.Levels) bool {
	for k := range a.N() {
		if a.Len(k) != b.Len(k) {
			return false
		}
	}
	return true
}

// A dispatcher never sees a change before the refresh: the periodic board stays as it was at the last refresh while
// the true queues change, and equals them right after the refresh.
func TestBoardPeriodicHidesChanges(t *testing.T) {
	const n = 8
	lv := sim.NewLevels(n)
	s := sim.NewStreams(model.Seed{Run: 1})
	e, _ := policy.Lookup("jsq")
	b := newBoard(periodic, 5, 1, func() policy.Policy { return e.Build(nil).New(policy.Servers{N: n}) }, false, lv, s)
	if b.next() != 5 {
		t.Fatalf("first refresh at %v, want 5", b.next())
	}
	churn := sim.NewRand(2, 3)
	for step := range 3 {
		frozen := sim.NewLevels(n)
		for k := range n {
			frozen.Set(k, b.views[0].Len(k), 0)
		}
		for i := range 40 { // arrivals through the board and departures, all before the refresh
			t0 := float64(step)*5 + float64(i)/10
			k := b.pick(lv, t0)
			lv.Up(k, t0)
			if busy := lv.Count(1); busy > 0 && churn.IntN(3) == 0 {
				lv.Down(lv.Busy(churn.IntN(busy)), t0)
			}
			if !levelsEqual(b.views[0], frozen) {
				t.Fatalf("phase %d: the board changed before the refresh", step)
			}
		}
		b.fire(b.next(), lv)
		if !levelsEqual(b.views[0], lv) {
			t.Fatalf("phase %d: the board differs from the true queues right after a refresh", step)
		}
		if want := float64(step+2) * 5; b.next() != want {
			t.Fatalf("next refresh at %v, want %v", b.next(), want)
		}
	}
	// JSQ on a stale board sends everything to the servers the board shows shortest: the herd.
	m, _ := b.views[0].Shortest()
	for range 10 {
		if k := b.pick(lv, 15); b.views[0].Len(k) != m {
			t.Fatalf("jsq picked a server the board does not show shortest")
		}
	}
}

// dispatch_counts: each dispatcher sees its own sends at once (in its own copy) and the others' only at the refresh.
func TestBoardDispatchCounts(t *testing.T) {
	const n, k = 6, 3
	lv := sim.NewLevels(n)
	s := sim.NewStreams(model.Seed{Run: 4})
	e, _ := policy.Lookup("jsq")
	b := newBoard(dispatchCounts, 10, k, func() policy.Policy { return e.Build(nil).New(policy.Servers{N: n}) }, false, lv, s)
	if len(b.views) != k {
		t.Fatalf("%d views, want one per dispatcher", len(b.views))
	}
	sends := make([][]int32, k) // per dispatcher, its sends per server since the last refresh
	for j := range sends {
		sends[j] = make([]int32, n)
	}
	for i := range 200 {
		before := make([][]int32, k)
		for j, v := range b.views {
			before[j] = make([]int32, n)
			for srv := range n {
				before[j][srv] = v.Len(srv)
			}
		}
		srv := b.pick(lv, float64(i)/100)
		lv.Up(srv, float64(i)/100)
		changed := -1
		for j, v := range b.views {
			for q := range n {
				d := v.Len(q) - before[j][q]
				switch {
				case d == 1 && q == srv && changed < 0:
					changed = j
				case d != 0:
					t.Fatalf("send %d: dispatcher %d's copy changed at server %d by %d (sent to %d)", i, j, q, d, srv)
				}
			}
		}
		if changed < 0 {
			t.Fatalf("send %d: no copy saw it", i)
		}
		sends[changed][srv]++
	}
	// Before the refresh each copy is the last refresh (all zero) plus its own sends, and nothing else.
	for j, v := range b.views {
		for q := range n {
			if v.Len(q) != sends[j][q] {
				t.Fatalf("dispatcher %d, server %d: copy %d, own sends %d", j, q, v.Len(q), sends[j][q])
			}
		}
	}
	b.fire(10, lv)
	for j, v := range b.views {
		if !levelsEqual(v, lv) {
			t.Fatalf("dispatcher %d's copy differs from the truth after the refresh", j)
		}
	}
}

// individual: each entry is refreshed at its own Poisson rate 1/T, so at any moment an entry's age is Exp(1/T): mean
// T and P(age > T) = 1/e. Ages are sampled at 2000 well-separated times over 50 entries; the test uses the binomial
// count of ages above T (normal approximation, two-sided alpha) and the mean age's CI.
func TestBoardIndividualAgesAreExponential(t *testing.T) {
	const n, T = 50, 2.0
	lv := sim.NewLevels(n)
	random, _ := policy.Lookup("random")
	b := newBoard(individual, T, 1, func() policy.Policy { return random.Build(nil).New(policy.Servers{N: n}) }, false, lv, sim.NewStreams(model.Seed{Run: 5}))
	last := make([]float64, n)
	var ages []float64
	above := 0
	for probe := 1; probe <= 2000; probe++ {
		at := float64(probe) * 3 * T // well past the start
		for b.next() <= at {
			t0 := b.next()
			b.fire(t0, lv)
			last[b.last] = t0
		}
		for k := range n {
			age := at - last[k]
			ages = append(ages, age)
			if age > T {
				above++
			}
		}
	}
	total := float64(len(ages))
	p := math.Exp(-1)
	z := distuv.UnitNormal.Quantile(1 - 0.001/2) // two-sided 0.001
	// The 50 entries at one probe are independent; probes 3T apart are nearly so (correlation of the indicator
	// about e^(−3)): the binomial spread is widened by 1.1 (see the mean below).
	if d := math.Abs(float64(above) - total*p); d > 1.1*z*math.Sqrt(total*p*(1-p)) {
		t.Errorf("ages above T: %d of %.0f, expected %.0f", above, total, total*p)
	}
	e := claims.MeanCI(ages, 0.001)
	// Ages of the 50 entries at one probe are independent; probes 3T apart are nearly so (correlation e^(−3)):
	// widen the CI by √(1 + 2e^(−3)/(1 − e^(−3))) ≈ 1.05 and round up to 1.1.
	if math.Abs(e.Mean-T) > 1.1*e.Half {
		t.Errorf("mean age %.4f ± %.4f, want T = %v", e.Mean, e.Half, T)
	}
}

// Period 0 is fresh information: the bulletin board reproduces the supermarket run exactly (same streams, same
// picks), and random dispatch ignores the board at any period.
func TestBoardFreshIsSupermarket(t *testing.T) {
	for _, c := range []struct {
		pol    string
		d      int
		period float64
	}{{"jsq_d", 2, 0}, {"jsq", 0, 0}, {"random", 0, 5}, {"peak_ewma", 0, 0}} {
		bp := boardPoint(t, 20, 0.8, 2000, 200, c.period, periodic, 1, c.pol, c.d)
		sp := point(t, 20, 0.8, 2000, 200, c.pol, c.d, false)
		seed := model.Seed{Run: 77, Policy: 3}
		b, _ := runRow(BulletinBoard{}, bp, seed)
		s, _ := runRow(Model{}, sp, seed)
		for m := range mUnstable {
			if !results.Equal(metrics.Columns()[m].Type, b[m], s[m]) {
				t.Errorf("%s, T = %v: %s = %+v on the board, %+v in the supermarket", c.pol, c.period, metrics.Columns()[m].Name, b[m], s[m])
			}
		}
		if c.pol == "random" && b[len(b)-1].S != SourceMM1 {
			t.Errorf("random on a stale board: theory_source %q, want M/M/1", b[len(b)-1].S)
		}
	}
}

// Sampling observes and draws nothing: a run with a time series has the same metrics as without, and the samples are
// at exact multiples of the interval (0.1·k, not a running sum: horizon 1 gives 10 samples, the last at 0.9).
func TestBoardSamplingObservesOnly(t *testing.T) {
	p := boardPoint(t, 20, 0.8, 1, 0, 0.5, periodic, 1, "jsq", 0)
	p[bSample] = model.FloatValue(0.1)
	seed := model.Seed{Run: 5, Policy: 1}
	row, series, err := BulletinBoard{}.RunSeries(context.Background(), p, seed)
	if err != nil {
		t.Fatal(err)
	}
	if len(series) != 10 {
		t.Fatalf("%d samples over [0, 1) every 0.1, want 10", len(series))
	}
	for i, r := range series {
		if want := float64(i) * 0.1; r[0].F != want {
			t.Errorf("sample %d at %v, want %v", i, r[0].F, want)
		}
	}
	p[bSample] = model.FloatValue(0)
	plain, _ := BulletinBoard{}.Run(context.Background(), p, seed)
	for m := range row {
		if !results.Equal(boardMetrics.Columns()[m].Type, row[m], plain[m]) {
			t.Errorf("%s differs with sampling: %+v vs %+v", boardMetrics.Columns()[m].Name, row[m], plain[m])
		}
	}
}
