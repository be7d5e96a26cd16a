package analytic

import "math"

// MM1MeanSojourn returns the mean sojourn time (waiting plus service) of an
// M/M/1 FIFO queue with Poisson arrivals of rate lambda and Exp(mu) service:
//
//	T = 1/(mu - lambda).
//
// Rates are per unit time (with mu = 1, time is in mean service times).
// Valid for 0 < lambda < mu; it returns NaN otherwise (including NaN input).
//
// Source: Kleinrock, Queueing Systems Vol. 1 (1975), §3.2.
func MM1MeanSojourn(lambda, mu float64) float64 {
	if !mm1Stable(lambda, mu) {
		return math.NaN()
	}
	return 1 / (mu - lambda)
}

// MM1SojournQuantile returns the p-quantile of the sojourn time of an M/M/1
// FIFO queue with arrival rate lambda and service rate mu. The sojourn time is
// Exp(mu - lambda), so
//
//	q(p) = -ln(1-p)/(mu - lambda),
//
// in the time unit of 1/mu (mean service times when mu = 1); p = 0.99 gives
// the p99, ln(100)/(mu-lambda). Valid for 0 < lambda < mu and 0 < p < 1; it
// returns NaN otherwise.
//
// Source: Kleinrock, Queueing Systems Vol. 1 (1975), §3.2 (the sojourn-time
// distribution of M/M/1 under FIFO).
func MM1SojournQuantile(lambda, mu, p float64) float64 {
	if !mm1Stable(lambda, mu) || !validProb(p) {
		return math.NaN()
	}
	return -math.Log1p(-p) / (mu - lambda)
}

// MM1Tail returns the queue-length tail of an M/M/1 queue with service rate
// mu = 1 and load lambda:
//
//	P(Q >= i) = lambda^i,  i = 1..k,
//
// as a slice of length k whose element i-1 is P(Q >= i): the time-average
// fraction of servers holding at least i jobs, the job in service included.
// Valid for 0 < lambda < 1; otherwise every element is NaN. k = 0 gives an
// empty slice; k < 0 panics.
//
// Source: Kleinrock, Queueing Systems Vol. 1 (1975), §3.2 (p_k = (1-rho) rho^k).
func MM1Tail(lambda float64, k int) []float64 {
	if k < 0 {
		panic("analytic: MM1Tail: negative length k")
	}
	out := make([]float64, k)
	if !validLoad(lambda) {
		return fillNaN(out)
	}
	for i := range out {
		out[i] = powLoad(lambda, float64(i+1))
	}
	return out
}

// validLoad reports whether 0 < lambda < 1 (false for NaN).
func validLoad(lambda float64) bool { return lambda > 0 && lambda < 1 }

// validProb reports whether 0 < p < 1 (false for NaN).
func validProb(p float64) bool { return p > 0 && p < 1 }

// mm1Stable reports whether 0 < lambda < mu with mu finite (false for NaN).
func mm1Stable(lambda, mu float64) bool {
	return lambda > 0 && lambda < mu && !math.IsInf(mu, 1)
}

// powLoad returns x^y for 0 < x < 1 and y >= 0 (including y = +Inf, which
// gives 0) as exp(y ln x). For large integer y this is far more accurate than
// math.Pow, which squares repeatedly and loses about y ulps (1e-12 relative at
// 0.9999^99999); exp(y ln x) loses about |y ln x| ulps, and |y ln x| <= 745
// wherever the result is not 0.
func powLoad(x, y float64) float64 { return math.Exp(y * math.Log(x)) }

// fillNaN sets every element of s to NaN and returns s.
func fillNaN(s []float64) []float64 {
	for i := range s {
		s[i] = math.NaN()
	}
	return s
}
