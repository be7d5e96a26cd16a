package bins

import (
	"context"
	"math"
	"slices"
	"testing"
	"time"

	"gonum.org/v1/gonum/stat/distuv"

	"lbsweep/analytic"
	"lbsweep/experiments/claims"
	"lbsweep/model"
	"lbsweep/model/sim"
	"lbsweep/results/schema"
)

// alpha is the significance level of the statistical tests here.
const alpha = 0.001

const (
	mBalls = iota
	mMax
	mGap
	mMin
	mCounts
	mTail
	mTheoryMax
	mTheoryTail
	mAsymptotic
	mSource
)

// pt builds a point: n bins, m balls, d probes, scheme and tie by name.
func pt(n, m, d int64, sch scheme, replacement bool, tieRule tie) model.Point {
	p := model.Point{
		pN: model.IntValue(n), pM: model.IntValue(m), pBallsPerBin: {}, pD: model.IntValue(d),
		pReplacement: model.BoolValue(replacement), pTie: model.IntValue(int64(tieRule)),
		pScheme: model.IntValue(int64(sch)), pNoise: model.FloatValue(0), pThreshold: {},
	}
	return p
}

func run(t testing.TB, p model.Point, seed uint64) schema.Row {
	t.Helper()
	if _, err := (Model{}).Check(p, model.CheckOptions{}); err != nil {
		t.Fatal(err)
	}
	row, err := model.RunRow(context.Background(), Model{}, p, model.Seed{Run: seed})
	if err != nil {
		t.Fatal(err)
	}
	return row
}

// Seed 001's assign(bins, probes=2): best = randrange(n); cand = randrange(n); replace only if strictly less. Replaying
// the same stream by hand gives every placement: the first probe wins ties.
func TestSeed001Semantics(t *testing.T) {
	const n = 5
	pl := &placer{n: n, d: 2, replacement: true, scheme: greedy}
	bins := []uint8{2, 1, 1, 3, 1}
	r, replay := sim.NewRand(7, 8), sim.NewRand(7, 8)
	for range 1000 {
		want := make([]uint8, n)
		copy(want, bins)
		best, cand := replay.IntN2(n, n) // randrange(n) twice: the first probe, then the candidate
		if want[cand] < want[best] {
			best = cand
		}
		want[best]++
		place(pl, bins, r, 0, 1)
		for k := range bins {
			if bins[k] != want[k] {
				t.Fatalf("bins %v, hand-replayed %v", bins, want)
			}
		}
		if bins[best] > 200 {
			break
		}
	}
}

// go_left: probe j lies in group j; ties go to the leftmost group (tie = first) or are split evenly (tie = random).
func TestGoLeftGroupsAndTies(t *testing.T) {
	const n, d = 6, 3
	pl := &placer{n: n, d: d, scheme: goLeft, groups: []int{0, 2, 4, 6}}
	bins := make([]uint8, n)
	r := sim.NewRand(1, 2)
	// All equal: the ball goes to group 0, whichever bins were probed.
	for range 50 {
		clear(bins)
		place(pl, bins, r, 0, 1)
		if bins[0]+bins[1] != 1 {
			t.Fatalf("a tie among all groups did not go left: %v", bins)
		}
	}
	// Group 0 now has both bins at 1 (or one at 2): the next ball goes to group 1 or 2 at load 0, leftmost first.
	bins = []uint8{1, 1, 0, 0, 0, 0}
	place(pl, bins, r, 0, 1)
	if bins[2]+bins[3] != 1 {
		t.Fatalf("tie at 0 between groups 1 and 2 did not go to group 1: %v", bins)
	}
	// tie = random: with every bin equal, each group receives a third of the balls.
	pl.tieRandom = true
	counts := make([]int, d)
	const balls = 30000
	for range balls {
		flat := make([]uint8, n)
		place(pl, flat, r, 0, 1)
		for k, v := range flat {
			if v == 1 {
				counts[k/2]++
			}
		}
	}
	z := distuv.UnitNormal.Quantile(1 - alpha/2)
	for g, c := range counts {
		mean, sd := balls/3.0, math.Sqrt(balls*(1.0/3)*(2.0/3))
		if math.Abs(float64(c)-mean) > z*sd {
			t.Errorf("tie = random: group %d got %d of %d balls", g, c, balls)
		}
	}
}

