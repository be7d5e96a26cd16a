package analytic

// The exact law of the maximum load of m balls thrown uniformly at random into
// n bins (d = 1): the loads are Multinomial(m; 1/n, ..., 1/n), not
// independent, so the F(k)^n of BinomialMaxLoad is only an approximation.

import "math"

// MultinomialMaxExactBalls is the largest m for which the model's
// theory_max_load uses MultinomialMaxMedian rather than BinomialMaxLoad's
// independent-bins approximation. MultinomialMaxCDF costs about 10^3 m
// multiply-adds for each k asked (see its doc), nearly independent of n; on
// the project's machine MultinomialMaxMedian takes 0.34 s at m = n = 10^6,
// the bound, and 3.2 ms at m = n = 10^4 (BenchmarkMultinomialMaxMedian,
// 2026-12-02, two evaluations each), once per grid point; m = 10^7 would take
// 3-6 s.
const MultinomialMaxExactBalls = 1_000_000

// multiTrim: a coefficient below multiTrim times the largest one of its
// polynomial is dropped (its mass is counted in the error bound).
const multiTrim = 1e-30

// multiMaxRelErr is the largest certified relative error of the coefficient
// [x^m] that MultinomialMaxCDF accepts; beyond it the result is NaN.
const multiMaxRelErr = 1e-9

// MultinomialMaxCDF returns P(max load <= k) when m balls go into n bins
// independently and uniformly at random: the distribution function of the
// largest of the Multinomial(m; 1/n, ..., 1/n) counts, by the
// generating-function identity
//
//	P(max <= k) = m!/n^m [x^m] (sum_{j=0..k} x^j/j!)^n
//
// (Kolchin, Sevast'yanov and Chistyakov, "Random Allocations", Winston 1978,
// ch. II; equivalently, the counts are n independent Poisson(lambda) variables
// conditioned on their sum being m, Mitzenmacher and Upfal, "Probability and
// Computing", 2005, §5.4). It is evaluated as
//
//	P(max <= k) = P(Y <= k)^n · P(S = m) / P(Poisson(n lambda) = m),
//
// Y ~ Poisson(lambda), S the sum of n independent copies of Y conditioned on
// Y <= k, for any lambda > 0: lambda is chosen (by bisection) so that the
// truncated mean is m/n, which puts m at the mean of S, and P(S = m) is the
// coefficient [x^m] of q(x)^n, q the truncated law, by binary powering. Every
// intermediate polynomial is a (sub-)probability law, so nothing under- or
// overflows; degrees above m are dropped (exactly), and so are coefficients
// below 1e-30 of their polynomial's largest. The dropped mass gives a bound on
// the absolute error of P(S = m) that the function carries along; if it
// exceeds 1e-9 of P(S = m) the result is NaN (not seen at any m, n tried, up
// to m = 10^7). Poisson probabilities are Loader's (2000).
//
// Cost: the polynomials span about 23 standard deviations of S, so the
// squarings cost about 10^3 m multiply-adds (independent of n but for
// log2 n), plus O(k) for the law of Y: about 0.17 s at m = n = 10^6 and 1.6 s
// at m = n = 10^7 on the project's machine.
//
// Valid for m >= 0 and n >= 1 (k any int; k < 0 gives 0 and k >= m gives 1,
// as does m = 0 for k >= 0); otherwise NaN. n·k < m gives 0 and n·k = m the
// probability m!/(k!^n n^m) of a perfectly even allocation. Values: m = 6,
// n = 3 gives 0, 90/729, 510/729, 690/729 for k = 1, 2, 3, 4 (checked by
// enumerating all 3^6 allocations in the tests); m = 1000, n = 100 has median
// 19, where the independent-bins approximation gives 18.
func MultinomialMaxCDF(m, n, k int) float64 {
	switch {
	case m < 0 || n < 1:
		return math.NaN()
	case k < 0:
		return 0
	case k >= m:
		return 1
	case n == 1 || float64(k)*float64(n) < float64(m):
		return 0
	case k*n == m: // every bin holds exactly k
		lg := func(x int) float64 { v, _ := math.Lgamma(float64(x) + 1); return v }
		return math.Exp(lg(m) - float64(n)*lg(k) - float64(m)*math.Log(float64(n)))
	}
	t := float64(m) / float64(n)
	lambda := truncPoissonTilt(t, k)
	q, logF := truncPoisson(lambda, k)
	c, err := powCoef(q, n, m)
	if !(c > 0) || err > multiMaxRelErr*c {
		return math.NaN()
	}
	lp := float64(n)*logF + math.Log(c) - logPoissonPMF(m, float64(n)*lambda)
	return math.Min(1, math.Exp(lp))
}

