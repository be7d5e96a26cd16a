package analytic

import (
	"math"

	"gonum.org/v1/gonum/mathext"
)

// This file: where adaptive concurrency limits settle at a saturated server (model/resilience's limiter: Netflix
// concurrency-limits' AIMDLimit and Gradient2Limit). Rates are per unit time, times in the same unit (ms in the
// resilience model).
//
// The target is Little's law: a server that completes X requests per unit time, each in W, holds L = X·W. A server
// of c workers at rate mu has its knee at L = c: it is saturated (X = c mu) with no queue (W = 1/mu). A limiter that
// holds the limit above c adds queueing delay and no throughput; one below c idles workers. The limiters aim near
// the knee with a slack: Gradient2 tolerates an RTT of tolerance times its baseline and adds queueSize per update.
//
// Closed forms exist only for a fluid server (deterministic RTT L/(c mu) at limit L ≥ c): Gradient2FluidLimit. With
// random service times the settled limit has no closed form; AIMDMeanFieldLimit and Gradient2MeanFieldLimit solve a
// mean-field approximation instead: the limit frozen at L, the server an M/M/c/⌊L⌋ queue in its stationary state, and
// each admitted arrival's sample (its sojourn, and the number it found) drawn from that queue's law independently
// of the limit's past. The simulated limit fluctuates around that level (AIMD in a sawtooth, whose time average is
// below the level where the drift changes sign); the approximation ignores the lag between a sample's admission and
// its effect, and the correlation of successive samples.

// LittleLimit returns the concurrency a server holds at throughput x (requests per unit time) and latency w:
// L = x·w (Little, Operations Research 9(3), 1961). For c workers at rate mu, LittleLimit(c·mu, 1/mu) = c: the knee.
// NaN if either is negative or not finite.
func LittleLimit(x, w float64) float64 {
	if !(x >= 0 && w >= 0) || math.IsInf(x, 1) || math.IsInf(w, 1) {
		return math.NaN()
	}
	return x * w
}

// Gradient2FluidLimit returns the limit where Gradient2Limit's update L ← (1 − s)L + s(L·g + q),
// g = clamp(tolerance·b/r, 0.5, 1), stands still at a fluid server of c workers whose baseline b is the no-load RTT
// 1/mu and whose RTT at limit L ≥ c is L/(c mu) (saturated, no randomness): g = tolerance·c/L, so
// L(1 − g) = q gives L* = tolerance·c + q when q ≤ tolerance·c (then g ≥ 0.5), and L* = 2q (the clamp) otherwise.
// The smoothing s does not move it. The limit's slack over the knee c is (tolerance − 1)·c + q. NaN unless
// c ≥ 1, tolerance ≥ 1 and q ≥ 0 are finite.
func Gradient2FluidLimit(c int, tolerance, q float64) float64 {
	if c < 1 || !(tolerance >= 1 && q >= 0) || math.IsInf(tolerance, 1) || math.IsInf(q, 1) {
		return math.NaN()
	}
	if q <= tolerance*float64(c) {
		return tolerance*float64(c) + q
	}
	return 2 * q
}

// SojournTailGiven returns P(S > t) for a FCFS arrival that finds j requests at a server of c workers with
// exponential service at rate mu: Exp(mu) when j < c, else Erlang(j − c + 1, c mu) of waiting plus Exp(mu) of
// service (for c = 1, Erlang(j + 1, mu)). Averaged over the admitted arrivals' j (π_j/(1 − π_K) of MMcKDist) it is
// MMcKSojournTail. It returns 1 for t ≤ 0, and NaN for mu not positive and finite or t NaN. It panics if c < 1 or
// j < 0.
//
// Source: Gross and Harris §2.5; the convolution as in MMcKSojournTail.
func SojournTailGiven(j, c int, mu, t float64) float64 {
	checkServers("SojournTailGiven", c)
	if j < 0 {
		panic("analytic: SojournTailGiven: j < 0")
	}
	if !posFinite(mu) || math.IsNaN(t) {
		return math.NaN()
	}
	if t <= 0 {
		return 1
	}
	if math.IsInf(t, 1) {
		return 0
	}
	if j < c {
		return math.Exp(-mu * t)
	}
	m := float64(j - c + 1)
	if c == 1 {
		return mathext.GammaIncRegComp(m+1, mu*t)
	}
	fc := float64(c)
	conv := 0.0
	if lower := mathext.GammaIncReg(m, (fc-1)*mu*t); lower > 0 {
		conv = math.Exp(m*math.Log(fc/(fc-1)) - mu*t + math.Log(lower))
	}
	return math.Min(1, mathext.GammaIncRegComp(m, fc*mu*t)+conv)
}

