package analytic

// Balls into bins (static allocation): m balls are placed one after another
// into n bins, and nothing ever leaves. Time is t = m/n, the number of balls
// per bin so far, and a tail is a slice whose element i-1 is s_i, the fraction
// of bins holding at least i balls, for i = 1..k. Since every ball adds one to
// exactly one bin, sum_i s_i = t (conservation of mass).
//
// Sources: Azar, Broder, Karlin and Upfal, "Balanced Allocations", STOC 1994
// and SIAM J. Comput. 29(1), 1999 (greedy d-choice, ln ln n / ln d);
// Mitzenmacher, "The Power of Two Choices in Randomized Load Balancing", PhD
// thesis, Berkeley 1996, and IEEE TPDS 12(10), 2001 (the fluid-limit
// differential equations); Vöcking, "How Asymmetry Helps Load Balancing",
// FOCS 1999 and JACM 50(4), 2003 (always-go-left, ln ln n / (d ln phi_d));
// Berenbrink, Czumaj, Steger and Vöcking, "Balanced Allocations: The Heavily
// Loaded Case", STOC 2000 and SIAM J. Comput. 35(6), 2006 (the gap between
// the maximum and the average does not grow with m for d >= 2); Loader, "Fast
// and Accurate Computation of Binomial Probabilities" (2000) for the
// saddle-point form of the binomial and Poisson probabilities.

import "math"

const (
	// binsMaxTime is the largest t the fluid ODEs accept: the integration
	// costs O(t d) steps (about 0.03 s at t = 1000 for greedy d = 2).
	binsMaxTime = 1e4
	// binsFloor: levels with s_i below it are returned as 0, and the ODE
	// window stops growing once its top level is below it.
	binsFloor = 1e-300
	// binsFull: a level whose fraction is within binsFull of 1 is frozen at
	// exactly 1 and leaves the ODE window. It must lie well above the point
	// where RK4 stalls in floating point (1 - s ~ 1.1e-16/(h d) <= 6e-15, as
	// an increment h d (1 - s) below half an ulp of 1 is lost); the error this
	// makes in a level is at most binsFull and shrinks afterwards, as the true
	// fraction keeps approaching 1.
	binsFull = 1e-12
	// binsGuard is the number of levels above the last one >= binsFloor kept
	// in the ODE window. An RK4 step carries mass up at most four levels (one
	// per stage), so no flux leaves the top of the window.
	binsGuard = 4
)

// BinsTail returns s_1..s_k at t = m/n for the greedy d-choice process in the
// fluid limit (n -> infinity, m/n = t fixed): each ball samples d bins
// uniformly at random (with or without replacement makes no difference in the
// limit) and joins the least loaded, ties broken arbitrarily. s_i is the
// fraction of bins with load at least i and obeys Mitzenmacher's equations
//
//	ds_i/dt = s_{i-1}^d - s_i^d,  s_0 = 1,  s_i(0) = 0,
//
// (a ball raises a bin from i-1 to i iff its least loaded probe holds exactly
// i-1 balls, probability s_{i-1}^d - s_i^d; one ball is 1/n of a unit of t).
// n*s_i is the expected number of bins with load >= i in a large system, e.g.
// 8895 bins with load >= 3 for d = 2 and m = n = 10^6.
//
// d = 1 gives the Poisson(t) tail in closed form,
//
//	s_i = 1 - e^(-t) sum_{j<i} t^j/j!,
//
// evaluated as a sum of Poisson probabilities (Loader's saddle-point form),
// not by integration. For d >= 2 the system is integrated by classical RK4
// with N = ceil(t/h_max) equal steps, h_max = min(0.02/d, t/1000) (so
// h = 0.01 for d = 2 and t >= 10, and 1000 steps for t <= 20/d), which holds
// every s_i to about 5e-11 absolute (checked by halving the step, against
// the closed form for d = 1, and by conservation of mass). Levels are added
// while any of the top four is >= 1e-300 and frozen at exactly 1 once within
// 1e-12 of 1, so only a window of a few dozen levels around t is integrated:
// t = 1000 with d = 2 takes about 0.03 s, and the cost grows like t*d.
//
// Elements below 1e-300, and levels above the integrated window, are 0;
// frozen levels are exactly 1.
//
// Valid for 0 <= t <= 10^4 (any finite t >= 0 for d = 1); otherwise every
// element is NaN. k = 0 gives an empty slice. It panics if d < 1 or k < 0.
//
// Sources: Mitzenmacher, PhD thesis (1996) and IEEE TPDS 12(10), 2001, for
// the equations; Azar, Broder, Karlin and Upfal, SIAM J. Comput. 29(1), 1999,
// for the process.
func BinsTail(t float64, d, k int) []float64 { return fluidTail("BinsTail", t, d, k, greedyFluid) }

