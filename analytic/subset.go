package analytic

// Subsetting: C clients each connect to k of B backends, and a backend's
// connection count is the number of clients whose subset holds it. Since every
// client holds exactly k backends, the counts always sum to C·k and their mean
// over the backends is exactly μ = C·k/B.
//
// Random subsetting (each client an independent uniform k-subset): a backend
// is in a given client's subset with probability p = k/B, independently over
// clients, so its count is exactly Binomial(C, p) marginally. The B counts are
// dependent (they sum to C·k; each pair has correlation −1/(B−1)), so the law
// of their minimum and maximum has no simple closed form;
// SubsetExtremes approximates it by treating the B counts as independent.
//
// Deterministic subsetting (Beyer, Jones, Petoff & Murphy, Site Reliability
// Engineering, O'Reilly 2016, ch. 20, "A Subset Selection Algorithm:
// Deterministic Subsetting"): with s = ⌊B/k⌋ (the book's subset_count,
// integer division), client c belongs to round ⌊c/s⌋; each round shuffles the
// backend list once and its clients take the disjoint slices [j·k, (j+1)·k),
// j = c mod s, of it. With R = ⌊C/s⌋ full rounds and q = C mod s clients in a
// last partial round, a backend lies in the first s·k positions of a full
// round's shuffle with probability a = s·k/B and in the first q·k of the
// partial round's with probability b = q·k/B, independently over rounds, so its
// count is exactly Binomial(R, a) + Bernoulli(b) marginally. When k divides B,
// a = 1: every backend is covered exactly once per full round, and the partial
// round covers q·k distinct backends once more, so the counts are exactly R
// (B − q·k backends) and R + 1 (q·k backends): max − min is 0 when q = 0 and
// 1 otherwise, on every run.

import "math"

// RandomSubsetPMF returns the law of one backend's connection count under
// random subsetting with c clients, b backends and subset size k: element x is
// P(X = x), x = 0..c, for X ~ Binomial(c, k/b), computed with Loader's
// saddle-point form (relative error near 1e-15), up to the last x whose
// probability does not underflow to 0 (the slice may end before c). Exact marginally (the counts
// of different backends are dependent). It panics unless c ≥ 0 and
// 1 ≤ k ≤ b.
func RandomSubsetPMF(c, b, k int) []float64 {
	checkSubset("RandomSubsetPMF", c, b, k)
	return binomialPMF(c, float64(b)/float64(k))
}

// DeterministicSubsetPMF returns the law of one backend's connection count
// under the SRE book's deterministic subsetting (c clients, b backends, subset
// size k): element x is P(X = x), x = 0..R+1 (or fewer: the binomial's upper
// terms that underflow to 0 are left out, as in RandomSubsetPMF), for X = Binomial(R, s·k/b) +
// Bernoulli(q·k/b) with s = ⌊b/k⌋, R = ⌊c/s⌋, q = c mod s (independent
// terms). Exact marginally. When k divides b it is the two-point law of the
// package comment (the counts themselves are then fixed, not random: see
// DeterministicSubsetRange). It panics unless c ≥ 0 and 1 ≤ k ≤ b.
func DeterministicSubsetPMF(c, b, k int) []float64 {
	checkSubset("DeterministicSubsetPMF", c, b, k)
	s := b / k
	r, q := c/s, c%s
	full := binomialPMF(r, float64(b)/float64(s*k))
	pb := float64(q*k) / float64(b)
	out := make([]float64, len(full)+1)
	for x, px := range full {
		out[x] += px * (1 - pb)
		out[x+1] += px * pb
	}
	return out
}

// DeterministicSubsetRange returns the least and most connected backends'
// counts under deterministic subsetting when k divides b (exact, on every
// run): R and R+1 with R = ⌊c/(b/k)⌋, or R and R when b/k divides c (then R =
// c·k/b, the mean). exact is false, and lo and hi are the counts' bounds 0 and
// R+1, when k does not divide b: the b − ⌊b/k⌋·k backends at the end of each
// round's shuffle get no client of that round, so the counts are random. It
// panics unless c ≥ 0 and 1 ≤ k ≤ b.
func DeterministicSubsetRange(c, b, k int) (lo, hi int, exact bool) {
	checkSubset("DeterministicSubsetRange", c, b, k)
	s := b / k
	r, q := c/s, c%s
	if b%k != 0 {
		return 0, r + 1, false
	}
	if q == 0 {
		return r, r, true
	}
	return r, r + 1, true
}

// SubsetVarRatio returns the expected variance of the connection counts over
// the b backends (population variance, about the mean μ = c·k/b, which is
// exact on every run) divided by μ²: since the counts sum to c·k on every run,
// E[(1/b) Σ_i (X_i − μ)²] = Var(X_i), so it is exact for any marginal law
// pmf with mean μ: Σ_x pmf[x]·(x − μ)²/μ². For random subsetting that is
// (1 − p)/(c·p) with p = k/b; for deterministic, (R·a(1−a) + β(1−β))/μ² with
// a = s·k/b and β = q·k/b. NaN when μ = 0 (c = 0).
func SubsetVarRatio(pmf []float64, mu float64) float64 {
	if !(mu > 0) {
		return math.NaN()
	}
	v := 0.0
	for x, p := range pmf {
		d := float64(x) - mu
		v += p * d * d
	}
	return v / (mu * mu)
}

