package analytic

// The LRU cache under the independent reference model (IRM): requests are independent draws, key i with
// probability p_i, and a cache of C keys evicts the least recently used.
//
// Che's approximation (Che, Tung and Wang, "Hierarchical Web caching systems: modeling, design and experimental
// results", IEEE JSAC 20(7), 2002; explained and justified by Fricker, Robert and Roberts, "A versatile and accurate
// approximation for LRU cache performance", ITC 24, 2012): in the Poissonized stream (unit total rate, key i at rate
// p_i) a key stays in the cache for a characteristic time t_C after its last request, the root of
// Σ_i (1 − e^(−p_i·t_C)) = C (the expected number of distinct keys requested in t_C), so key i hits with probability
// 1 − e^(−p_i·t_C), and the hit ratio is Σ_i p_i·(1 − e^(−p_i·t_C)).
//
// The exact IRM hit ratio (LRUExactHitRatio): key i hits when fewer than C distinct other keys were requested since
// its previous request. Poissonizing changes no order of requests, so with the gap to the previous request of i an
// Exp(p_i) time t and the other keys requested in it independently with probabilities 1 − e^(−p_j·t),
// hit_i = ∫₀^∞ p_i·e^(−p_i·t)·P(N_{−i}(t) < C) dt, N_{−i}(t) Poisson-binomial (Flajolet, Gardy and Thimonier,
// "Birthday paradox, coupon collectors, caching algorithms and self-organizing search", Discrete Applied Mathematics
// 39, 1992, give this integral for the move-to-front/LRU miss rate).

import (
	"math"

	"gonum.org/v1/gonum/integrate/quad"
)

// CheTime returns Che's characteristic time t_C (in requests of the unit-rate stream) for a cache of c keys under
// popularities p (each ≥ 0, summing to 1): the root of Σ_i (1 − e^(−p_i·t)) = c, by bisection to adjacent floats.
// It is +Inf when c is at least the number of keys with p_i > 0 (everything fits), and 0 when c ≤ 0.
func CheTime(p []float64, c float64) float64 {
	k := 0
	for _, x := range p {
		if x > 0 {
			k++
		}
	}
	switch {
	case c <= 0:
		return 0
	case c >= float64(k):
		return math.Inf(1)
	}
	g := func(t float64) float64 {
		s := 0.0
		for _, x := range p {
			s += -math.Expm1(-x * t)
		}
		return s - c
	}
	hi := 1.0
	for g(hi) < 0 {
		hi *= 2
	}
	return bisectRoot(g, 0, hi)
}

// CheHitRatio returns Che's approximation of the LRU hit ratio Σ_i p_i·(1 − e^(−p_i·t_C)) of a cache of c keys
// under popularities p (each ≥ 0, summing to 1; see CheTime); 1 when everything fits, 0 when c ≤ 0.
func CheHitRatio(p []float64, c float64) float64 {
	t := CheTime(p, c)
	if math.IsInf(t, 1) {
		return 1
	}
	h := 0.0
	for _, x := range p {
		h += x * -math.Expm1(-x*t)
	}
	return h
}

// LRUExactMaxKeys bounds LRUExactHitRatio's keys: its cost is O(K²·C) per quadrature node.
const LRUExactMaxKeys = 2000

// LRUExactHitRatio returns the exact stationary IRM hit ratio Σ_i p_i·hit_i of an LRU cache of c keys (1 ≤ c) under
// popularities p (each ≥ 0, summing to 1, at most LRUExactMaxKeys keys), hit_i = ∫₀^∞ p_i·e^(−p_i·t)·P(N_{−i}(t) <
// c) dt with P(N_{−i}(t) < c) by the Poisson-binomial recursion truncated at c, and the integral by 32-point
// Gauss–Legendre (gonum quad.Fixed) on segments of doubling width from Che's t_C/8, until e^(−p_i·t) < 10^-17. It
// returns 1 when everything fits. Its error is quadrature error only (the test compares two resolutions).
func LRUExactHitRatio(p []float64, c int) float64 {
	return lruExact(p, c, 32)
}

func lruExact(p []float64, c int, nodes int) float64 {
	t0 := CheTime(p, float64(c))
	if math.IsInf(t0, 1) {
		return 1
	}
	dist := make([]float64, c) // P(N = j), j < c
	fewer := func(i int, t float64) float64 {
		clear(dist)
		dist[0] = 1
		for j, x := range p {
			if j == i || x == 0 {
				continue
			}
			q := -math.Expm1(-x * t)
			for m := c - 1; m >= 1; m-- {
				dist[m] = dist[m]*(1-q) + dist[m-1]*q
			}
			dist[0] *= 1 - q
		}
		s := 0.0
		for _, d := range dist {
			s += d
		}
		return s
	}
	h := 0.0
	for i, x := range p {
		if x == 0 {
			continue
		}
		f := func(t float64) float64 { return x * math.Exp(-x*t) * fewer(i, t) }
		sum, a := 0.0, 0.0
		for w := t0 / 8; math.Exp(-x*a) > 1e-17 && (a == 0 || fewer(i, a) > 1e-17); w *= 2 {
			sum += quad.Fixed(f, a, a+w, nodes, nil, 0)
			a += w
		}
		h += x * sum
	}
	return h
}

// Zipf returns the Zipf(s) law over k ranks (index r−1 holds rank r): p_r = r^−s / Σ_{j≤k} j^−s, k ≥ 1, s ≥ 0 (s = 0
// is uniform). The popularity law of the request-level world's keys and of Che's approximation's tests.
func Zipf(k int, s float64) []float64 {
	p := make([]float64, k)
	sum := 0.0
	for i := range p {
		p[i] = math.Pow(float64(i+1), -s)
		sum += p[i]
	}
	for i := range p {
		p[i] /= sum
	}
	return p
}