// fluidTail validates the arguments of a fluid tail, answers d = 1 with the Poisson closed form and t = 0 with zeros,
// and otherwise integrates with solve.
func fluidTail(name string, t float64, d, k int, solve func(t float64, d int) []float64) []float64 {
	checkD(name, d)
	if k < 0 {
		panic("analytic: " + name + ": negative length k")
	}
	out := make([]float64, k)
	switch {
	case d == 1 && t >= 0 && !math.IsInf(t, 1):
		return floorTail(poissonTail(t, k))
	case !(t >= 0 && t <= binsMaxTime):
		return fillNaN(out)
	case t == 0:
		return out
	}
	copy(out, solve(t, d))
	return floorTail(out)
}

// GoLeftTail returns s_1..s_k at t = m/n for Vöcking's always-go-left in the
// fluid limit: the bins form d groups of n/d, the ball samples one bin
// uniformly from each group and joins the least loaded of the d probes, ties
// going to the leftmost group. With x_{i,j} the fraction of group-j bins with
// load >= i (groups j = 1..d, x_{0,j} = 1, x_{i,j}(0) = 0),
//
//	dx_{i,j}/dt = d * prod_{l<j} x_{i,l} * (x_{i-1,j} - x_{i,j}) * prod_{l>j} x_{i-1,l},
//	s_i = (1/d) sum_j x_{i,j}:
//
// a ball raises a group-j bin from i-1 to i iff the probes in groups l < j
// read >= i (they would win ties), the probe in group j reads exactly i-1 and
// the probes in groups l > j read >= i-1; the factor d turns one bin of the
// n/d in the group into a fraction of the group. Summing over j,
// ds_i/dt = prod_l x_{i-1,l} - prod_l x_{i,l}, so mass is conserved
// (sum_i s_i = t). Example: m = n = 10^6, d = 2 gives n*s_3 = 4475 and
// n*s_4 = 0.0515, against 8895 and 6.05 for greedy d = 2.
//
// d = 1 is the single-choice process and returns the Poisson tail of BinsTail
// in closed form. For d >= 2 the integration, step rule, window and 1e-300
// floor are those of BinsTail.
//
// Valid for 0 <= t <= 10^4 (any finite t >= 0 for d = 1); otherwise every
// element is NaN. k = 0 gives an empty slice. It panics if d < 1 or k < 0.
//
// Sources: Vöcking, "How Asymmetry Helps Load Balancing", FOCS 1999 and JACM
// 50(4), 2003 (the process and its ln ln n / (d ln phi_d) maximum load); the
// equations are derived from the process as above, by the fluid-limit method
// of Mitzenmacher, IEEE TPDS 12(10), 2001.
func GoLeftTail(t float64, d, k int) []float64 { return fluidTail("GoLeftTail", t, d, k, goLeftFluid) }

// FluidMaxLoad returns the fluid estimate of the maximum load among n bins
// given a tail s_1, s_2, ... (tail[i-1] = s_i, e.g. from BinsTail, GoLeftTail
// or BinomialTail): the largest i with
//
//	n * s_i >= 1/2,
//
// the level above which the expected number of bins reaching it falls below
// one half (a stated rule, not a theorem; it returns 0 if n*s_1 < 1/2). The
// tail must be long enough: if its last element still passes the test, the
// result is len(tail), a lower bound. For m = n = 10^6 it gives 4 for greedy
// d = 2, 3 for go-left d = 2 and 9 for d = 1.
//
// Valid for finite n > 0 and a tail without NaN; otherwise it returns -1 (an
// int has no NaN).
//
// Sources: the rule reads the fluid limit of Mitzenmacher, IEEE TPDS 12(10),
// 2001 (and of Vöcking, JACM 50(4), 2003) at the level where n*s_i drops below
// one half.
func FluidMaxLoad(tail []float64, n float64) int {
	if !(n > 0) || math.IsInf(n, 1) {
		return -1
	}
	best := 0
	for i, s := range tail {
		if math.IsNaN(s) {
			return -1
		}
		if n*s >= 0.5 {
			best = i + 1
		}
	}
	return best
}

