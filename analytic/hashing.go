package analytic

// Consistent hashing (static placement of keys on servers): what an ideal
// scheme moves on a join or a leave, the law of a ring's load imbalance, and
// jump hash's exact balance.
//
// Ring shares. Put e entries per host for each of n hosts at i.i.d. uniform
// positions on a circle, each entry owning the arc before it. The n·e arcs are
// uniform spacings, jointly Dirichlet(1, …, 1), and since which host owns an
// entry is independent of where it sits, a host's share (the sum of its e arcs)
// makes the vector of shares Dirichlet(e, …, e) exactly. Equivalently
// share_i = G_i/ΣG with G_i i.i.d. Gamma(e, 1), so the peak-to-mean ratio of
// the shares is R = n·max_i G_i / Σ_i G_i. Its law has no simple closed form;
// RingPeakToMeanCDF conditions on the maximum M = x (density n F(x)^(n-1) f(x),
// F the Gamma(e) CDF): the other n−1 values are i.i.d. Gamma(e) truncated to
// [0, x], whose sum S is approximated by a normal law with the truncated mean
// and variance (from the regularized incomplete gamma function), so that
//
//	P(R ≤ r) = P(S ≥ x(n−r)/r) ≈ ∫₀¹ Φ( ((n−1)μ(x) − x(n−r)/r) / (σ(x)√(n−1)) ) du,
//	x = F⁻¹(u^(1/n)),
//
// the only approximation being the central limit theorem for S given M (exact
// as n → ∞). Checked against Monte Carlo in hashing_test.go: the median and
// the 2.5% and 97.5% quantiles agree within 1% on rings of n·e ≥ 40 entries
// (RingPeakToMeanMinEntries; measured at n·e = 40, e.g. n = 40, e = 1 and
// n = 20, e = 2: within 0.75%, and at n = 100, e = 1 … 160 and n = 1000,
// e = 1, 2: within 0.6%). Smaller rings are outside it, the 97.5% quantile
// first: 1.5% high at n = 10, e = 2, 1.9% at n = 20, e = 1, 3.9% at n = 10,
// e = 1 (100 000 draws each), and at n = 3, e = 1 it is n itself, the
// largest possible ratio, against a true 2.73: the CLT for S over n − 1
// truncated Gamma(e) terms needs terms enough. Approximating ΣG by its mean n·e
// instead (P(R ≤ r) ≈ F(r·e)^n) gets the median right but the 2.5% quantile
// up to 6% low (n = 100, e = 1).
//
// Seed 002 §8's example (n = 100, Envoy's minimum_ring_size 1024 → e = 11)
// has median peak-to-mean 1.89 by this law, 95% of rings between 1.62 and
// 2.38.

import (
	"math"

	"gonum.org/v1/gonum/integrate/quad"
	"gonum.org/v1/gonum/stat/distuv"
)

// hashQuadNodes is the number of Legendre nodes over u ∈ (0, 1) in
// RingPeakToMeanCDF; the integrand is smooth, and doubling them changes the
// CDF by less than 10^-6 near the quantiles used (TestRingPeakToMeanNodes).
const hashQuadNodes = 400

// MovedFractionJoin returns 1/(n+1), the expected fraction of keys a
// monotone, balanced scheme moves when one server joins n (the keys the new
// server must take; exact for jump hash and rendezvous hashing, and for a ring
// whose hosts keep their entry counts, by exchangeability). NaN for n < 1.
func MovedFractionJoin(n float64) float64 {
	if !(n >= 1) {
		return math.NaN()
	}
	return 1 / (n + 1)
}

// MovedFractionLeave returns 1/n, the expected fraction of keys that must move
// when one of n servers leaves (its keys, for a balanced scheme). NaN for
// n < 2.
func MovedFractionLeave(n float64) float64 {
	if !(n >= 2) {
		return math.NaN()
	}
	return 1 / n
}

// RingPeakToMeanMinEntries is the fewest ring entries n·e for which
// RingPeakToMeanCDF's quantiles are within 1% of the exact law's (file
// comment); callers should not report it for smaller rings.
const RingPeakToMeanMinEntries = 40

// RingPeakToMeanCDF returns P(R ≤ r) for R, the peak-to-mean ratio of the
// shares of n hosts with e entries each on a ring of i.i.d. uniform positions
// (Dirichlet(e, …, e) shares; the approximation in the file comment, error
// within 1% in quantile for n·e ≥ RingPeakToMeanMinEntries, larger below). R ∈ [1, n]: the CDF
// is 0 below 1 and 1 from n on. NaN for n < 1 or e < 1.
func RingPeakToMeanCDF(n, e int, r float64) float64 { return ringCDF(n, e, r, hashQuadNodes) }

