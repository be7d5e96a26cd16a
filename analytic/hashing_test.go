package analytic

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// TestRingPeakToMeanAgainstMonteCarlo draws R = n·max G/ΣG with G_i i.i.d. Gamma(e) (the exact Dirichlet law of the
// shares) and checks the approximate quantiles: each must fall inside the Monte Carlo sample's order-statistic
// confidence interval for that quantile (z = 3.29 per quantile: 18 intervals, family-wise α ≈ 0.018), widened by the
// approximation's stated bound of 1% relative.
func TestRingPeakToMeanAgainstMonteCarlo(t *testing.T) {
	if testing.Short() {
		t.Skip("Monte Carlo")
	}
	rng := rand.New(rand.NewPCG(16, 1))
	const draws = 6000
	// The corners of the stated range n·e ≥ 40 (RingPeakToMeanMinEntries) with the fewest terms in S: (40, 1), (20, 2).
	for _, c := range [][2]int{{100, 11}, {100, 1}, {10, 100}, {1000, 2}, {40, 1}, {20, 2}} {
		n, e := c[0], c[1]
		g := distuv.Gamma{Alpha: float64(e), Beta: 1, Src: rng}
		v := make([]float64, draws)
		for k := range v {
			mx, s := 0.0, 0.0
			for i := 0; i < n; i++ {
				x := g.Rand()
				mx, s = math.Max(mx, x), s+x
			}
			v[k] = mx * float64(n) / s
		}
		sort.Float64s(v)
		for _, p := range []float64{0.025, 0.5, 0.975} {
			half := 3.29 * math.Sqrt(draws*p*(1-p))
			lo, hi := v[int(math.Floor(draws*p-half))], v[int(math.Ceil(draws*p+half))]
			q := RingPeakToMeanQuantile(n, e, p)
			if q < lo/1.01 || q > hi*1.01 {
				t.Errorf("n=%d e=%d: %.3g-quantile %.4f, Monte Carlo interval [%.4f, %.4f]", n, e, p, q, lo, hi)
			}
		}
	}
}

// TestRingPeakToMeanNodes: the quadrature has converged (doubling the nodes changes the CDF by < 10^-6 at the
// quantiles used), and the seed's ring's median is the file comment's number.
func TestRingPeakToMeanNodes(t *testing.T) {
	for _, c := range [][2]int{{100, 11}, {100, 1}, {1000, 2}, {10, 100}} {
		for _, p := range []float64{0.025, 0.5, 0.975} {
			r := RingPeakToMeanQuantile(c[0], c[1], p)
			if d := math.Abs(ringCDF(c[0], c[1], r, 2*hashQuadNodes) - ringCDF(c[0], c[1], r, hashQuadNodes)); d > 1e-6 {
				t.Errorf("n=%d e=%d p=%g: doubling the nodes moves the CDF by %g", c[0], c[1], p, d)
			}
		}
	}
	q := RingPeakToMeanQuantile(100, 11, 0.5)
	// Seed 002 §8's ring: median about 1.89 (the file comment's number).
	closeRel(t, "median n=100 e=11", q, 1.892, 0.002)
	mean := RingPeakToMeanMean(100, 11)
	if !(mean > q && mean < RingPeakToMeanQuantile(100, 11, 0.975)) {
		t.Errorf("mean %v not between the median %v and the 97.5%% quantile", mean, q)
	}
}

// TestRingPeakToMeanEdges: one host is always 1; the CDF is 0 below 1 and 1 from n on; invalid input is NaN.
func TestRingPeakToMeanEdges(t *testing.T) {
	if RingPeakToMeanCDF(1, 5, 1) != 1 || RingPeakToMeanCDF(10, 5, 0.5) != 0 || RingPeakToMeanCDF(10, 5, 10) != 1 {
		t.Error("edges wrong")
	}
	for _, x := range []float64{RingPeakToMeanCDF(0, 1, 1), RingPeakToMeanQuantile(10, 0, 0.5), RingPeakToMeanQuantile(10, 1, 1), MovedFractionJoin(0), MovedFractionLeave(1), JumpPeakToMeanQuantile(0, 1, 0.5)} {
		if !math.IsNaN(x) {
			t.Errorf("got %v, want NaN", x)
		}
	}
	within(t, "join", MovedFractionJoin(100), 1.0/101, 0)
	within(t, "leave", MovedFractionLeave(100), 0.01, 0)
}

// TestJumpPeakToMean checks the multinomial max's quantiles against Monte Carlo of Multinomial(m; 1/n) counts (drawn
// as sequential binomials), with the order-statistic interval as above and no widening beyond one key (the
// independent-bins approximation is far below a key's resolution at m/n = 10^4).
func TestJumpPeakToMean(t *testing.T) {
	if testing.Short() {
		t.Skip("Monte Carlo")
	}
	rng := rand.New(rand.NewPCG(16, 2))
	const m, n, draws = 1000000, 100, 2000
	v := make([]float64, draws)
	for k := range v {
		left, mx := float64(m), 0.0
		for i := 0; i < n-1 && left > 0; i++ {
			c := distuv.Binomial{N: left, P: 1 / float64(n-i), Src: rng}.Rand()
			mx, left = math.Max(mx, c), left-c
		}
		v[k] = math.Max(mx, left) / (m / n)
	}
	sort.Float64s(v)
	key := 1.0 / (m / n)
	for _, p := range []float64{0.025, 0.5, 0.975} {
		half := 3.29 * math.Sqrt(draws*p*(1-p))
		lo, hi := v[int(math.Floor(draws*p-half))], v[int(math.Ceil(draws*p+half))]
		if q := JumpPeakToMeanQuantile(m, n, p); q < lo-key || q > hi+key {
			t.Errorf("%.3g-quantile %.4f, Monte Carlo interval [%.4f, %.4f]", p, q, lo, hi)
		}
	}
}