// admitted returns the law of the number an admitted arrival finds at an M/M/c/K queue: π_j/(1 − π_K), j < K.
func admitted(lambda, mu float64, c, K int) []float64 {
	pi := MMcKDist(lambda, mu, c, K)
	adm := 1 - pi[K]
	for j := range pi[:K] {
		pi[j] /= adm
	}
	return pi[:K]
}

// AIMDDrift returns the mean change of AIMDLimit's integer limit L per sample under the mean-field approximation
// (see the file's doc): the server an M/M/c/L queue at arrival rate lambda, a sample from an admitted arrival that
// found j: with probability P(S > timeout | j) a backoff to ⌊backoff·L⌋ (floored at 1), else +1 when
// 2(j + 1) ≥ L (AIMDLimit's "inflight * 2 >= limit", the inflight counting the sample itself). NaN for rates not
// positive and finite. It panics if c < 1 or L < c.
func AIMDDrift(lambda, mu float64, c, L int, timeout, backoff float64) float64 {
	checkCapacity("AIMDDrift", c, L)
	if !posFinite(lambda) || !posFinite(mu) {
		return math.NaN()
	}
	drop := float64(L) - max(1, math.Floor(backoff*float64(L)))
	d := 0.0
	for j, w := range admitted(lambda, mu, c, L) {
		slow := SojournTailGiven(j, c, mu, timeout)
		inc := 0.0
		if 2*(j+1) >= L {
			inc = 1
		}
		d += w * ((1-slow)*inc - slow*drop)
	}
	return d
}

// AIMDMeanFieldLimit returns where AIMDLimit's drift (AIMDDrift) changes sign: L + d(L)/(d(L) − d(L+1)) for the
// first L in [max(lo, c), hi) with d(L) > 0 ≥ d(L+1) (linear between the two integers), hi if the drift stays
// positive, lo if it is never positive. It is the level the sawtooth of backoffs and increases straddles; the time
// average of the simulated limit lies below it, the backoffs being multiplicative. NaN for rates not positive and
// finite. It panics if c < 1 or hi < max(lo, c).
func AIMDMeanFieldLimit(lambda, mu float64, c int, timeout, backoff float64, lo, hi int) float64 {
	lo = max(lo, c)
	checkCapacity("AIMDMeanFieldLimit", lo, hi)
	if !posFinite(lambda) || !posFinite(mu) {
		return math.NaN()
	}
	prev := AIMDDrift(lambda, mu, c, lo, timeout, backoff)
	if prev <= 0 {
		return float64(lo)
	}
	for L := lo; L < hi; L++ {
		d := AIMDDrift(lambda, mu, c, L+1, timeout, backoff)
		if d <= 0 {
			return float64(L) + prev/(prev-d)
		}
		prev = d
	}
	return float64(hi)
}

// meanGradient returns E[clamp(a/S, 0.5, 1)] for S the sojourn given j (SojournTailGiven), a = tolerance·baseline:
// by parts, 1 − ∫_a^{2a} a·P(S > s)/s² ds, by Simpson's rule on 256 intervals (the integrand is smooth and bounded
// by 1/a on [a, 2a]).
func meanGradient(j, c int, mu, a float64) float64 {
	const n = 256
	h := a / n
	sum := 0.0
	for i := 0; i <= n; i++ {
		s := a + float64(i)*h
		w := 2.0
		switch {
		case i == 0 || i == n:
			w = 1
		case i%2 == 1:
			w = 4
		}
		sum += w * a * SojournTailGiven(j, c, mu, s) / (s * s)
	}
	return 1 - sum*h/3
}