// ringCDF is RingPeakToMeanCDF with the number of quadrature nodes given.
func ringCDF(n, e int, r float64, nodes int) float64 {
	if n < 1 || e < 1 || math.IsNaN(r) {
		return math.NaN()
	}
	if n == 1 || r >= float64(n) {
		return 1
	}
	if r < 1 {
		return 0
	}
	N, E := float64(n), float64(e)
	g := distuv.Gamma{Alpha: E, Beta: 1}
	g1 := distuv.Gamma{Alpha: E + 1, Beta: 1}
	g2 := distuv.Gamma{Alpha: E + 2, Beta: 1}
	return quad.Fixed(func(u float64) float64 {
		x := g.Quantile(math.Pow(u, 1/N))
		fx := g.CDF(x)
		if !(fx > 0) {
			return 0
		}
		mu := E * g1.CDF(x) / fx           // E[G | G ≤ x]
		m2 := E * (E + 1) * g2.CDF(x) / fx // E[G² | G ≤ x]
		sd := math.Sqrt((N - 1) * math.Max(m2-mu*mu, 0))
		need := x * (N - r) / r // S ≥ need ⇔ R ≤ r
		if sd == 0 {
			if (N-1)*mu >= need {
				return 1
			}
			return 0
		}
		return distuv.UnitNormal.CDF(((N-1)*mu - need) / sd)
	}, 0, 1, nodes, nil, 0)
}

// RingPeakToMeanQuantile returns the p-quantile of R (see RingPeakToMeanCDF),
// by bisection on [1, n] to 10^-9 relative. NaN for p outside (0, 1), n < 1 or
// e < 1.
func RingPeakToMeanQuantile(n, e int, p float64) float64 {
	if !(p > 0 && p < 1) || n < 1 || e < 1 {
		return math.NaN()
	}
	lo, hi := 1.0, float64(n)
	for hi-lo > 1e-9*lo {
		m := (lo + hi) / 2
		if RingPeakToMeanCDF(n, e, m) < p {
			lo = m
		} else {
			hi = m
		}
	}
	return (lo + hi) / 2
}

// RingPeakToMeanMean returns E[R] = 1 + ∫₁ⁿ (1 − P(R ≤ r)) dr, integrated up
// to the 1 − 10^-9 quantile (beyond which the remaining mass adds less than
// 10^-9·n). NaN for n < 1 or e < 1.
func RingPeakToMeanMean(n, e int) float64 {
	if n < 1 || e < 1 {
		return math.NaN()
	}
	if n == 1 {
		return 1
	}
	top := RingPeakToMeanQuantile(n, e, 1-1e-9)
	return 1 + quad.Fixed(func(r float64) float64 { return 1 - RingPeakToMeanCDF(n, e, r) }, 1, top, 64, nil, 0)
}

// JumpPeakToMeanQuantile returns the p-quantile of the keys' peak-to-mean
// ratio under jump consistent hash, whose bucket counts are exactly
// Multinomial(m; 1/n, …, 1/n) (Lamping & Veach 2014, §2), so the ratio is
// max count / (m/n). The max's law uses the independent-bins approximation
// P(max ≤ x) ≈ F(x)^n with F the Binomial(m, 1/n) CDF (the same as
// BinomialMaxLoad's; negative association of multinomial counts makes it a
// lower bound on the true CDF). NaN for p outside (0, 1), m < 1 or n < 1.
func JumpPeakToMeanQuantile(m, n int, p float64) float64 {
	if !(p > 0 && p < 1) || m < 1 || n < 1 {
		return math.NaN()
	}
	if n == 1 {
		return 1
	}
	b := distuv.Binomial{N: float64(m), P: 1 / float64(n)}
	mean := float64(m) / float64(n)
	lo, hi := int(math.Floor(mean)), m // F(lo)^n < p ≤ F(hi)^n
	for math.Pow(b.CDF(float64(lo)), float64(n)) >= p && lo > 0 {
		lo /= 2
	}
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if math.Pow(b.CDF(float64(mid)), float64(n)) >= p {
			hi = mid
		} else {
			lo = mid
		}
	}
	return float64(hi) / mean
}
