package analytic

import "math"

// RoundRobinSigma returns the GI/M/1 root sigma of the E_n/M/1 queue that each
// server sees under round robin over n servers. With Poisson arrivals of total
// rate lambda*n dealt in turn, a server receives every n-th arrival, so its
// interarrival time is Erlang(n, rate lambda*n) (mean 1/lambda), with Laplace
// transform A*(s) = (n*lambda/(n*lambda + s))^n. sigma is the root in (0, 1) of
//
//	sigma = A*(1 - sigma) = (n*lambda/(n*lambda + 1 - sigma))^n    (mu = 1).
//
// It is found by bisection on x = 1 - sigma of
// 1 - A*(x) - x = -expm1(-n*log1p(x/(n*lambda))) - x, which is positive on
// (0, 1-sigma) and negative on (1-sigma, 1]; the spurious root sigma = 1 sits
// at x = 0, and the bisection runs to full double precision (far below the
// 1e-14 asked for); sigma is then returned as A*(1 - sigma), accurate to a
// few ulps even where sigma is tiny (it underflows to 0 only below about
// 1e-308, e.g. lambda = 0.001 with n = 10^6). n = 1 returns lambda exactly
// (the M/M/1 queue). Example: n = 100, lambda = 0.9 gives sigma = 0.808679.
//
// Valid for 0 < lambda < 1; it returns NaN otherwise. It panics if n < 1.
//
// Sources: Kleinrock, Queueing Systems Vol. 1 (1975), §6.4 (the queue G/M/1);
// Gross and Harris, Fundamentals of Queueing Theory, GI/M/1.
func RoundRobinSigma(lambda float64, n int) float64 {
	checkN("RoundRobinSigma", n)
	if !validLoad(lambda) {
		return math.NaN()
	}
	if n == 1 {
		return lambda
	}
	// sigma = A*(x) at the root x = 1 - sigma keeps relative accuracy when
	// sigma is tiny (lambda -> 0), where 1 - x would round to 0.
	return roundRobinLST(lambda, n, roundRobinGap(lambda, n))
}

// RoundRobinMeanSojourn returns the mean sojourn time (waiting plus service,
// in mean service times) of a job under round robin over n servers, each an
// E_n/M/1 FIFO queue with mu = 1:
//
//	T = 1/(1 - sigma),   sigma = RoundRobinSigma(lambda, n).
//
// 1 - sigma is taken from the root finder directly, not by subtraction, so T
// keeps its relative accuracy as lambda -> 1. n = 1 gives 1/(1-lambda)
// (M/M/1). Example: n = 100, lambda = 0.9 gives T = 5.2268.
//
// Valid for 0 < lambda < 1; it returns NaN otherwise. It panics if n < 1.
//
// Sources: Kleinrock Vol. 1 §6.4; Gross and Harris, GI/M/1.
func RoundRobinMeanSojourn(lambda float64, n int) float64 {
	checkN("RoundRobinMeanSojourn", n)
	if !validLoad(lambda) {
		return math.NaN()
	}
	return 1 / roundRobinGap(lambda, n)
}

// RoundRobinSojournQuantile returns the p-quantile of the sojourn time (in
// mean service times) under round robin over n servers. In a GI/M/1 FIFO
// queue the sojourn time is Exp(mu*(1 - sigma)), so with mu = 1
//
//	q(p) = -ln(1-p)/(1 - sigma).
//
// n = 1 gives the M/M/1 value -ln(1-p)/(1-lambda).
//
// Valid for 0 < lambda < 1 and 0 < p < 1; it returns NaN otherwise. It panics
// if n < 1.
//
// Sources: Kleinrock Vol. 1 §6.4 (waiting time of G/M/1); Gross and Harris,
// GI/M/1.
func RoundRobinSojournQuantile(lambda float64, n int, p float64) float64 {
	checkN("RoundRobinSojournQuantile", n)
	if !validLoad(lambda) || !validProb(p) {
		return math.NaN()
	}
	return -math.Log1p(-p) / roundRobinGap(lambda, n)
}

// RoundRobinTail returns the time-stationary queue-length tail of one server
// under round robin over n servers (the E_n/M/1 queue, mu = 1, rho = lambda):
//
//	P(Q >= i) = lambda * sigma^(i-1),  i = 1..k,
//
// as a slice of length k whose element i-1 is P(Q >= i), the time-average
// fraction of servers holding at least i jobs, the job in service included.
// (Arrivals instead see the geometric law P(Q >= i) = sigma^i.) n = 1 gives
// lambda^i (M/M/1).
//
// Valid for 0 < lambda < 1; otherwise every element is NaN. k = 0 gives an
// empty slice. It panics if n < 1 or k < 0.
//
// Sources: Kleinrock Vol. 1 §6.4; Gross and Harris, GI/M/1 (the time-average
// probabilities p_j = rho (1 - sigma) sigma^(j-1), j >= 1).
func RoundRobinTail(lambda float64, n, k int) []float64 {
	checkN("RoundRobinTail", n)
	if k < 0 {
		panic("analytic: RoundRobinTail: negative length k")
	}
	out := make([]float64, k)
	if !validLoad(lambda) {
		return fillNaN(out)
	}
	sigma := RoundRobinSigma(lambda, n)
	for i := range out {
		out[i] = lambda * powLoad(sigma, float64(i))
	}
	return out
}

// checkN panics unless n >= 1.
func checkN(fn string, n int) {
	if n < 1 {
		panic("analytic: " + fn + ": n < 1 servers")
	}
}

// roundRobinGap returns x = 1 - sigma for 0 < lambda < 1 and n >= 1: the root
// in (0, 1) of f(x) = 1 - A*(x) - x with A*(x) = (n*lambda/(n*lambda + x))^n.
// f(0) = 0, f'(0) = 1/lambda - 1 > 0, f(1) = -A*(1) < 0 and f is concave, so f
// is positive exactly on (0, x*). Bisection runs until the midpoint no longer
// splits the interval.
func roundRobinGap(lambda float64, n int) float64 {
	if n == 1 {
		return 1 - lambda
	}
	nl := float64(n) * lambda
	f := func(x float64) float64 {
		return -math.Expm1(-float64(n)*math.Log1p(x/nl)) - x // 1 - A*(x) - x
	}
	lo, hi := 0.0, 1.0
	for {
		mid := lo + (hi-lo)/2
		if mid <= lo || mid >= hi {
			return mid
		}
		if f(mid) > 0 {
			lo = mid
		} else {
			hi = mid
		}
	}
}

// roundRobinLST returns A*(x) = (n*lambda/(n*lambda + x))^n, the Laplace
// transform of the Erlang(n, rate n*lambda) interarrival time at x >= 0,
// computed as exp(-n*log1p(x/(n*lambda))) so that large n loses no accuracy.
func roundRobinLST(lambda float64, n int, x float64) float64 {
	return math.Exp(-float64(n) * math.Log1p(x/(float64(n)*lambda)))
}
