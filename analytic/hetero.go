package analytic

import "math"

// Class is a group of identical servers: Count ≥ 1 servers with Exp(Rate) service, Rate > 0 jobs per unit time.
type Class struct {
	Count int
	Rate  float64
}

// Load-blind dispatch over unequal servers (random, round robin) gives every server the same arrival rate lambda
// (total rate lambda·n over n servers), so each server is a single-server FIFO queue of its own, independent of the
// others for random dispatch and exactly an E_n/M/1 queue for round robin. Both have an exponential sojourn time,
// Exp(θ_c) for a server of class c, and the geometric queue tail P(Q ≥ i) = ρ_c·σ_c^(i−1). A job is at a class-c
// server with probability Count_c/n, so the sojourn time of a random job is the mixture Σ_c (Count_c/n)·Exp(θ_c),
// and the fraction of servers with at least i jobs is Σ_c (Count_c/n)·P_c(Q ≥ i).

// expClass is one class's exponential sojourn rate θ, its load ρ, its geometric ratio σ and its weight Count/n.
type expClass struct{ theta, rho, sigma, w float64 }

// heteroClasses returns the classes under random dispatch (roundRobin = false: M/M/1, θ = μ − λ, σ = ρ = λ/μ) or round
// robin over n = Σ Count servers (E_n/M/1 in the time unit 1/μ: σ = RoundRobinSigma(λ/μ, n), θ = μ(1 − σ)); nil
// when some server has λ ≥ μ or the classes are invalid.
func heteroClasses(lambda float64, cs []Class, roundRobin bool) []expClass {
	n := 0
	for _, c := range cs {
		if c.Count < 1 || !(c.Rate > 0) || math.IsInf(c.Rate, 0) {
			return nil
		}
		n += c.Count
	}
	if n == 0 || !(lambda > 0) {
		return nil
	}
	out := make([]expClass, len(cs))
	for i, c := range cs {
		rho := lambda / c.Rate
		if !validLoad(rho) {
			return nil
		}
		e := expClass{rho: rho, sigma: rho, theta: c.Rate - lambda, w: float64(c.Count) / float64(n)}
		if roundRobin {
			e.sigma = RoundRobinSigma(rho, n)
			e.theta = c.Rate * roundRobinGap(rho, n)
		}
		out[i] = e
	}
	return out
}

func heteroMean(cs []expClass) float64 {
	if cs == nil {
		return math.NaN()
	}
	t := 0.0
	for _, c := range cs {
		t += c.w / c.theta
	}
	return t
}

// heteroQuantile solves Σ w_c·e^(−θ_c·t) = 1 − p by bisection (the left side decreases in t); the root lies between
// the smallest and largest of the classes' own p-quantiles.
func heteroQuantile(cs []expClass, p float64) float64 {
	if cs == nil || !validProb(p) {
		return math.NaN()
	}
	q := -math.Log1p(-p)
	lo, hi := math.Inf(1), 0.0
	for _, c := range cs {
		lo, hi = min(lo, q/c.theta), max(hi, q/c.theta)
	}
	survival := func(t float64) float64 {
		s := 0.0
		for _, c := range cs {
			s += c.w * math.Exp(-c.theta*t)
		}
		return s
	}
	for range 200 {
		mid := (lo + hi) / 2
		if mid <= lo || mid >= hi {
			break
		}
		if survival(mid) > 1-p {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

func heteroTail(cs []expClass, k int, fn string) []float64 {
	if k < 0 {
		panic("analytic: " + fn + ": negative length k")
	}
	out := make([]float64, k)
	if cs == nil {
		return fillNaN(out)
	}
	for _, c := range cs {
		for i := range out {
			out[i] += c.w * c.rho * powLoad(c.sigma, float64(i))
		}
	}
	return out
}

// RandomHeteroMeanSojourn returns the mean sojourn time of a job under random dispatch over server classes cs with
// arrival rate lambda per server (total lambda·n): Σ_c (Count_c/n)/(μ_c − λ). Time is in the unit of the rates (a
// server of rate 1 serves a job in one unit on average). NaN unless every class has λ < μ_c.
//
// Source: each server is an M/M/1 queue (Kleinrock, Queueing Systems Vol. 1, §3.2); exact at any n.
func RandomHeteroMeanSojourn(lambda float64, cs []Class) float64 {
	return heteroMean(heteroClasses(lambda, cs, false))
}

// RandomHeteroSojournQuantile returns the p-quantile (0 < p < 1) of the sojourn time under random dispatch over cs:
// the t with Σ_c (Count_c/n)·e^(−(μ_c−λ)t) = 1 − p. NaN unless every class has λ < μ_c.
func RandomHeteroSojournQuantile(lambda float64, cs []Class, p float64) float64 {
	return heteroQuantile(heteroClasses(lambda, cs, false), p)
}

// RandomHeteroTail returns, for i = 1..k, the time-average fraction of servers with at least i jobs under random
// dispatch over cs: Σ_c (Count_c/n)·(λ/μ_c)^i (element i−1). NaN elements unless every class has λ < μ_c.
func RandomHeteroTail(lambda float64, cs []Class, k int) []float64 {
	return heteroTail(heteroClasses(lambda, cs, false), k, "RandomHeteroTail")
}

// RoundRobinHeteroMeanSojourn returns the mean sojourn time under round robin over the n = Σ Count_c servers of cs
// with arrival rate lambda per server: each server is an E_n/M/1 queue, Σ_c (Count_c/n)/(μ_c(1 − σ_c)) with
// σ_c = RoundRobinSigma(λ/μ_c, n). NaN unless every class has λ < μ_c.
//
// Source: Kleinrock Vol. 1 §6.4 (G/M/1), with time in units of 1/μ_c per class; exact at any n.
func RoundRobinHeteroMeanSojourn(lambda float64, cs []Class) float64 {
	return heteroMean(heteroClasses(lambda, cs, true))
}

// RoundRobinHeteroSojournQuantile is the p-quantile of the round-robin sojourn time over cs (see
// RoundRobinHeteroMeanSojourn): the t with Σ_c (Count_c/n)·e^(−μ_c(1−σ_c)t) = 1 − p.
func RoundRobinHeteroSojournQuantile(lambda float64, cs []Class, p float64) float64 {
	return heteroQuantile(heteroClasses(lambda, cs, true), p)
}

// RoundRobinHeteroTail returns Σ_c (Count_c/n)·ρ_c·σ_c^(i−1), i = 1..k, the time-average fraction of servers with at
// least i jobs under round robin over cs (ρ_c = λ/μ_c).
func RoundRobinHeteroTail(lambda float64, cs []Class, k int) []float64 {
	return heteroTail(heteroClasses(lambda, cs, true), k, "RoundRobinHeteroTail")
}