// BinomialTail returns s_i = P(Binomial(m, 1/n) >= i), i = 1..k: the exact
// expected fraction of bins with load >= i when m balls go into n bins
// uniformly at random (d = 1), since one bin's load is Binomial(m, 1/n). As
// n -> infinity with m/n = t it tends to the Poisson(t) tail of BinsTail; the
// two differ by at most 1/n (Le Cam's bound n*(1/n)^2 on the total variation),
// e.g. by 1.8e-7 at m = n = 10^6.
//
// Each probability is evaluated in Loader's saddle-point form
// exp(stirlerr(m) - stirlerr(i) - stirlerr(m-i) - bd0(i, m/n) -
// bd0(m-i, m(n-1)/n)) / sqrt(2 pi i (1 - i/m)), which keeps full relative
// accuracy as m grows (it matches mpmath to 1e-15 at m = 10^11, where gonum's
// regularized incomplete beta is off by 5e-4, its log-beta cancelling). Levels above the mode are
// summed from the top down; levels at or below it are 1 minus the sum below,
// so every element is accurate in absolute terms and the upper tail also in
// relative terms. Values that underflow are 0.
//
// Valid for an integer m with 0 <= m <= 2^53 and finite n >= 1 (n need not be
// an integer); otherwise every element is NaN. k = 0 gives an empty slice. It
// panics if k < 0.
//
// Sources: the balls-into-bins model of Azar, Broder, Karlin and Upfal, SIAM
// J. Comput. 29(1), 1999; Loader (2000) for the probabilities.
func BinomialTail(m, n float64, k int) []float64 {
	if k < 0 {
		panic("analytic: BinomialTail: negative length k")
	}
	out := make([]float64, k)
	if !validBalls(m, n) {
		return fillNaN(out)
	}
	b := newBinomial(m, n)
	return discreteTail(out, b.mode(), int(m), b.pmf)
}

// BinomialMaxLoad returns the median of the maximum load when m balls go into
// n bins uniformly at random (d = 1) under the independent-bins approximation:
// each bin's load is Binomial(m, 1/n) with distribution function F, and the n
// loads are treated as independent, so that
//
//	P(max <= k) ~= F(k)^n;
//
// the result is the smallest k with n * log F(k) >= log(1/2), where
// log F(k) = log1p(-P(Binomial(m, 1/n) >= k+1)) and the upper tail comes from
// BinomialTail's saddle-point sums, so it stays accurate for n up to 10^11
// and m/n up to well beyond 1000. (The loads are in fact negatively
// associated, so F(k)^n is an upper bound on P(max <= k) and the median
// returned is at most the exact one; the approximation is standard and close
// for large n; MultinomialMaxMedian is the exact median, e.g. 19 against
// 18 at m = 1000, n = 100.) It is nondecreasing in m. Values: m = n = 10^2, 10^4,
// 10^6, 10^8 give 4, 7, 9, 11; m = 10^7, n = 10^4 gives 1123, the average
// 1000 plus 123, against the leading term sqrt(2 (m/n) ln n) = 136.
//
// Valid for an integer m with 0 <= m <= 2^53 and finite n >= 1; otherwise it
// returns -1 (an int has no NaN).
//
// Sources: Azar, Broder, Karlin and Upfal, SIAM J. Comput. 29(1), 1999
// (max load ln n / ln ln n (1 + o(1)) for m = n); Raab and Steger, "Balls into
// Bins — A Simple and Tight Analysis", RANDOM 1998 (m >> n: m/n +
// sqrt(2 (m/n) ln n)); Dubhashi and Ranjan, "Balls and Bins: A Study in
// Negative Dependence", Random Structures & Algorithms 13(2), 1998; Loader
// (2000) for the probabilities.
func BinomialMaxLoad(m, n float64) int {
	if !validBalls(m, n) {
		return -1
	}
	b := newBinomial(m, n)
	// The answer k satisfies F(k) >= 2^(-1/n) >= 1/2, so k is at least the
	// median of the binomial, which is at least floor(m/n) (Kaas and
	// Buhrman, Statistica Neerlandica 34, 1980).
	lo := int(math.Floor(m / n))
	top := int(m)
	// tau = 1 - 2^(-1/n): the upper tail P(X >= k+1) must fall to tau. Terms
	// are kept until they drop below 1e-20*tau.
	tau := -math.Expm1(-math.Ln2 / n)
	c := b.mode()
	var terms []float64 // terms[j-lo] = P(X = j)
	for j := lo; j <= top; j++ {
		p := b.pmf(j)
		terms = append(terms, p)
		if j > c && (p == 0 || p < 1e-20*tau) {
			break
		}
	}
	// Suffix sums from the top down; upper[j-lo] = P(X >= j).
	upper := make([]float64, len(terms)+1)
	for i := len(terms) - 1; i >= 0; i-- {
		upper[i] = upper[i+1] + terms[i]
	}
	for k := lo; ; k++ {
		// upper[k+1-lo] = P(X >= k+1); beyond the list it is 0.
		tail := 0.0
		if k+1-lo < len(upper) {
			tail = upper[k+1-lo]
		}
		if n*math.Log1p(-tail) >= -math.Ln2 {
			return k
		}
	}
}