// MultinomialMaxMedian returns the median of the maximum load of m balls in n
// bins (d = 1) under the exact multinomial law: the smallest k with
// MultinomialMaxCDF(m, n, k) >= 1/2. The search starts at BinomialMaxLoad(m,
// n), which is never above it (the counts are negatively associated, so
// P(max <= k) <= F(k)^n: Dubhashi and Ranjan, Random Structures & Algorithms
// 13(2), 1998), and steps up, so it usually costs one or two evaluations of
// MultinomialMaxCDF. Values: m = n = 10^2, 10^3, 10^4, 10^5, 10^6 give 4, 5,
// 7, 8, 9 (the same as the approximation); m = 1000, n = 100 gives 19 (the
// approximation 18).
//
// Valid for 0 <= m <= 2^53 and n >= 1; otherwise, or if MultinomialMaxCDF
// returns NaN, it returns -1 (an int has no NaN). Its cost is that of
// MultinomialMaxCDF, about 10^3 m multiply-adds per step; see
// MultinomialMaxExactBalls for the bound the model applies.
func MultinomialMaxMedian(m, n int) int {
	k := BinomialMaxLoad(float64(m), float64(n))
	if k < 0 {
		return -1
	}
	for ; k <= m; k++ {
		p := MultinomialMaxCDF(m, n, k)
		if math.IsNaN(p) {
			return -1
		}
		if p >= 0.5 {
			return k
		}
	}
	return m
}

// truncPoissonTilt returns lambda > 0 such that Poisson(lambda) conditioned on
// <= k has mean t, for 0 < t < k: the truncated mean rises from 0 to k as
// lambda goes from 0 to infinity, and is at most lambda, so lambda >= t. The
// bisection is on log lambda; any lambda is correct (it only places m near
// the mean of S), so its accuracy matters only for speed.
func truncPoissonTilt(t float64, k int) float64 {
	mean := func(lambda float64) float64 {
		q, _ := truncPoisson(lambda, k)
		s := 0.0
		for j, v := range q {
			s += float64(j) * v
		}
		return s
	}
	lo, hi := math.Log(t), math.Log(t)+1
	for mean(math.Exp(hi)) < t && hi < 700 {
		lo, hi = hi, hi+2*(hi-lo)
	}
	for range 60 {
		mid := (lo + hi) / 2
		if mean(math.Exp(mid)) < t {
			lo = mid
		} else {
			hi = mid
		}
	}
	return math.Exp((lo + hi) / 2)
}

// truncPoisson returns the law q_j = P(Y = j | Y <= k), j = 0..k, of
// Y ~ Poisson(lambda), and log P(Y <= k). The weights lambda^j/j! are
// normalized in log space; log P(Y <= k) is log1p of minus Loader's upper tail
// when k is at or above the mode (where it matters: near the median of the
// maximum), else the log-sum-exp of the weights minus lambda.
func truncPoisson(lambda float64, k int) ([]float64, float64) {
	lw := make([]float64, k+1)
	top := math.Inf(-1)
	ll := math.Log(lambda)
	for j := range lw {
		g, _ := math.Lgamma(float64(j) + 1)
		lw[j] = float64(j)*ll - g
		top = math.Max(top, lw[j])
	}
	sum := 0.0
	q := make([]float64, k+1)
	for j, v := range lw {
		q[j] = math.Exp(v - top)
		sum += q[j]
	}
	for j := range q {
		q[j] /= sum
	}
	if float64(k) < math.Floor(lambda) {
		return q, top + math.Log(sum) - lambda
	}
	up := 0.0 // P(Y > k), summed until the terms are negligible
	for j := k + 1; ; j++ {
		p := poissonPMF(j, lambda)
		up += p
		if p == 0 || p < 1e-20*up {
			break
		}
	}
	return q, math.Log1p(-up)
}

// logPoissonPMF returns log P(Poisson(lambda) = x) for an integer x >= 1 and
// lambda > 0 in Loader's form, -stirlerr(x) - bd0(x, lambda) - log(2 pi x)/2,
// which does not underflow where poissonPMF does.
func logPoissonPMF(x int, lambda float64) float64 {
	fx := float64(x)
	return -stirlerr(fx) - bd0(fx, lambda) - 0.5*math.Log(2*math.Pi*fx)
}