// Bins start as uint8 and widen as loads grow: one bin holds every ball, whatever the count.
func TestWidening(t *testing.T) {
	for _, m := range []int64{0, 255, 256, 300, 65535, 65536, 70000} {
		row := run(t, pt(1, m, 1, greedy, true, tieFirst), 1)
		if row[mMax].I != m || row[mMin].I != m || row[mCounts].L[m] != 1 || len(row[mTail].L) != int(m) {
			t.Errorf("m = %d in one bin: max %d min %d", m, row[mMax].I, row[mMin].I)
		}
	}
	// Several bins across the uint8 limit: loads sum to m.
	row := run(t, pt(3, 1000, 2, greedy, true, tieFirst), 2)
	sum := 0.0
	for k, c := range row[mCounts].L {
		sum += float64(k) * c
	}
	if sum != 1000 || row[mMax].I < 334 {
		t.Errorf("3 bins, 1000 balls: Σ load = %v, max %d", sum, row[mMax].I)
	}
}

// With threshold ≥ m every first probe is kept: the threshold rule is then uniform placement, and with the same
// stream it places every ball exactly where greedy d = 1 does.
func TestThresholdDegeneratesToRandom(t *testing.T) {
	thr := pt(1000, 5000, 2, threshold, true, tieFirst)
	thr[pThreshold] = model.IntValue(5000)
	one := pt(1000, 5000, 1, greedy, true, tieFirst)
	a, b := run(t, thr, 3), run(t, one, 3)
	for k := range a[mCounts].L {
		if a[mCounts].L[k] != b[mCounts].L[k] {
			t.Fatalf("threshold ≥ m differs from d = 1: %v vs %v", a[mCounts].L, b[mCounts].L)
		}
	}
	// Threshold −1: no first probe is kept, the second (unread) one is: uniform placement again, other draws.
	thr[pThreshold] = model.IntValue(-1)
	if c := run(t, thr, 3); c[mMax].I < 1 {
		t.Error("threshold −1 placed nothing")
	}
}

// The paper's setting m = n = 10^6 (seed 002 §1; the survey's "at most 12" for d = 1 and "4" for d = 2): d = 2 gives 4
// in every seed, go_left d = 2 gives 3 or 4, d = 1 gives 8–11; the fluid fractions of bins ≥ 3 and ≥ 4 agree with
// the simulated counts within the replications' confidence interval plus an allowance of 1% (the issue asks for
// agreement "within a few percent"; the C reference in shared/anchors averages 8892 bins ≥ 3 over 200 runs against the
// fluid 8895, and the issue quotes 8912 from a few seeds).
func TestMillionBalls(t *testing.T) {
	if testing.Short() {
		t.Skip("2·10^7 balls")
	}
	const n = 1_000_000
	var ge3, ge4 []float64
	var fluid3, fluid4 float64
	for seed := uint64(1); seed <= 5; seed++ {
		row := run(t, pt(n, n, 2, greedy, true, tieFirst), seed)
		if row[mMax].I != 4 {
			t.Errorf("d = 2, seed %d: max load %d, want 4", seed, row[mMax].I)
		}
		ge3, ge4 = append(ge3, row[mTail].L[2]*n), append(ge4, row[mTail].L[3]*n)
		fluid3, fluid4 = row[mTheoryTail].L[2]*n, row[mTheoryTail].L[3]*n
		if row[mTheoryMax].F != 4 {
			t.Errorf("fluid max load %v, want 4", row[mTheoryMax].F)
		}
		left := run(t, pt(n, n, 2, goLeft, true, tieFirst), seed)
		if left[mMax].I < 3 || left[mMax].I > 4 {
			t.Errorf("go_left d = 2, seed %d: max load %d, want 3 (rarely 4)", seed, left[mMax].I)
		}
		one := run(t, pt(n, n, 1, greedy, true, tieFirst), seed)
		if one[mMax].I < 8 || one[mMax].I > 11 {
			t.Errorf("d = 1, seed %d: max load %d, want 8–11", seed, one[mMax].I)
		}
	}
	for _, c := range []struct {
		name  string
		xs    []float64
		fluid float64
	}{{"bins ≥ 3", ge3, fluid3}, {"bins ≥ 4", ge4, fluid4}} {
		e := claims.MeanCI(c.xs, alpha)
		allow := 0.01 * c.fluid
		if c.name == "bins ≥ 4" {
			allow = 3 // about 6 bins expected: counting noise dominates, allow ±3 on top of the CI
		}
		t.Logf("%s: sim %.1f ± %.1f, fluid %.1f", c.name, e.Mean, e.Half, c.fluid)
		if math.Abs(e.Mean-c.fluid) > e.Half+allow {
			t.Errorf("%s: sim %.1f ± %.1f vs fluid %.1f", c.name, e.Mean, e.Half, c.fluid)
		}
	}
}