// AsymptoticMaxLoad returns the leading term of the classical asymptotic
// maximum load with n bins and m = n balls:
//
//	d = 1:                 ln n / ln ln n          (Gonnet 1981)
//	greedy d >= 2:         ln ln n / ln d          (Azar et al. 1999)
//	go-left d >= 2:        ln ln n / (d ln phi_d)  (Vöcking 2003)
//
// where phi_d in (1, 2) is the growth rate of the d-ary Fibonacci numbers, the
// largest real root of x^d = x^(d-1) + ... + x + 1 (phi_2 = (1+sqrt 5)/2 =
// 1.618..., phi_3 = 1.839... the tribonacci constant). These are leading
// terms only: the true maxima carry O(1) additive terms (for d = 1 the
// relative correction decays like ln ln ln n / ln ln n), so at n = 10^6 they
// give 5.26, 3.79 and 2.73 against typical simulated maxima 9, 4 and 3. For
// d = 1 goLeft has no effect (one group is the single-choice process).
//
// Valid for finite n >= 3 (so that ln ln n > 0); it returns NaN otherwise. It
// panics if d < 1.
//
// Sources: Gonnet, "Expected Length of the Longest Probe Sequence in Hash
// Code Searching", JACM 28(2), 1981; Azar, Broder, Karlin and Upfal, SIAM J.
// Comput. 29(1), 1999; Vöcking, JACM 50(4), 2003.
func AsymptoticMaxLoad(n float64, d int, goLeft bool) float64 {
	checkD("AsymptoticMaxLoad", d)
	if !(n >= 3) || math.IsInf(n, 1) {
		return math.NaN()
	}
	lln := math.Log(math.Log(n))
	switch {
	case d == 1:
		return math.Log(n) / lln
	case goLeft:
		return lln / (float64(d) * math.Log(fibGrowth(d)))
	default:
		return lln / math.Log(float64(d))
	}
}

// fibGrowth returns phi_d, the largest real root of x^d = x^(d-1) + ... + 1,
// for d >= 1 (phi_1 = 1). Dividing by x^d, it is the unique positive root of
// g(x) = sum_{j=1..d} x^(-j) - 1, which is strictly decreasing with g(1) =
// d - 1 >= 0 and g(2) = -2^(-d) < 0; bisection on [1, 2] runs until the
// midpoint no longer splits the interval.
func fibGrowth(d int) float64 {
	g := func(x float64) float64 {
		y, s := 1/x, 0.0
		for range d {
			s = y * (1 + s) // Horner: y + y^2 + ... + y^d
		}
		return s - 1
	}
	lo, hi := 1.0, 2.0
	for {
		mid := lo + (hi-lo)/2
		if mid <= lo || mid >= hi {
			return mid
		}
		if g(mid) > 0 {
			lo = mid
		} else {
			hi = mid
		}
	}
}

// validBalls reports whether m is an integer in [0, 2^53] and n is finite and
// at least 1 (false for NaN).
func validBalls(m, n float64) bool {
	return m >= 0 && m <= 1<<53 && m == math.Floor(m) && n >= 1 && !math.IsInf(n, 1)
}

