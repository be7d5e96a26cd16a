package analytic

// The exact law of the maximum load of m balls thrown uniformly at random into
// n bins (d = 1): the loads are Multinomial(m; 1/n, ..., 1/n), not
// independent, so the F(k)^n of BinomialMaxLoad is only an approximation.

import (
	"math"
	"math/bits"

	"gonum.org/v1/gonum/dsp/fourier"
	"gonum.org/v1/gonum/floats"
)

// MultinomialMaxExactBalls is the largest m for which the model's
// theory_max_load uses MultinomialMaxMedian rather than BinomialMaxLoad's
// independent-bins approximation. On the project's machine
// MultinomialMaxMedian takes 3.3–4.6 ms at m = n = 10^6, the bound, and
// 0.26–0.40 ms at m = n = 10^4 (BenchmarkMultinomialMaxMedian, 2026-12-03,
// five runs, one evaluation of MultinomialMaxCDF each), once per grid point.
// Few bins cost more, as the law of a bin spans more degrees and the
// independent-bins start of the median's search is further below it:
// 10^6 balls in 5 bins take 1.1 s (77 s for 2·10^6 before the search
// galloped and the long products went to the FFT; 2.1 s now).
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
// coefficient [x^m] of q(x)^n, q the truncated law, by halving n (powCoef).
// Every intermediate polynomial is a (sub-)probability law, so nothing under-
// or overflows; degrees above m are dropped (exactly), and so are end
// coefficients below 1e-30 of their polynomial's largest or within an
// allowance of dropped mass. The dropped mass gives a bound on the absolute
// error of P(S = m) that the function carries along; if it exceeds 1e-9 of
// P(S = m) the result is NaN (not seen at any m, n tried, up to m = 10^7).
// The bound covers the trimming, not rounding: each coefficient of q carries
// a relative rounding error of about 1e-16, which q^n can multiply by n in
// the worst case (1e-10 at n = 10^6; against inclusion-exclusion at 60
// digits, 1.3e-9 at m = 10^5, n = 10^7, k = 3 and 9e-9 at m = 10^6,
// n = 10^8, k = 4). Poisson probabilities are Loader's (2000).
//
// Cost: the largest product is the square of q^(n/4), whose polynomial spans
// about 15 standard deviations of its sum (about 10^4 coefficients at
// m = n = 10^6); squares of fftMin coefficients or more are made by FFT
// (convolveFFT), O(L log L) for L coefficients, the smaller ones directly in
// gonum's vectorised axpy, plus O(k) for the law of Y: 3.3–4.6 ms at
// m = n = 10^6 on the project's machine (12–14 ms with every square direct,
// 137 ms by binary powering with a fixed trim in scalar loops). The FFT's
// rounding (convolveFFT) changes [x^m] by at most 9.4·10^-14 of itself against
// direct squares at the m, n, k tested (TestPowCoefFFT), far inside the
// trimming bound.
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
	case evenSplit(m, n, k): // every bin holds exactly k
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

// evenSplit reports whether k·n = m exactly, without overflow (k > 0, n ≥ 1).
func evenSplit(m, n, k int) bool {
	hi, lo := bits.Mul64(uint64(k), uint64(n))
	return hi == 0 && lo == uint64(m)
}

// MultinomialMaxMedian returns the median of the maximum load of m balls in n
// bins (d = 1) under the exact multinomial law: the smallest k with
// MultinomialMaxCDF(m, n, k) >= 1/2. The search starts at BinomialMaxLoad(m,
// n), which is never above it (the counts are negatively associated, so
// P(max <= k) <= F(k)^n: Dubhashi and Ranjan, Random Structures & Algorithms
// 13(2), 1998), and gallops up and bisects, so it usually costs one or two
// evaluations of MultinomialMaxCDF at m = n and O(log) where the
// approximation is far below (few bins). Values: m = n = 10^2, 10^3, 10^4,
// 10^5, 10^6 give 4, 5, 7, 8, 9 (the same as the approximation); m = 1000,
// n = 100 gives 19 (the approximation 18).
//
// Valid for 0 <= m <= 2^53 and n >= 1; otherwise, or if MultinomialMaxCDF
// returns NaN, it returns -1 (an int has no NaN). Its cost is that of
// MultinomialMaxCDF per step; see MultinomialMaxExactBalls for the times
// measured and the bound the model applies.
func MultinomialMaxMedian(m, n int) int {
	k := BinomialMaxLoad(float64(m), float64(n))
	if k < 0 {
		return -1
	}
	// Gallop up from k (steps 1, 2, 4, …) to a k with P(max ≤ k) ≥ 1/2, then bisect between it and the last k
	// below: at m = n the first or second evaluation ends it, as stepping by one did, and where the approximation
	// is far below the median (a few bins: 10^6 balls in 5 bins, hundreds of steps by one) it takes O(log) of them.
	below, step := k-1, 1 // P(max ≤ below) < 1/2: k is never above the median
	for {
		p := MultinomialMaxCDF(m, n, k)
		if math.IsNaN(p) {
			return -1
		}
		if p >= 0.5 {
			break
		}
		below, k = k, min(k+step, m)
		step *= 2
	}
	for k-below > 1 {
		mid := below + (k-below)/2
		p := MultinomialMaxCDF(m, n, mid)
		if math.IsNaN(p) {
			return -1
		}
		if p >= 0.5 {
			k = mid
		} else {
			below = mid
		}
	}
	return k
}