// SubsetIdle returns the expected number of backends with no client, n·pmf[0],
// for n backends whose counts have the marginal law pmf: exact (a sum of n
// indicators, whatever their dependence). Random subsetting: b(1 − k/b)^c.
func SubsetIdle(pmf []float64, n int) float64 {
	if len(pmf) == 0 {
		return math.NaN()
	}
	return float64(n) * pmf[0]
}

// Extremes is the approximate law of the least and most connected of n
// backends (SubsetExtremes): distribution functions over the counts and their
// summaries, all in connections.
type Extremes struct {
	// MinCDF[x] = P(min ≤ x) and MaxCDF[x] = P(max ≤ x), x = 0..len(pmf)−1.
	MinCDF, MaxCDF []float64
	// MinMean and MaxMean are E[min] and E[max].
	MinMean, MaxMean float64
}

// SubsetExtremes returns the law of the minimum and the maximum of n counts
// with the marginal law pmf, treating the counts as independent:
//
//	P(min ≤ x) = 1 − (1 − F(x))^n,   P(max ≤ x) = F(x)^n,
//
// with F(x) = Σ_{y≤x} pmf[y], the upper tail 1 − F summed from the top so that
// it keeps its relative accuracy. For subset counts this is an approximation,
// and a one-sided one: each client's subset indicators are negatively
// associated (a uniform k-subset: Joag-Dev & Proschan, Ann. Statist. 11(1),
// 1983), and so are sums over independent clients (or rounds), so that
// P(max ≤ x) ≤ F(x)^n and P(min > x) ≤ (1 − F(x))^n (Dubhashi & Ranjan,
// Random Structures & Algorithms 13(2), 1998): the approximate max is
// stochastically at most the exact one and the approximate min at least, so
// E[max] ≥ MaxMean and E[min] ≤ MinMean. At 300 clients × 300 backends, k = 30
// and 90, 4000 Monte Carlo runs find E[min] and E[max] within 0.06 connection
// of MinMean and MaxMean, on the predicted side each time, inside the test's
// Bonferroni CIs of ±0.09 to ±0.17 connection (model/subsetting
// TestAgainstTheory). It panics if n < 1 or pmf is empty.
func SubsetExtremes(pmf []float64, n int) Extremes {
	if n < 1 || len(pmf) == 0 {
		panic("analytic: SubsetExtremes: need n ≥ 1 and a nonempty pmf")
	}
	m := len(pmf)
	upper := make([]float64, m+1) // upper[x] = P(X ≥ x), summed from the top
	for x := m - 1; x >= 0; x-- {
		upper[x] = upper[x+1] + pmf[x]
	}
	e := Extremes{MinCDF: make([]float64, m), MaxCDF: make([]float64, m)}
	fn := float64(n)
	lower := 0.0 // P(X ≤ x), summed from the bottom
	for x := range m {
		lower += pmf[x]
		// Logs keep F^n and (1 − F)^n accurate when F or 1 − F is tiny.
		e.MaxCDF[x] = math.Exp(fn * math.Log1p(-math.Min(upper[x+1], 1)))
		e.MinCDF[x] = -math.Expm1(fn * math.Log1p(-math.Min(lower, 1)))
	}
	e.MinCDF[m-1], e.MaxCDF[m-1] = 1, 1
	e.MinMean, e.MaxMean = cdfMean(e.MinCDF), cdfMean(e.MaxCDF)
	return e
}

// CDFQuantile returns the u-quantile of an integer law given by its
// distribution function cdf (cdf[x] = P(X ≤ x)): the smallest x with
// cdf[x] ≥ u, or len(cdf)−1 if none. Used for a law's median (u = 0.5) and
// its central 95% (u = 0.025 and 0.975).
func CDFQuantile(cdf []float64, u float64) int {
	for x, f := range cdf {
		if f >= u {
			return x
		}
	}
	return len(cdf) - 1
}

// cdfMean returns E[X] = Σ_{x ≥ 0} P(X > x) for X on 0..len(cdf)−1.
func cdfMean(cdf []float64) float64 {
	s := 0.0
	for _, f := range cdf[:len(cdf)-1] {
		s += 1 - f
	}
	return s
}

// binomialPMF returns P(X = x), x = 0..n, for X ~ Binomial(n, 1/inv), inv ≥ 1
// (inv = 1/p is passed as a ratio of integers, b/k, so that no rounding of p
// enters), without the upper tail's terms that underflow to 0: it stops at the
// first x above the mean whose probability is 0 in double precision (the pmf
// decreases past its mode, so every later term is 0 too). Before, 2^24 clients
// with k = 1 of 2^24 backends (mean 1) evaluated and stored all 2^24 + 1
// terms: 8 s and 0.5 GB of theory for a run of a fraction of a second.
func binomialPMF(n int, inv float64) []float64 {
	bin := newBinomial(float64(n), inv)
	mean := float64(n) / inv
	out := make([]float64, 0, min(n+1, 1024))
	for x := 0; x <= n; x++ {
		v := bin.pmf(x)
		if v == 0 && float64(x) > mean {
			break
		}
		out = append(out, v)
	}
	return out
}

func checkSubset(name string, c, b, k int) {
	if c < 0 || k < 1 || k > b {
		panic("analytic: " + name + ": need c ≥ 0 and 1 ≤ k ≤ b")
	}
}
