package subsetting

import (
	"context"
	"fmt"
	"math"
	"testing"

	"lbsweep/analytic"
	"lbsweep/experiments/claims"
	"lbsweep/model"
	"lbsweep/results/schema"
)

// point is a point with the aperture parameters null; k = 0 leaves subset_size null too.
func point(c, b, k int, s scheme) model.Point {
	p := make(model.Point, len(params))
	p[pClients], p[pBackends], p[pScheme] = model.IntValue(int64(c)), model.IntValue(int64(b)), model.IntValue(int64(s))
	if k > 0 {
		p[pSubsetSize] = model.IntValue(int64(k))
	}
	return p
}

func run(t testing.TB, p model.Point, seed uint64) *schema.Builder {
	t.Helper()
	if _, err := (Model{}).Check(p, model.CheckOptions{}); err != nil {
		t.Fatal(err)
	}
	row, err := model.RunRow(context.Background(), Model{}, p, model.Seed{Run: seed})
	if err != nil {
		t.Fatal(err)
	}
	return metrics.Edit(row)
}

// TestDeterministicExact: when k divides B, deterministic subsetting gives every backend exactly R or R+1 clients
// (R = ⌊C/(B/k)⌋; q·k backends at R+1 for q clients in the last partial round), on every run: an equality, not a
// tolerance. The theory columns say the same.
func TestDeterministicExact(t *testing.T) {
	for _, tc := range []struct{ c, b, k int }{{300, 300, 30}, {300, 300, 15}, {300, 300, 300}, {300, 300, 1}, {305, 300, 30}, {7, 300, 30}, {1000, 64, 8}, {999, 64, 16}} {
		s := tc.b / tc.k
		r, q := tc.c/s, tc.c%s
		for seed := range uint64(20) {
			cfg := config{c: tc.c, b: tc.b, k: tc.k, scheme: deterministic}
			count, _, err := connect(context.Background(), cfg, seed)
			if err != nil {
				t.Fatal(err)
			}
			high := 0
			for i, x := range count {
				switch int(x) {
				case r:
				case r + 1:
					high++
				default:
					t.Fatalf("c=%d b=%d k=%d seed %d: backend %d has %d clients, want %d or %d", tc.c, tc.b, tc.k, seed, i, x, r, r+1)
				}
			}
			if high != q*tc.k {
				t.Fatalf("c=%d b=%d k=%d seed %d: %d backends at %d, want q·k = %d", tc.c, tc.b, tc.k, seed, high, r+1, q*tc.k)
			}
		}
		b := run(t, point(tc.c, tc.b, tc.k, deterministic), 1)
		lo, hi, _ := analytic.DeterministicSubsetRange(tc.c, tc.b, tc.k)
		mu := float64(tc.c) * float64(tc.k) / float64(tc.b)
		if b.Get(colMin).I != int64(lo) || b.Get(colMax).I != int64(hi) || b.Get(colThMinRatio).F != float64(lo)/mu || b.Get(colThMaxRatio).F != float64(hi)/mu {
			t.Errorf("c=%d b=%d k=%d: min %d max %d (theory ratios %v, %v), want %d, %d", tc.c, tc.b, tc.k, b.Get(colMin).I, b.Get(colMax).I, b.Get(colThMinRatio).F, b.Get(colThMaxRatio).F, lo, hi)
		}
		if b.Get(colTheorySource).S != SourceExact {
			t.Errorf("c=%d b=%d k=%d: theory_source %q", tc.c, tc.b, tc.k, b.Get(colTheorySource).S)
		}
	}
}

// TestConnectionsSum: every client holds exactly k distinct backends, so the counts sum to C·k, under both schemes,
// and no backend has more than C clients.
func TestConnectionsSum(t *testing.T) {
	for _, s := range []scheme{random, deterministic} {
		for _, tc := range []struct{ c, b, k int }{{300, 300, 90}, {10, 7, 7}, {50, 1, 1}, {13, 100, 33}} {
			count, _, err := connect(context.Background(), config{c: tc.c, b: tc.b, k: tc.k, scheme: s}, 3)
			if err != nil {
				t.Fatal(err)
			}
			sum := 0
			for _, x := range count {
				if int(x) > tc.c {
					t.Fatalf("%v c=%d: a backend has %d clients", s, tc.c, x)
				}
				sum += int(x)
			}
			if sum != tc.c*tc.k {
				t.Errorf("scheme %d c=%d b=%d k=%d: counts sum to %d, want %d", s, tc.c, tc.b, tc.k, sum, tc.c*tc.k)
			}
		}
	}
}

// TestDeterministic: the same point and seed give the same row; another seed gives other subsets.
func TestDeterministic(t *testing.T) {
	for _, s := range []scheme{random, deterministic} {
		p := point(300, 300, 90, s)
		a, b, c := run(t, p, 7).Row(), run(t, p, 7).Row(), run(t, p, 8).Row()
		if fmt.Sprint(a) != fmt.Sprint(b) {
			t.Errorf("scheme %d: the same seed gave different rows", s)
		}
		if fmt.Sprint(a) == fmt.Sprint(c) {
			t.Errorf("scheme %d: seeds 7 and 8 gave the same row", s)
		}
	}
}