// truncPoissonTilt returns lambda > 0 such that Poisson(lambda) conditioned on
// <= k has mean t, for 0 < t < k: the truncated mean rises from 0 to k as
// lambda goes from 0 to infinity, and is at most lambda, so lambda >= t. The
// bisection is on log lambda; any lambda is correct (it only places m near
// the mean of S), so its accuracy matters only for speed.
func truncPoissonTilt(t float64, k int) float64 {
	lf := logFactorials(k) // once for the ~60 steps of the search (they were most of its cost at large k)
	lw, q := make([]float64, k+1), make([]float64, k+1)
	mean := func(lambda float64) float64 {
		truncWeightsInto(lf, lambda, lw, q)
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
	q, top, sum := truncWeights(logFactorials(k), lambda)
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

// logFactorials returns log j! for j = 0..k (math.Lgamma(j + 1)).
func logFactorials(k int) []float64 {
	lf := make([]float64, k+1)
	for j := range lf {
		lf[j], _ = math.Lgamma(float64(j) + 1)
	}
	return lf
}

// truncWeights returns the law of Poisson(lambda) conditioned on <= k,
// k = len(lf) − 1 (lf from logFactorials), with the largest log weight
// j log(lambda) − log j! (top) and the sum of the weights exp(· − top)
// before normalising (sum). A weight whose log is more than 750 below top
// is 0 (exp underflows to 0 from about −745.2), so its exp is not taken:
// the same values with exps only within about ±38.7 standard deviations of
// the law (10^6 balls in 5 bins: 4·10^5 terms, of which 5·10^4 take an exp).
func truncWeights(lf []float64, lambda float64) (q []float64, top, sum float64) {
	q = make([]float64, len(lf))
	top, sum = truncWeightsInto(lf, lambda, make([]float64, len(lf)), q)
	return q, top, sum
}

// truncWeightsInto is truncWeights into q, with lw for the log weights (both
// of len(lf)).
func truncWeightsInto(lf []float64, lambda float64, lw, q []float64) (top, sum float64) {
	top = math.Inf(-1)
	ll := math.Log(lambda)
	for j, g := range lf {
		lw[j] = float64(j)*ll - g
		if lw[j] > top { // the weights are finite: math.Max's NaN and ±0 cases do not arise
			top = lw[j]
		}
	}
	for j, v := range lw {
		q[j] = 0
		if v-top >= -750 {
			q[j] = math.Exp(v - top)
			sum += q[j]
		}
	}
	for j := range q {
		q[j] /= sum
	}
	return top, sum
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
//
// It halves: [x^m] q^n = sum_i A_i B_(m-i) with B = q^floor(n/2) and A = B or
// B·q, one dot product of two full polynomials, each made by squaring the law
// of half as many bins (times q when odd). The largest product is then the
// square of q^(n/4), where binary powering squared q^(n/2) and multiplied the
// partial products in: at m = n = 10^6, 2.4 times fewer multiply-adds. Each
// polynomial is trimmed from its ends as far as an allowance of dropped mass
// goes (trimPoly): a trim under j squarings is counted 2^j times in the final
// bound, so the allowance is budget/2^j split over the levels, budget a
// quarter of multiMaxRelErr times the local-limit estimate
// 1/sqrt(2 pi n Var q) of P(S = m); the top polynomials, which cost most, are
// cut to about ±7.5 standard deviations instead of the ±11.7 that the floor
// multiTrim alone keeps. If the estimate was too high and the bound misses
// multiMaxRelErr·[x^m], it is recomputed with the floor alone.
func powCoef(q []float64, n, m int) (float64, float64) {
	return powCoefWithin(q, n, m, powBudget(q, n))
}

// powBudget is the allowance powCoef trims q^n's polynomials within (its
// doc): a quarter of multiMaxRelErr times the local-limit estimate of
// [x^m], split over at most two trims a level of the halving.
func powBudget(q []float64, n int) float64 {
	mean, sq := 0.0, 0.0
	for j, v := range q {
		mean += float64(j) * v
		sq += float64(j) * float64(j) * v
	}
	est := 1 / math.Sqrt(2*math.Pi*(float64(n)*math.Max(sq-mean*mean, 0)+1))
	levels := 2 * (bits.Len(uint(n)) + 1) // at most two trims a level
	return multiMaxRelErr / 4 * est / float64(levels)
}

// powCoefWithin is powCoef with budget the mass a trim under no squaring may
// drop: if the bound then misses multiMaxRelErr·[x^m], it recomputes with the
// floor multiTrim alone (budget 0).
func powCoefWithin(q []float64, n, m int, budget float64) (float64, float64) {
	plans := fftPlans{}
	c, err := powers{q: q, m: m, budget: budget, plans: plans}.coef(n)
	if budget == 0 || err <= multiMaxRelErr*c {
		return c, err
	}
	return powers{q: q, m: m, plans: plans}.coef(n)
}

// powers computes trimmed powers of the law q, truncated above degree m, with
// budget the mass a trim under no squaring may drop (halved per squaring).
type powers struct {
	q      []float64
	m      int
	budget float64
	plans  fftPlans
	// qw is q with the end coefficients below multiTrim of its largest dropped, and qlost their mass (set by coef):
	// a law tilted to a large mean m/n has thousands of negligible low coefficients that every product with it
	// would otherwise pay for.
	qw    wpoly
	qlost float64
}

// fftPlans holds one FFT plan per transform length (its twiddle factors cost
// a sine and a cosine per point), for the squarings of one powers; nil plans
// square every polynomial directly.
type fftPlans map[int]*fourier.FFT

// plan returns the FFT of length n, made on first use.
func (p fftPlans) plan(n int) *fourier.FFT {
	ft := p[n]
	if ft == nil {
		ft = fourier.NewFFT(n)
		p[n] = ft
	}
	return ft
}

// coef returns [x^m] q^n and its error bound (powCoef).
func (pw powers) coef(n int) (float64, float64) {
	t := trimPoly(wpoly{0, pw.q}, pw.m, 0)
	pw.qw, pw.qlost = t.wpoly, t.err
	if n == 1 {
		return coefAt(pw.qw, pw.m), pw.qlost
	}
	b, eb := pw.full(n/2, 2)
	if n%2 == 0 {
		return dotAt(b, b, pw.m), 2 * eb
	}
	a := trimPoly(mulPoly(pw.qw, b, pw.m, pw.plans), pw.m, pw.budget/2)
	return dotAt(a.wpoly, b, pw.m), a.err + pw.qlost + 2*eb
}

// full returns q^n, trimmed, and its missing mass, for a polynomial that the
// caller's squarings count amp times in the final bound.
func (pw powers) full(n int, amp float64) (wpoly, float64) {
	allow := pw.budget / amp
	if n == 1 {
		p := trimPoly(pw.qw, pw.m, allow)
		return p.wpoly, p.err + pw.qlost
	}
	h, eh := pw.full(n/2, 2*amp)
	r := trimPoly(squarePoly(h, pw.m, pw.plans), pw.m, allow)
	p, e := r.wpoly, 2*eh+r.err
	if n%2 == 1 {
		r = trimPoly(mulPoly(pw.qw, p, pw.m, pw.plans), pw.m, allow)
		p, e = r.wpoly, e+r.err+pw.qlost
	}
	return p, e
}

// trimmed is a trimmed polynomial and the mass its trimming dropped.
type trimmed struct {
	wpoly
	err float64
}

// trimPoly drops the coefficients of degree above m (exactly: they never
// reach [x^m]), from both ends those below multiTrim times the largest, and
// then, smaller end first, further end coefficients while the mass dropped
// stays within allow; it returns the dropped mass (all but the first kind).
func trimPoly(a wpoly, m int, allow float64) trimmed {
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
	for j-i > 1 {
		v := &a.c[i]
		if a.c[j-1] < *v {
			v = &a.c[j-1]
		}
		if lost+*v > allow {
			break
		}
		lost += *v
		if v == &a.c[i] {
			i++
		} else {
			j--
		}
	}
	return trimmed{wpoly{a.lo + i, a.c[i:j]}, lost}
}

// mulPoly returns a·b without its coefficients of degree above m: by FFT
// (convolveFFT, with plans) when both have fftMin coefficients or more,
// otherwise directly.
func mulPoly(a, b wpoly, m int, plans fftPlans) wpoly {
	lo := a.lo + b.lo
	size := min(len(a.c)+len(b.c)-1, m-lo+1)
	if size <= 0 {
		return wpoly{lo, nil}
	}
	if plans != nil && min(len(a.c), len(b.c)) >= fftMin {
		return wpoly{lo, convolveFFT(a.c, b.c, size, plans)}
	}
	out := make([]float64, size)
	for i, ai := range a.c {
		if i >= size {
			break
		}
		row := out[i:]
		bc := b.c[:min(len(b.c), len(row))]
		floats.AddScaled(row[:len(bc)], ai, bc)
	}
	return wpoly{lo, out}
}

// squarePoly returns a·a without its coefficients of degree above m: from
// fftMin coefficients by FFT (convolveFFT, with plans), below that or with nil
// plans directly, using the symmetry of the products (half of mulPoly's work).
func squarePoly(a wpoly, m int, plans fftPlans) wpoly {
	lo := 2 * a.lo
	size := min(2*len(a.c)-1, m-lo+1)
	if size <= 0 {
		return wpoly{lo, nil}
	}
	if plans != nil && len(a.c) >= fftMin {
		return wpoly{lo, convolveFFT(a.c, a.c, size, plans)}
	}
	out := make([]float64, size)
	for i, ai := range a.c {
		if 2*i >= size {
			break
		}
		out[2*i] += ai * ai
		row := out[2*i+1:]
		bc := a.c[i+1 : i+1+min(len(a.c)-i-1, len(row))]
		floats.AddScaled(row[:len(bc)], 2*ai, bc)
	}
	return wpoly{lo, out}
}

// fftMin is the length of polynomial from which squarePoly squares it by FFT
// (and from which mulPoly multiplies two by FFT).
// The direct square costs L²/2 multiply-adds in gonum's vectorised axpy, the
// FFT three transforms of the power of two N ≥ 2L − 1 and their plan; measured
// (BenchmarkMultinomialMaxMedian, 2026-12-03), the FFT loses below about 800
// coefficients (m = n = 10^4, whose largest square has 776, took 0.43 ms with
// FFTs from 512 against 0.32 ms direct) and wins above.
const fftMin = 1024

// convolveFFT returns the first size coefficients of the product of the
// polynomials with coefficients a and b (all ≥ 0; the same slice for a
// square, which then takes one forward transform), by gonum's real FFT
// (dsp/fourier, a port of FFTPACK) of length N, the power of two
// ≥ len(a) + len(b) − 1, so that nothing wraps around; plans keeps each
// length's twiddle factors. For a square, each coefficient carries an
// absolute rounding error of at most 3·log2(N)·η·‖a‖₁·‖a‖₂ (for a product,
// ‖a‖₁·‖b‖₂ + ‖b‖₁·‖a‖₂ in place of 2·‖a‖₁·‖a‖₂),
// η ≈ 8·2^-52 (Higham, "Accuracy and Stability of Numerical Algorithms", 2nd
// ed., Theorem 24.2, for the two transforms and the pointwise square), where
// the direct square's is about len(a)·2^-52 of the coefficient: a few 10^-16
// of the central coefficient either way (TestSquareFFT measures 4.5·10^-16 at
// 9,800 coefficients), but in the far tails, below about 10^-15 of the centre,
// the FFT's coefficients are rounding noise, which trimPoly drops with the
// other negligible ones. A coefficient that comes out below 0 is set to 0
// (every true one is ≥ 0).
func convolveFFT(a, b []float64, size int, plans fftPlans) []float64 {
	n := 1 << bits.Len(uint(len(a)+len(b)-2))
	ft := plans.plan(n)
	seq := make([]float64, n)
	copy(seq, a)
	f := ft.Coefficients(nil, seq)
	if len(a) == len(b) && &a[0] == &b[0] {
		for i, v := range f {
			f[i] = v * v
		}
	} else {
		clear(seq)
		copy(seq, b)
		g := ft.Coefficients(nil, seq)
		for i, v := range g {
			f[i] *= v
		}
	}
	out := ft.Sequence(seq, f)[:size]
	scale := 1 / float64(n) // exact: n is a power of two
	for i, v := range out {
		out[i] = max(v*scale, 0)
	}
	return out
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