// Without replacement and with random ties the law barely moves at n = 10^5: still max load 4 at d = 2, and the
// same fraction of bins ≥ 3 within the CIs.
func TestVariantsAgree(t *testing.T) {
	const n = 100_000
	var a, b []float64
	for seed := uint64(1); seed <= 8; seed++ {
		a = append(a, run(t, pt(n, n, 2, greedy, true, tieFirst), seed)[mTail].L[2])
		b = append(b, run(t, pt(n, n, 2, greedy, false, tieRandom), seed)[mTail].L[2])
	}
	ea, eb := claims.MeanCI(a, alpha), claims.MeanCI(b, alpha)
	if math.Abs(ea.Mean-eb.Mean) > ea.Half+eb.Half {
		t.Errorf("s_3: with replacement %v ± %v, distinct+random ties %v ± %v", ea.Mean, ea.Half, eb.Mean, eb.Half)
	}
}

// BenchmarkP2CMillion times whole runs (allocation, placement, histogram, theory) of m = n = 10^6, d = 2.
func BenchmarkP2CMillion(b *testing.B) {
	p := pt(1_000_000, 1_000_000, 2, greedy, true, tieFirst)
	m := New() // as the registry holds it: bin arrays reused between runs
	for i := range b.N {
		row, err := model.RunRow(context.Background(), m, p, model.Seed{Run: uint64(i)})
		// The max load at m = n = 10^6, d = 2 is 4 (fluid limit; 3 or 4 in the bins experiment's seeds): a run
		// outside 3..5 means the benchmark timed something broken.
		if err != nil || row[mMax].I < 3 || row[mMax].I > 5 {
			b.Fatalf("run %d: max load %v, error %v", i, row[mMax], err)
		}
	}
	b.ReportMetric(float64(b.N)*1e6/b.Elapsed().Seconds(), "balls/s")
}

// BenchmarkP2CMillionPlace times the placement loop alone, the scope of the C reference's balls_per_sec
// (shared/anchors/bins.c times the throw loop only, after zeroing the bins and before the histogram).
func BenchmarkP2CMillionPlace(b *testing.B) {
	const n = 1_000_000
	pl := &placer{n: n, d: 2, replacement: true, scheme: greedy}
	bins := make([]uint8, n)
	var placing time.Duration
	for i := range b.N {
		clear(bins)
		r := sim.NewStreams(model.Seed{Run: uint64(i)}).Dispatch
		start := time.Now()
		if place(pl, bins, r, 0, n) != n {
			b.Fatal("a bin overflowed 8 bits")
		}
		placing += time.Since(start)
	}
	b.ReportMetric(float64(b.N)*n/placing.Seconds(), "balls/s")
}

// The 8-bit histogram's fixed table gives what the general path gives for the same loads held 16 bits wide.
func TestHistogramWidths(t *testing.T) {
	r := sim.NewRand(5, 6)
	for _, n := range []int{1, 7, 1000} {
		b8 := make([]uint8, n)
		for i := range b8 {
			b8[i] = uint8(3 + r.IntN(250))
		}
		c8, lo8, hi8 := histogram(b8)
		c16, lo16, hi16 := histogram(widen[uint8, uint16](b8))
		if !slices.Equal(c8, c16) || lo8 != lo16 || hi8 != hi16 {
			t.Errorf("n = %d: 8-bit %v %d %d, 16-bit %v %d %d", n, c8, lo8, hi8, c16, lo16, hi16)
		}
	}
}

// A cancelled context stops a long run within a chunk of balls: m = 10^10 balls (about two minutes) returns
// context.Canceled soon after the cancel.
func TestRunStopsWhenCancelled(t *testing.T) {
	p := pt(1000, 10_000_000_000, 2, greedy, true, tieFirst)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	start := time.Now()
	row, err := Model{}.Run(ctx, p, model.Seed{Run: 1})
	if elapsed := time.Since(start); err != context.Canceled || row != nil || elapsed > 2*time.Second {
		t.Errorf("cancelled after 50 ms: row %v, err %v after %v; want context.Canceled within 2 s", row, err, elapsed)
	}
}