// alpha is the family-wise level of TestAgainstTheory's checks, Bonferroni-split between them.
const alpha = 0.01

// TestAgainstTheory: over many replications the simulated means agree with the theory within Student-t CIs.
// var_ratio and idle_backends have exact expectations; min and max follow analytic.SubsetExtremes, which treats the
// backends as independent: an approximation whose error must stay inside the CI (4000 runs: ±0.09 to ±0.17
// connection on E[min] and E[max] at 300×300, k = 30 and 90; the differences seen are at most 0.06). Every check is
// at alpha/checks.
func TestAgainstTheory(t *testing.T) {
	if testing.Short() {
		t.Skip("4000 runs per point")
	}
	type check struct {
		name       string
		col, theor schema.Column
	}
	pts := []struct {
		c, b, k int
		s       scheme
		runs    int
		checks  []check
	}{
		{300, 300, 90, random, 4000, []check{{"min", colMinRatio, colThMinRatio}, {"max", colMaxRatio, colThMaxRatio}, {"var", colVarRatio, colThVarRatio}}},
		{300, 300, 30, random, 4000, []check{{"min", colMinRatio, colThMinRatio}, {"max", colMaxRatio, colThMaxRatio}, {"var", colVarRatio, colThVarRatio}}},
		{20, 100, 10, random, 2000, []check{{"idle", colIdle, colThIdle}, {"var", colVarRatio, colThVarRatio}}},
		{300, 300, 45, deterministic, 2000, []check{{"min", colMinRatio, colThMinRatio}, {"max", colMaxRatio, colThMaxRatio}, {"var", colVarRatio, colThVarRatio}}},
		{7, 100, 30, deterministic, 2000, []check{{"idle", colIdle, colThIdle}, {"var", colVarRatio, colThVarRatio}}},
	}
	n := 0
	for _, pt := range pts {
		n += len(pt.checks)
	}
	for _, pt := range pts {
		p := point(pt.c, pt.b, pt.k, pt.s)
		xs := make([][]float64, len(pt.checks))
		theory := make([]float64, len(pt.checks))
		for seed := range uint64(pt.runs) {
			b := run(t, p, seed+1)
			for i, ch := range pt.checks {
				v := b.Get(ch.col)
				x := v.F
				if ch.col.Type == schema.Int64 {
					x = float64(v.I)
				}
				xs[i] = append(xs[i], x)
				theory[i] = b.Get(ch.theor).F
			}
		}
		for i, ch := range pt.checks {
			e := claims.MeanCI(xs[i], alpha/float64(n))
			if d := math.Abs(e.Mean - theory[i]); !(d <= e.Half) {
				t.Errorf("c=%d b=%d k=%d scheme %d %s: simulated %.6g ± %.3g, theory %.6g (off by %.3g)", pt.c, pt.b, pt.k, pt.s, ch.name, e.Mean, e.Half, theory[i], d)
			} else {
				t.Logf("c=%d b=%d k=%d scheme %d %s: simulated %.6g ± %.3g, theory %.6g", pt.c, pt.b, pt.k, pt.s, ch.name, e.Mean, e.Half, theory[i])
			}
		}
	}
}

func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		p     model.Point
		param string
	}{
		{point(0, 10, 1, random), "clients"},
		{point(10, 0, 1, random), "backends"},
		{point(10, 10, 0, random), "subset_size"},
		{point(10, 10, 11, random), "subset_size"},
		{point(MaxClients, 1000, 1000, random), "clients"},
	} {
		_, err := (Model{}).Check(tc.p, model.CheckOptions{})
		if is, ok := err.(model.Issue); !ok || is.Param != tc.param {
			t.Errorf("Check(%v) = %v, want an issue on %s", tc.p, err, tc.param)
		}
	}
}

// TestCanceled: a canceled context stops the run with its error.
func TestCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := (Model{}).Run(ctx, point(3000, 3000, 300, random), model.Seed{Run: 1}); err != context.Canceled {
		t.Errorf("Run on a canceled context: %v", err)
	}
}

// BenchmarkRun300: one run at seed 002 §9's 300 × 300, 30% subsets (aperture: a = 90); reports steps per second
// (subset slots; for aperture, backend overlaps).
func BenchmarkRun300(b *testing.B) {
	for _, s := range []scheme{random, deterministic, aperture} {
		b.Run(params[pScheme].Choices[s], func(b *testing.B) {
			p := point(300, 300, 90, s)
			for i := 0; i < b.N; i++ {
				if _, err := (Model{}).Run(context.Background(), p, model.Seed{Run: uint64(i)}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)*configOf(p).work()/b.Elapsed().Seconds(), "steps/s")
		})
	}
}
