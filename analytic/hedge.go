package analytic

import (
	"math"

	"gonum.org/v1/gonum/integrate/quad"
)

// This file: hedged requests (Dean & Barroso, "The Tail at Scale", CACM 56(2),
// 2013). A client sends an attempt; if no answer has come H after sending, it
// sends one copy to another server and takes the first answer. With no
// queueing, every attempt's round trip is Base + X (Base the fixed network
// part, four hops in the resilience model; X its service time) and the copies'
// service times X₁, X₂ are independent with the same law, so the request's
// latency is
//
//	T = Base + min(X₁, H + X₂)
//
// (the copy's answer comes at H + Base + X₂; when Base + X₁ ≤ H no copy is sent
// and T = Base + X₁ < H + Base + X₂ anyway). Under load this is an
// approximation: queueing delays add to the X's and are correlated across
// servers and time, and the copies are extra load that lengthens the queues.

// Hedged is the law of the hedged latency T = Base + min(X₁, H + X₂).
type Hedged struct {
	// Base is the fixed part of an attempt's round trip, ≥ 0 (ms, say).
	Base float64
	// H is the hedge delay, measured from sending the attempt, ≥ 0; +Inf: no hedging (T = Base + X₁).
	H float64
	// S is the survival function P(X > x) of one attempt's service time, X ≥ 0: non-increasing from S(0⁻) = 1, and
	// continuous for Mean (LognormalSurvival, ExponentialSurvival).
	S func(x float64) float64
}

// s is S extended by 1 below 0 (a service time is never negative).
func (d Hedged) s(x float64) float64 {
	if x < 0 {
		return 1
	}
	return d.S(x)
}

// Survival returns P(T > t) = S(t − Base)·S(t − Base − H): both copies must be slower than t (the copy only exists
// once H has passed, and it starts H late).
func (d Hedged) Survival(t float64) float64 {
	if math.IsInf(d.H, 1) {
		return d.s(t - d.Base)
	}
	return d.s(t-d.Base) * d.s(t-d.Base-d.H)
}

// HedgeRate returns the fraction of attempts that get a copy, P(Base + X₁ > H) = S(H − Base): the extra attempts
// hedging costs per request (0 with no hedging).
func (d Hedged) HedgeRate() float64 {
	if math.IsInf(d.H, 1) {
		return 0
	}
	return d.s(d.H - d.Base)
}

// Quantile returns the p-quantile of T, the least t with P(T > t) ≤ 1 − p, for 0 < p < 1 (NaN otherwise), by
// bisection to a relative width of 1e-13.
func (d Hedged) Quantile(p float64) float64 {
	if !validProb(p) {
		return math.NaN()
	}
	lo, hi := d.Base, d.Base+1
	for d.Survival(hi) > 1-p {
		lo, hi = hi, d.Base+2*(hi-d.Base)
		if math.IsInf(hi, 1) {
			return math.Inf(1)
		}
	}
	for hi-lo > 1e-13*hi {
		mid := lo + (hi-lo)/2
		if d.Survival(mid) > 1-p {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi
}

// Mean returns E[T] = Base + ∫₀^∞ S(x)·S(x − H) dx, by 64-point Gauss–Legendre (gonum quad.Fixed) on [0, H] and on
// segments of doubling width past H (the integrand's kink at x = H is a segment end) until S falls below 10^-17.
// S must be continuous.
func (d Hedged) Mean() float64 {
	f := func(x float64) float64 {
		if math.IsInf(d.H, 1) {
			return d.s(x)
		}
		return d.s(x) * d.s(x-d.H)
	}
	sum, a := 0.0, 0.0
	if !math.IsInf(d.H, 1) && d.H > 0 {
		sum, a = quad.Fixed(f, 0, d.H, 64, nil, 0), d.H
	}
	// The median of X sets the segments' scale.
	m := 1.0
	for d.s(m) < 0.5 {
		m /= 2
	}
	for d.s(m) > 0.5 {
		m *= 2
	}
	for w := m; d.s(a) > 1e-17; w *= 2 {
		sum += quad.Fixed(f, a, a+w, 64, nil, 0)
		a += w
	}
	return d.Base + sum
}

// LognormalSurvival returns the survival function of the lognormal law with the given mean > 0 and coefficient of
// variation cv > 0: X = e^(μ + σZ), σ² = ln(1 + cv²), μ = ln(mean) − σ²/2, P(X > x) = erfc((ln x − μ)/(σ√2))/2
// (NaN arguments: a function returning NaN).
func LognormalSurvival(mean, cv float64) func(float64) float64 {
	if !posFinite(mean) || !posFinite(cv) {
		return func(float64) float64 { return math.NaN() }
	}
	s2 := math.Log1p(cv * cv)
	sigma, mu := math.Sqrt(s2), math.Log(mean)-s2/2
	return func(x float64) float64 {
		if x <= 0 {
			return 1
		}
		return math.Erfc((math.Log(x)-mu)/(sigma*math.Sqrt2)) / 2
	}
}

// ExponentialSurvival returns the survival function e^(−x/mean) of the exponential law with the given mean > 0.
func ExponentialSurvival(mean float64) func(float64) float64 {
	if !posFinite(mean) {
		return func(float64) float64 { return math.NaN() }
	}
	return func(x float64) float64 {
		if x <= 0 {
			return 1
		}
		return math.Exp(-x / mean)
	}
}