// wpoly is the polynomial sum_i c[i] x^(lo+i) with c[i] >= 0.
type wpoly struct {
	lo int
	c  []float64
}

// powCoef returns [x^m] q(x)^n for a law q on 0..len(q)-1, and a bound on the
// absolute error of that coefficient from the coefficients trimmed on the way.
// With e(v) the mass on degrees <= m missing from a computed v (all stored
// coefficients are lower bounds), e(u·v) <= e(u) + e(v) + trimmed(u·v), since
// both factors are sub-probability laws; an absolute error in one coefficient
// is at most the missing mass.
func powCoef(q []float64, n, m int) (float64, float64) {
	p := trimPoly(wpoly{0, q}, m)
	errP := p.err
	var acc wpoly
	errAcc, have := 0.0, false
	for e := n; ; e >>= 1 {
		if e&1 == 1 {
			if e>>1 == 0 { // the last factor: only [x^m] of acc·p is needed
				if !have {
					return coefAt(p.wpoly, m), errP
				}
				return dotAt(acc, p.wpoly, m), errAcc + errP
			}
			if !have {
				acc, errAcc, have = p.wpoly, errP, true
			} else {
				r := trimPoly(mulPoly(acc, p.wpoly, m), m)
				acc, errAcc = r.wpoly, errAcc+errP+r.err
			}
		}
		r := trimPoly(squarePoly(p.wpoly, m), m)
		p, errP = r, 2*errP+r.err
	}
}

// trimmed is a trimmed polynomial and the mass its trimming dropped.
type trimmed struct {
	wpoly
	err float64
}

// trimPoly drops the coefficients of degree above m (exactly: they never
// reach [x^m]) and, from both ends, those below multiTrim times the largest,
// returning the dropped mass of the latter.
func trimPoly(a wpoly, m int) trimmed {
	if hi := m - a.lo + 1; hi < len(a.c) {
		a.c = a.c[:max(hi, 0)]
	}
	big := 0.0
	for _, v := range a.c {
		big = math.Max(big, v)
	}
	cut, lost := multiTrim*big, 0.0
	i := 0
	for i < len(a.c) && a.c[i] < cut {
		lost += a.c[i]
		i++
	}
	j := len(a.c)
	for j > i && a.c[j-1] < cut {
		lost += a.c[j-1]
		j--
	}
	return trimmed{wpoly{a.lo + i, a.c[i:j]}, lost}
}

// mulPoly returns a·b without its coefficients of degree above m.
func mulPoly(a, b wpoly, m int) wpoly {
	lo := a.lo + b.lo
	size := min(len(a.c)+len(b.c)-1, m-lo+1)
	if size <= 0 {
		return wpoly{lo, nil}
	}
	out := make([]float64, size)
	for i, ai := range a.c {
		if i >= size {
			break
		}
		row := out[i:]
		bc := b.c[:min(len(b.c), len(row))]
		row = row[:len(bc)]
		for j, bj := range bc {
			row[j] += ai * bj
		}
	}
	return wpoly{lo, out}
}

// squarePoly returns a·a without its coefficients of degree above m, using
// the symmetry of the products (half of mulPoly's work).
func squarePoly(a wpoly, m int) wpoly {
	lo := 2 * a.lo
	size := min(2*len(a.c)-1, m-lo+1)
	if size <= 0 {
		return wpoly{lo, nil}
	}
	out := make([]float64, size)
	for i, ai := range a.c {
		if 2*i >= size {
			break
		}
		out[2*i] += ai * ai
		row := out[2*i+1:]
		bc := a.c[i+1 : i+1+min(len(a.c)-i-1, len(row))]
		row = row[:len(bc)]
		t := 2 * ai
		for j, bj := range bc {
			row[j] += t * bj
		}
	}
	return wpoly{lo, out}
}

// coefAt returns the coefficient of x^m in a (0 outside its window).
func coefAt(a wpoly, m int) float64 {
	if i := m - a.lo; i >= 0 && i < len(a.c) {
		return a.c[i]
	}
	return 0
}

// dotAt returns the coefficient of x^m in a·b.
func dotAt(a, b wpoly, m int) float64 {
	s := 0.0
	for i, ai := range a.c {
		s += ai * coefAt(b, m-a.lo-i)
	}
	return s
}