// floorTail sets the elements below binsFloor to 0 and returns s.
func floorTail(s []float64) []float64 {
	for i, v := range s {
		if v < binsFloor {
			s[i] = 0
		}
	}
	return s
}

// ---------------------------------------------------------------------------
// Fluid limits by RK4.

// fluidSteps returns the number N of equal RK4 steps used up to time t > 0:
// N = ceil(t / h_max) with h_max = min(0.02/d, t/1000). The step scales as
// 1/d because the rates, and the largest Jacobian eigenvalue, are at most d
// (RK4 is stable for |h lambda| < 2.78).
func fluidSteps(t float64, d int) int {
	hmax := math.Min(0.02/float64(d), t/1000)
	return int(math.Ceil(t / hmax))
}

// rk4 is a classical fourth-order Runge-Kutta stepper with reusable scratch.
type rk4 struct {
	k1, k2, k3, k4, tmp []float64
}

// step advances y (autonomous: y' = f(y)) by h in place; f writes the
// derivative of its second argument into its first.
func (r *rk4) step(y []float64, h float64, f func(dy, y []float64)) {
	n := len(y)
	grow := func(s []float64) []float64 {
		if cap(s) < n {
			return make([]float64, n, 2*n)
		}
		return s[:n]
	}
	r.k1, r.k2, r.k3, r.k4, r.tmp = grow(r.k1), grow(r.k2), grow(r.k3), grow(r.k4), grow(r.tmp)
	f(r.k1, y)
	for i := range y {
		r.tmp[i] = y[i] + h/2*r.k1[i]
	}
	f(r.k2, r.tmp)
	for i := range y {
		r.tmp[i] = y[i] + h/2*r.k2[i]
	}
	f(r.k3, r.tmp)
	for i := range y {
		r.tmp[i] = y[i] + h*r.k3[i]
	}
	f(r.k4, r.tmp)
	for i := range y {
		y[i] += h / 6 * (r.k1[i] + 2*r.k2[i] + 2*r.k3[i] + r.k4[i])
	}
}

// powInt returns x^d for d >= 1 by repeated squaring.
func powInt(x float64, d int) float64 {
	r := 1.0
	for ; d > 0; d >>= 1 {
		if d&1 == 1 {
			r *= x
		}
		x *= x
	}
	return r
}

// greedyFluid integrates ds_i/dt = s_{i-1}^d - s_i^d (s_0 = 1) from 0 to
// t > 0 and returns s_1..s_top. s[i-1] holds s_i; levels below lo are frozen
// at exactly 1 and the derivative is taken over the window s[lo:] only, with
// the level just below it equal to 1. After each step a zero level is added
// while the top level is >= binsFloor, so the flux lost through the top is
// below binsFloor^d per unit time. Also valid for d = 1 (tests only).
func greedyFluid(t float64, d int) []float64 {
	return greedyFluidSteps(t, d, fluidSteps(t, d))
}

// greedyFluidSteps is greedyFluid with a given number of steps.
func greedyFluidSteps(t float64, d, steps int) []float64 {
	s := make([]float64, binsGuard)
	lo := 0
	f := func(ds, w []float64) {
		prev := 1.0 // s_{lo}^d with s_lo = 1 (frozen or s_0)
		for i, v := range w {
			p := powInt(v, d)
			ds[i] = prev - p
			prev = p
		}
	}
	var r rk4
	h := t / float64(steps)
	for range steps {
		r.step(s[lo:], h, f)
		for anyAtLeast(s[len(s)-binsGuard:], binsFloor) {
			s = append(s, 0)
		}
		for lo < len(s)-1 && 1-s[lo] < binsFull {
			s[lo] = 1
			lo++
		}
	}
	return s
}

// goLeftFluid integrates Vöcking's equations (see GoLeftTail) from 0 to t > 0
// for d groups and returns s_1..s_top. x is level-major: x[(i-1)*d + j] is
// x_{i,j} (groups j = 0..d-1). Windowing is as in greedyFluid, by whole
// levels: a level is frozen once every group is within binsFull of 1, and a
// level is added while any group of the top level is >= binsFloor. Also valid
// for d = 1 (tests only), where it reduces to the single-choice equation.
func goLeftFluid(t float64, d int) []float64 {
	return goLeftFluidSteps(t, d, fluidSteps(t, d))
}

