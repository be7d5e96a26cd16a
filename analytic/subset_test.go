package analytic

import (
	"fmt"
	"math"
	"testing"
)

// TestRandomSubsetPMFSmall: 2 clients, 3 backends, k = 2: a backend is in each subset with probability 2/3, so its
// count is Binomial(2, 2/3) = [1/9, 4/9, 4/9] (by hand).
func TestRandomSubsetPMFSmall(t *testing.T) {
	got := RandomSubsetPMF(2, 3, 2)
	want := []float64{1.0 / 9, 4.0 / 9, 4.0 / 9}
	for x := range want {
		closeRel(t, fmt.Sprintf("pmf[%d]", x), got[x], want[x], 1e-13)
	}
	// k = b: every client holds every backend.
	if got := RandomSubsetPMF(5, 4, 4); got[5] != 1 || got[4] != 0 {
		t.Errorf("k = b: pmf %v, want all mass at 5", got)
	}
}

// TestSubsetLawsMoments: both marginal laws sum to 1 and have mean exactly c·k/b (every client holds k backends);
// the variance ratio matches its closed form ((1−p)/(c·p) for random; (R·a(1−a) + β(1−β))/μ² for deterministic).
func TestSubsetLawsMoments(t *testing.T) {
	for _, tc := range []struct{ c, b, k int }{{300, 300, 90}, {300, 300, 30}, {300, 300, 45}, {17, 10, 3}, {1, 7, 7}, {1000, 64, 5}} {
		mu := float64(tc.c) * float64(tc.k) / float64(tc.b)
		p := float64(tc.k) / float64(tc.b)
		s := tc.b / tc.k
		r, q := tc.c/s, tc.c%s
		a, beta := float64(s*tc.k)/float64(tc.b), float64(q*tc.k)/float64(tc.b)
		for name, law := range map[string]struct {
			pmf []float64
			vr  float64
		}{
			"random":        {RandomSubsetPMF(tc.c, tc.b, tc.k), (1 - p) / (float64(tc.c) * p)},
			"deterministic": {DeterministicSubsetPMF(tc.c, tc.b, tc.k), (float64(r)*a*(1-a) + beta*(1-beta)) / (mu * mu)},
		} {
			sum, mean := 0.0, 0.0
			for x, px := range law.pmf {
				sum += px
				mean += float64(x) * px
			}
			id := fmt.Sprintf("%s c=%d b=%d k=%d", name, tc.c, tc.b, tc.k)
			within(t, id+" sum", sum, 1, 1e-12)
			closeRel(t, id+" mean", mean, mu, 1e-12)
			within(t, id+" var ratio", SubsetVarRatio(law.pmf, mu), law.vr, 1e-12)
		}
		within(t, "idle", SubsetIdle(RandomSubsetPMF(tc.c, tc.b, tc.k), tc.b), float64(tc.b)*math.Pow(1-p, float64(tc.c)), 1e-9)
	}
}

// TestDeterministicSubsetRange: the exact counts when k divides b (R or R+1), and the bounds otherwise.
func TestDeterministicSubsetRange(t *testing.T) {
	for _, tc := range []struct {
		c, b, k, lo, hi int
		exact           bool
	}{
		{300, 300, 30, 30, 30, true},  // s = 10 divides 300: 30 full rounds
		{305, 300, 30, 30, 31, true},  // 5 clients in a partial round: 150 backends at 31
		{7, 300, 30, 0, 1, true},      // fewer clients than one round
		{300, 300, 90, 0, 101, false}, // s = 3, 30 backends left out of each round
		{1, 1, 1, 1, 1, true},
	} {
		lo, hi, exact := DeterministicSubsetRange(tc.c, tc.b, tc.k)
		if lo != tc.lo || hi != tc.hi || exact != tc.exact {
			t.Errorf("c=%d b=%d k=%d: got (%d, %d, %v), want (%d, %d, %v)", tc.c, tc.b, tc.k, lo, hi, exact, tc.lo, tc.hi, tc.exact)
		}
	}
}