// The shared theory gives each run what the analytic functions give at the run's length k: the fluid tail to depth
// k+8 for the max-load rule, cut to k, whatever order the runs' lengths come in (the cache grows past 64 levels).
func TestTheoryPerRun(t *testing.T) {
	for _, sch := range []scheme{greedy, goLeft} {
		const n, m = 1000, 3000
		th := Model{}.Theory(pt(n, m, 2, sch, true, tieFirst))
		fluid := analytic.BinsTail
		if sch == goLeft {
			fluid = analytic.GoLeftTail
		}
		for _, k := range []int{5, 0, 100, 3, 300} {
			b := metrics.NewRow()
			b.Set(colLoadTail, schema.List(make([]float64, k)))
			row := b.Row()
			th(row)
			deep := fluid(float64(m)/n, 2, k+8)
			if row[mTheoryMax].F != float64(analytic.FluidMaxLoad(deep, n)) || !slices.Equal(row[mTheoryTail].L, deep[:k]) {
				t.Errorf("scheme %d, k = %d: theory max %v tail %v; want %v, %v", sch, k, row[mTheoryMax].F, row[mTheoryTail].L,
					analytic.FluidMaxLoad(deep, n), deep[:k])
			}
		}
	}
	if (Model{}).Theory(pt(10, 10, 2, threshold, true, tieFirst)) != nil {
		t.Error("threshold: a theory, want none")
	}
}

// d = 1, m = 1000, n = 100: the simulated law of the max load agrees with the exact multinomial law
// (analytic.MultinomialMaxCDF) at k = 16..21, each empirical P(max ≤ k) over R runs within its normal-approximation
// interval at level alpha/6 (Bonferroni); the theory column is the exact median, 19 (the independent-bins
// approximation gives 18: P(max ≤ 18) is 0.488 exactly but 0.500 under F(k)^n, 4.8 standard errors apart at R =
// 40000, so this test would most likely reject the approximation as the law).
func TestMaxLoadLawD1(t *testing.T) {
	const n, m, runs = 100, 1000, 40000
	p := pt(n, m, 1, greedy, true, tieFirst)
	lo, hi := 16, 21
	count := make([]int, hi+1)
	mo := New()
	for s := range runs {
		row, err := mo.Run(context.Background(), p, model.Seed{Run: uint64(s)}) // Run alone: no theory per run
		if err != nil {
			t.Fatal(err)
		}
		k := int(row[mMax].I)
		for j := max(k, lo); j <= hi; j++ {
			count[j]++ // max ≤ j
		}
	}
	z := distuv.UnitNormal.Quantile(1 - alpha/(2*float64(hi-lo+1)))
	for k := lo; k <= hi; k++ {
		want := analytic.MultinomialMaxCDF(m, n, k)
		got := float64(count[k]) / runs
		if se := math.Sqrt(want * (1 - want) / runs); math.Abs(got-want) > z*se {
			t.Errorf("P(max ≤ %d) = %.4f over %d runs, exact %.4f ± %.4f", k, got, runs, want, z*se)
		}
	}
	b := metrics.NewRow()
	b.Set(colLoadTail, schema.List(make([]float64, 19)))
	row := b.Row()
	Model{}.Theory(p)(row)
	if row[mTheoryMax].F != 19 || row[mSource].S != SourceMultinomial {
		t.Errorf("theory max load %v (%q), want 19 (%q)", row[mTheoryMax].F, row[mSource].S, SourceMultinomial)
	}
	// Above the bound the column stays the approximation, labelled as such.
	b = metrics.NewRow()
	b.Set(colLoadTail, schema.List(make([]float64, 19)))
	row = b.Row()
	Model{}.Theory(pt(n, analytic.MultinomialMaxExactBalls+1, 1, greedy, true, tieFirst))(row)
	if row[mSource].S != SourceBinomial {
		t.Errorf("m above the exact bound: source %q, want %q", row[mSource].S, SourceBinomial)
	}
}

// BenchmarkOneChoiceMillion times whole runs of m = n = 10^6, d = 1 (the placement, the histogram; not the theory,
// computed once per point).
func BenchmarkOneChoiceMillion(b *testing.B) {
	p := pt(1_000_000, 1_000_000, 1, greedy, true, tieFirst)
	m := New()
	for i := range b.N {
		row, err := m.Run(context.Background(), p, model.Seed{Run: uint64(i)})
		// d = 1 at m = n = 10^6: the max load is 8 to 11 in the bins experiment's seeds (median 9).
		if err != nil || row[mMax].I < 6 || row[mMax].I > 14 {
			b.Fatalf("run %d: max load %v, error %v", i, row[mMax], err)
		}
	}
	b.ReportMetric(float64(b.N)*1e6/b.Elapsed().Seconds(), "balls/s")
}