// Gradient2Drift returns the mean change, over smoothing, of Gradient2Limit's estimate L per sample under the
// mean-field approximation, with the baseline (longRtt) held at b: the server an M/M/c/⌊L⌋ queue at rate lambda; a
// sample from an admitted arrival that found j counts only when j + 1 ≥ L/2 (not app-limited), and moves L by
// smoothing·(L·(E[g | j] − 1) + q), g = clamp(tolerance·b/S, 0.5, 1). NaN for rates or b not positive and finite.
// It panics if c < 1 or ⌊L⌋ < c.
func Gradient2Drift(lambda, mu float64, c int, L, tolerance, q, b float64) float64 {
	K := int(math.Floor(L))
	checkCapacity("Gradient2Drift", c, K)
	if !posFinite(lambda) || !posFinite(mu) || !posFinite(b) {
		return math.NaN()
	}
	d := 0.0
	for j, w := range admitted(lambda, mu, c, K) {
		if float64(j+1) < L/2 {
			continue
		}
		d += w * (L*(meanGradient(j, c, mu, tolerance*b)-1) + q)
	}
	return d
}

// unqueuedBaselineDrift returns the mean change per sample of Gradient2's longRtt b fed only by unqueued samples
// (seed 004's variant), at limit L: an unqueued sample (j < c) pulls it toward its mean 1/mu by the exponential
// average's factor f = 2/(window + 1); every sample shorter than b/2 (longRtt/shortRtt > 2) decays it by 5%.
func unqueuedBaselineDrift(lambda, mu float64, c int, L float64, window int, b float64) float64 {
	f := 2 / float64(window+1)
	d := 0.0
	for j, w := range admitted(lambda, mu, c, int(math.Floor(L))) {
		if j < c {
			d += w * f * (1/mu - b)
		}
		d -= w * 0.05 * b * (1 - SojournTailGiven(j, c, mu, b/2))
	}
	return d
}

// Gradient2MeanFieldLimit returns the mean-field fixed point (L, b) of Gradient2Limit with seed 004's unqueued
// baseline at a server of c workers (rate mu) offered lambda, with limits in [lo, hi]: b where the baseline's drift
// (unqueuedBaselineDrift) vanishes at L, and L where Gradient2Drift at b changes sign (scanning up from max(lo, c)
// by 1/20, then bisecting to 1e-6), iterated from L = c until L moves by less than 1e-6 (at most 50 times). The
// decay rule pulls the baseline well below the mean service 1/mu when service times are exponential (short samples
// are frequent), which puts L below Gradient2FluidLimit. NaN for rates not positive and finite. It panics if c < 1
// or hi < max(lo, c).
func Gradient2MeanFieldLimit(lambda, mu float64, c int, tolerance, q float64, window, lo, hi int) (limit, baseline float64) {
	lo = max(lo, c)
	checkCapacity("Gradient2MeanFieldLimit", lo, hi)
	if !posFinite(lambda) || !posFinite(mu) {
		return math.NaN(), math.NaN()
	}
	root := func(lo, hi float64, f func(float64) float64) float64 {
		for range 60 {
			mid := (lo + hi) / 2
			if f(mid) > 0 {
				lo = mid
			} else {
				hi = mid
			}
		}
		return (lo + hi) / 2
	}
	L := float64(lo)
	b := 1 / mu
	for range 50 {
		b = root(1e-9/mu, 1/mu, func(b float64) float64 { return unqueuedBaselineDrift(lambda, mu, c, L, window, b) })
		drift := func(x float64) float64 { return Gradient2Drift(lambda, mu, c, x, tolerance, q, b) }
		next := float64(hi)
		for x := float64(lo); x < float64(hi); x += 0.05 {
			if drift(x+0.05) <= 0 {
				next = root(x, x+0.05, drift)
				break
			}
		}
		if math.Abs(next-L) < 1e-6 {
			return next, b
		}
		L = next
	}
	return L, b
}