// goLeftFluidSteps is goLeftFluid with a given number of steps.
func goLeftFluidSteps(t float64, d, steps int) []float64 {
	x := make([]float64, binsGuard*d)
	lo := 0 // first active level (0-based)
	ones := make([]float64, d)
	for j := range ones {
		ones[j] = 1
	}
	suffix := make([]float64, d+1) // suffix[j] = prod_{l>=j} x_{i-1,l}
	fd := float64(d)
	f := func(dx, w []float64) {
		below := ones // level lo-1: frozen or level 0
		for a := 0; a < len(w); a += d {
			cur := w[a : a+d]
			suffix[d] = 1
			for j := d - 1; j >= 0; j-- {
				suffix[j] = suffix[j+1] * below[j]
			}
			prefix := 1.0 // prod_{l<j} x_{i,l}
			for j := range d {
				dx[a+j] = fd * prefix * (below[j] - cur[j]) * suffix[j+1]
				prefix *= cur[j]
			}
			below = cur
		}
	}
	var r rk4
	h := t / float64(steps)
	levels := func() int { return len(x) / d }
	for range steps {
		r.step(x[lo*d:], h, f)
		for anyAtLeast(x[len(x)-binsGuard*d:], binsFloor) {
			x = append(x, make([]float64, d)...)
		}
		for lo < levels()-1 && allFull(x[lo*d:(lo+1)*d]) {
			copy(x[lo*d:(lo+1)*d], ones)
			lo++
		}
	}
	s := make([]float64, levels())
	for i := range s {
		sum := 0.0
		for _, v := range x[i*d : (i+1)*d] {
			sum += v
		}
		s[i] = sum / fd
	}
	return s
}

// anyAtLeast reports whether some element of v is >= c.
func anyAtLeast(v []float64, c float64) bool {
	for _, x := range v {
		if x >= c {
			return true
		}
	}
	return false
}

// allFull reports whether every element of v is within binsFull of 1.
func allFull(v []float64) bool {
	for _, x := range v {
		if !(1-x < binsFull) {
			return false
		}
	}
	return true
}

// ---------------------------------------------------------------------------
// Poisson and binomial probabilities (Loader 2000).

// stirlerrSmall holds stirlerr(n) = ln n! - (n + 1/2) ln n + n - ln sqrt(2 pi)
// for n = 0..15 (computed to 22 digits with mpmath; n = 0 is unused).
var stirlerrSmall = [16]float64{
	0,
	0.08106146679532725821967,
	0.04134069595540929409382,
	0.02767792568499833914879,
	0.02079067210376509311152,
	0.01664469118982119216319,
	0.01387612882307074799875,
	0.01189670994589177009506,
	0.01041126526197209649748,
	0.009255462182712732917729,
	0.008330563433362871256469,
	0.007573675487951840794972,
	0.006942840107209529865664,
	0.00640899418800420706844,
	0.005951370112758847735624,
	0.005554733551962801371039,
}

// stirlerr returns the error of Stirling's formula for ln n!, n >= 0 an
// integer: the table for n <= 15, else the asymptotic series
// 1/(12n) - 1/(360n^3) + 1/(1260n^5) - 1/(1680n^7) + 1/(1188n^9), whose first
// omitted term is below 1e-17 for n > 15.
func stirlerr(n float64) float64 {
	if n <= 15 {
		return stirlerrSmall[int(n)]
	}
	const (
		s0 = 1.0 / 12
		s1 = 1.0 / 360
		s2 = 1.0 / 1260
		s3 = 1.0 / 1680
		s4 = 1.0 / 1188
	)
	nn := n * n
	return (s0 - (s1-(s2-(s3-s4/nn)/nn)/nn)/nn) / n
}

// bd0 returns x ln(x/np) + np - x >= 0 without cancellation (x >= 0, np > 0):
// for x close to np it sums the series in v = (x-np)/(x+np),
// (x-np) v + 2x sum_{j>=1} v^(2j+1)/(2j+1).
func bd0(x, np float64) float64 {
	if math.Abs(x-np) < 0.1*(x+np) {
		v := (x - np) / (x + np)
		s := (x - np) * v
		ej := 2 * x * v
		v *= v
		for j := 1; j < 1000; j++ {
			ej *= v
			s1 := s + ej/float64(2*j+1)
			if s1 == s {
				return s1
			}
			s = s1
		}
		return s
	}
	return x*math.Log(x/np) + np - x
}