// TestSubsetExtremesOneBackend: with n = 1 the minimum and the maximum are the count itself, so both distribution
// functions are F; with n = 2 independent counts, P(max ≤ x) = F(x)² and P(min ≤ x) = 1 − (1 − F(x))².
func TestSubsetExtremesOneBackend(t *testing.T) {
	pmf := RandomSubsetPMF(20, 10, 3)
	one, two := SubsetExtremes(pmf, 1), SubsetExtremes(pmf, 2)
	f := 0.0
	for x := range pmf {
		f += pmf[x]
		within(t, fmt.Sprintf("n=1 MinCDF[%d]", x), one.MinCDF[x], f, 1e-12)
		within(t, fmt.Sprintf("n=1 MaxCDF[%d]", x), one.MaxCDF[x], f, 1e-12)
		within(t, fmt.Sprintf("n=2 MinCDF[%d]", x), two.MinCDF[x], 1-(1-f)*(1-f), 1e-12)
		within(t, fmt.Sprintf("n=2 MaxCDF[%d]", x), two.MaxCDF[x], f*f, 1e-12)
	}
	closeRel(t, "n=1 MinMean", one.MinMean, 6, 1e-12) // 20·3/10
	closeRel(t, "n=1 MaxMean", one.MaxMean, 6, 1e-12)
	if two.MinMean >= 6 || two.MaxMean <= 6 {
		t.Errorf("n=2: E[min] %v and E[max] %v must straddle the mean 6", two.MinMean, two.MaxMean)
	}
}

func TestCDFQuantile(t *testing.T) {
	cdf := []float64{0.1, 0.5, 0.9, 1}
	for _, tc := range []struct {
		u    float64
		want int
	}{{0.05, 0}, {0.1, 0}, {0.3, 1}, {0.5, 1}, {0.975, 3}} {
		if got := CDFQuantile(cdf, tc.u); got != tc.want {
			t.Errorf("CDFQuantile(%v) = %d, want %d", tc.u, got, tc.want)
		}
	}
}

func TestSubsetPanics(t *testing.T) {
	mustPanic(t, "k > b", func() { RandomSubsetPMF(3, 2, 3) })
	mustPanic(t, "k = 0", func() { DeterministicSubsetPMF(3, 2, 0) })
	mustPanic(t, "n = 0", func() { SubsetExtremes([]float64{1}, 0) })
	if !math.IsNaN(SubsetVarRatio([]float64{1}, 0)) {
		t.Error("SubsetVarRatio with μ = 0: want NaN")
	}
}

// Seed 002 §9's setting: 300 clients × 300 backends, 30% and 10% random subsets: the expected least and most
// connected backends relative to the mean, and the central 95% of their law (independent-backends approximation).
func ExampleSubsetExtremes() {
	for _, k := range []int{90, 30} {
		pmf := RandomSubsetPMF(300, 300, k)
		e := SubsetExtremes(pmf, 300)
		mu := float64(k) // 300·k/300
		fmt.Printf("k=%d: min %.3f [%.3f, %.3f], max %.3f [%.3f, %.3f]\n", k,
			e.MinMean/mu, float64(CDFQuantile(e.MinCDF, 0.025))/mu, float64(CDFQuantile(e.MinCDF, 0.975))/mu,
			e.MaxMean/mu, float64(CDFQuantile(e.MaxCDF, 0.025))/mu, float64(CDFQuantile(e.MaxCDF, 0.975))/mu)
	}
	// Output:
	// k=90: min 0.752 [0.678, 0.800], max 1.259 [1.200, 1.344]
	// k=30: min 0.538 [0.400, 0.633], max 1.529 [1.400, 1.700]
}

// TestSubsetPMFTruncated: the upper tail that underflows to 0 is not evaluated or stored (2^24 clients, k = 1 of 2^24
// backends: mean 1, a few hundred terms instead of 2^24 + 1), and what remains is the law: it sums to 1, the idle
// count and the extremes are unchanged, and a law whose every term is representable keeps all of them.
func TestSubsetPMFTruncated(t *testing.T) {
	const n = 1 << 24
	pmf := RandomSubsetPMF(n, n, 1)
	if len(pmf) > 1000 {
		t.Fatalf("%d terms for a mean of 1", len(pmf))
	}
	sum := 0.0
	for _, p := range pmf {
		sum += p
	}
	closeRel(t, "sum", sum, 1, 1e-12)
	closeRel(t, "idle", SubsetIdle(pmf, n), n*math.Pow(1-1.0/n, n), 1e-9)
	if e := SubsetExtremes(pmf, n); e.MaxMean < 9 || e.MaxMean > 11 {
		t.Errorf("E[max] of 2^24 Binomial(2^24, 2^-24) counts: %v, want about 10", e.MaxMean)
	}
	if got := RandomSubsetPMF(300, 300, 30); len(got) != 301 {
		t.Errorf("Binomial(300, 0.1): %d terms, want all 301 (0.1^300 is representable)", len(got))
	}
}