// poissonPMF returns P(Poisson(lambda) = x) for an integer x >= 0 and
// lambda > 0: exp(-stirlerr(x) - bd0(x, lambda)) / sqrt(2 pi x).
func poissonPMF(x int, lambda float64) float64 {
	if x == 0 {
		return math.Exp(-lambda)
	}
	fx := float64(x)
	return math.Exp(-stirlerr(fx)-bd0(fx, lambda)) / math.Sqrt(2*math.Pi*fx)
}

// poissonTail returns P(Poisson(t) >= i), i = 1..k, for finite t >= 0.
func poissonTail(t float64, k int) []float64 {
	out := make([]float64, k)
	if t == 0 {
		return out
	}
	// The mode is floor(t), capped so that it fits an int for absurd t.
	mode := int(math.Min(math.Floor(t), 1<<62))
	return discreteTail(out, mode, math.MaxInt, func(j int) float64 { return poissonPMF(j, t) })
}

// binomial is Binomial(m, p) with p = 1/n, q = 1 - p.
type binomial struct {
	m, n, mp, mq float64
}

func newBinomial(m, n float64) binomial {
	return binomial{m: m, n: n, mp: m / n, mq: m * ((n - 1) / n)}
}

// mode returns floor((m+1)/n), capped at m: the pmf rises up to it and falls
// after it.
func (b binomial) mode() int {
	return int(math.Min(math.Floor((b.m+1)/b.n), b.m))
}

// pmf returns P(X = x) by Loader's saddle-point formula.
func (b binomial) pmf(x int) float64 {
	fx := float64(x)
	switch {
	case x < 0 || fx > b.m:
		return 0
	case b.mq == 0: // n = 1: all balls in the one bin
		if fx == b.m {
			return 1
		}
		return 0
	case x == 0:
		return math.Exp(b.m * math.Log1p(-1/b.n))
	case fx == b.m:
		return math.Exp(-b.m * math.Log(b.n))
	}
	lc := stirlerr(b.m) - stirlerr(fx) - stirlerr(b.m-fx) - bd0(fx, b.mp) - bd0(b.m-fx, b.mq)
	lf := math.Log(2*math.Pi) + math.Log(fx) + math.Log1p(-fx/b.m)
	return math.Exp(lc - 0.5*lf)
}

// discreteTail fills out[i-1] = P(X >= i), i = 1..len(out), for an integer
// law on 0..maxJ whose pmf rises up to mode and falls after it. Levels i <=
// mode are 1 - sum_{j<i} pmf(j), summed upward from the smallest nonzero term;
// levels i > mode are sum_{j>=i} pmf(j), summed from the top down, where the
// terms stop at underflow or once below 1e-20 of the sum from the last
// requested level (the remainder is then below about 1e-17 of it). Returns out.
func discreteTail(out []float64, mode, maxJ int, pmf func(int) float64) []float64 {
	k := len(out)
	// Lower part: i = 1..min(mode, k) needs pmf(0..min(mode,k)-1).
	if nl := min(mode, k); nl > 0 {
		low := make([]float64, nl) // low[j] = pmf(j); zero below the first underflow
		for j := nl - 1; j >= 0; j-- {
			if low[j] = pmf(j); low[j] == 0 {
				break // the pmf rises up to the mode, so all lower terms are 0 too
			}
		}
		acc := 0.0
		for i := 1; i <= nl; i++ {
			acc += low[i-1] // sum_{j<i} pmf(j)
			out[i-1] = 1 - acc
		}
	}
	if k <= mode {
		return out
	}
	// Upper part: i = mode+1..k.
	var up []float64 // up[j-mode-1] = pmf(j)
	acc := 0.0       // sum of the terms with j >= k
	for j := mode + 1; j <= maxJ; j++ {
		p := pmf(j)
		up = append(up, p)
		if j >= k {
			acc += p
		}
		if p == 0 || (j > k && p < 1e-20*acc) {
			break
		}
	}
	sum := 0.0
	for idx := len(up) - 1; idx >= 0; idx-- {
		sum += up[idx]
		if i := mode + 1 + idx; i <= k {
			out[i-1] = sum
		}
	}
	return out
}
