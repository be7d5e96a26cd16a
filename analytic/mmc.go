package analytic

import (
	"math"

	"gonum.org/v1/gonum/mathext"
)

// This file: the M/M/c queue (Erlang C) and the M/M/c/K queue (finite
// capacity), FIFO, Poisson arrivals of rate lambda, c identical servers each
// serving at rate mu (Exp(mu) service times). Rates and times are in any
// consistent unit: with rates per ms, times are in ms. Random dispatch over n
// identical servers splits a Poisson stream into n independent Poisson
// streams, so a server with c workers fed lambda/n is exactly one of these
// queues (Gross and Harris, Fundamentals of Queueing Theory, §2.3 and §2.5;
// Kleinrock, Queueing Systems Vol. 1 (1975), ch. 3).

// ErlangB returns the Erlang B (loss) formula B(c, a): the probability that an
// arrival finds all c servers busy in the M/M/c/c loss system with offered
// load a = lambda/mu Erlangs,
//
//	B(c, a) = (a^c/c!) / sum_{k=0..c} a^k/k!,
//
// computed by the recursion B(0) = 1, B(k) = a B(k-1) / (k + a B(k-1)), which
// involves no factorial and no power, so it neither overflows nor loses
// accuracy for large c (each step is a ratio of positive numbers).
//
// Valid for a > 0 finite; it returns NaN otherwise. It panics if c < 1.
//
// Source: Jagerman, "Some properties of the Erlang loss function", Bell
// System Technical Journal 53(3), 1974 (the recursion); Gross and Harris §2.6.
func ErlangB(c int, a float64) float64 {
	checkServers("ErlangB", c)
	if !(a > 0) || math.IsInf(a, 1) {
		return math.NaN()
	}
	return erlangB(c, a)
}

func erlangB(c int, a float64) float64 {
	b := 1.0
	for k := 1; k <= c; k++ {
		b = a * b / (float64(k) + a*b)
	}
	return b
}

// ErlangC returns the Erlang C formula C(c, a): the probability that an
// arrival to an M/M/c queue with offered load a = lambda/mu Erlangs has to
// wait (finds all c servers busy), by PASTA also the time-average fraction of
// time all servers are busy:
//
//	C(c, a) = B / (1 - (a/c)(1 - B)),  B = ErlangB(c, a),
//
// which is exact and stable for large c (no factorials).
//
// Valid for 0 < a < c (the stable range); it returns NaN otherwise. It
// panics if c < 1. c = 1 gives a (the M/M/1 probability of waiting, rho).
//
// Source: Gross and Harris, Fundamentals of Queueing Theory, §2.3 (C from B
// as above); Kleinrock Vol. 1 ch. 3 (M/M/m).
func ErlangC(c int, a float64) float64 {
	checkServers("ErlangC", c)
	if !(a > 0 && a < float64(c)) {
		return math.NaN()
	}
	b := erlangB(c, a)
	return b / (1 - a/float64(c)*(1-b))
}

// MMcMeanWait returns the mean time in queue (before service) of an M/M/c
// FIFO queue with arrival rate lambda, per-server service rate mu and c
// servers:
//
//	W_q = C(c, lambda/mu) / (c mu - lambda).
//
// Valid for 0 < lambda < c mu (mu finite); it returns NaN otherwise. It
// panics if c < 1.
//
// Source: Gross and Harris §2.3; Kleinrock Vol. 1 ch. 3 (M/M/m).
func MMcMeanWait(lambda, mu float64, c int) float64 {
	checkServers("MMcMeanWait", c)
	if !mmcStable(lambda, mu, c) {
		return math.NaN()
	}
	return ErlangC(c, lambda/mu) / (float64(c)*mu - lambda)
}

// MMcMeanSojourn returns the mean sojourn time (waiting plus service) of an
// M/M/c FIFO queue: MMcMeanWait(lambda, mu, c) + 1/mu. c = 1 is the M/M/1
// value 1/(mu - lambda). Valid for 0 < lambda < c mu; NaN otherwise. It
// panics if c < 1.
//
// Source: Gross and Harris §2.3.
func MMcMeanSojourn(lambda, mu float64, c int) float64 {
	checkServers("MMcMeanSojourn", c)
	if !mmcStable(lambda, mu, c) {
		return math.NaN()
	}
	return MMcMeanWait(lambda, mu, c) + 1/mu
}

// MMcSojournTail returns P(S > t), the tail of the FIFO sojourn time S of an
// M/M/c queue at time t (same unit as 1/mu). The wait W is 0 with probability
// 1 - C and Exp(theta), theta = c mu - lambda, with probability C = C(c,
// lambda/mu); the sojourn adds an independent Exp(mu) service time B, so
//
//	P(S > t) = (1 - C) e^(-mu t) + C P(Exp(theta) + Exp(mu) > t),
//	P(Exp(theta) + Exp(mu) > t) = (theta e^(-mu t) - mu e^(-theta t)) / (theta - mu),
//
// the hypoexponential tail, which is symmetric in (theta, mu) and tends to
// (1 + mu t) e^(-mu t) as theta -> mu. It is evaluated as
// e^(-s t) (1 + s t phi((r - s) t)) with s = min(theta, mu), r = max(theta, mu)
// and phi(u) = (1 - e^(-u))/u (phi(0) = 1, by expm1), which has no
// cancellation at theta = mu (c mu - lambda = mu) and no overflow.
//
// It returns 1 for t <= 0. Valid for 0 < lambda < c mu (mu finite) and t not
// NaN; it returns NaN otherwise. It panics if c < 1.
//
// Source: Gross and Harris §2.3 (the M/M/c waiting-time distribution);
// Kleinrock Vol. 1 ch. 3 (M/M/m).
func MMcSojournTail(lambda, mu float64, c int, t float64) float64 {
	checkServers("MMcSojournTail", c)
	if !mmcStable(lambda, mu, c) || math.IsNaN(t) {
		return math.NaN()
	}
	if t <= 0 {
		return 1
	}
	if math.IsInf(t, 1) {
		return 0
	}
	cw := ErlangC(c, lambda/mu)
	theta := float64(c)*mu - lambda
	s, r := math.Min(theta, mu), math.Max(theta, mu)
	hypo := math.Exp(-s*t) * (1 + s*t*phiExpm1((r-s)*t))
	return (1-cw)*math.Exp(-mu*t) + cw*hypo
}

// MMcSojournQuantile returns the p-quantile of the FIFO sojourn time of an
// M/M/c queue: the t with MMcSojournTail(lambda, mu, c, t) = 1 - p, found by
// bracketing and bisection on the tail (see quantileFromTail) to a relative
// width of 1e-13. p = 0.99 gives the p99. c = 1 agrees with
// MM1SojournQuantile.
//
// Valid for 0 < lambda < c mu and 0 < p < 1; NaN otherwise. It panics if
// c < 1.
//
// Source: as for MMcSojournTail.
func MMcSojournQuantile(lambda, mu float64, c int, p float64) float64 {
	checkServers("MMcSojournQuantile", c)
	if !mmcStable(lambda, mu, c) || !validProb(p) {
		return math.NaN()
	}
	return quantileFromTail(func(t float64) float64 { return MMcSojournTail(lambda, mu, c, t) },
		p, MMcMeanSojourn(lambda, mu, c))
}

// MMcKDist returns the stationary distribution pi_0..pi_K (length K+1) of the
// number in system of an M/M/c/K queue: c servers of rate mu, room for K
// requests in all (K - c waiting), Poisson arrivals of rate lambda, an arrival
// that finds K present being lost. It is the birth-death chain with birth rate
// lambda and death rate min(j, c) mu, so
//
//	pi_j ∝ prod_{i=1..j} lambda / (min(i, c) mu),
//
// accumulated in logarithms and normalised after subtracting the largest, so
// it neither overflows nor underflows wholesale for large K or heavy load.
// Every lambda > 0 is valid (the state space is finite), including lambda >=
// c mu.
//
// It returns K+1 NaNs if lambda or mu is not positive and finite. It panics
// if c < 1 or K < c.
//
// Source: Gross and Harris §2.5; Kleinrock Vol. 1 ch. 3.
func MMcKDist(lambda, mu float64, c, K int) []float64 {
	checkServers("MMcKDist", c)
	checkCapacity("MMcKDist", c, K)
	out := make([]float64, K+1)
	if !posFinite(lambda) || !posFinite(mu) {
		return fillNaN(out)
	}
	lg, top := 0.0, 0.0
	for j := 1; j <= K; j++ {
		lg += math.Log(lambda / (float64(min(j, c)) * mu))
		out[j] = lg
		top = math.Max(top, lg)
	}
	sum := 0.0
	for j := range out {
		out[j] = math.Exp(out[j] - top)
		sum += out[j]
	}
	for j := range out {
		out[j] /= sum
	}
	return out
}

// MMcKBlocking returns the blocking probability of an M/M/c/K queue: pi_K of
// MMcKDist, the fraction of arrivals that find the system full and are lost
// (a 503 at once), by PASTA. K = c gives the Erlang B formula. Valid for
// lambda, mu > 0 finite; NaN otherwise. It panics if c < 1 or K < c.
//
// Source: Gross and Harris §2.5.
func MMcKBlocking(lambda, mu float64, c, K int) float64 {
	checkServers("MMcKBlocking", c)
	checkCapacity("MMcKBlocking", c, K)
	pi := MMcKDist(lambda, mu, c, K)
	return pi[K]
}

// MMcKMeanSojourn returns the mean sojourn time of the requests an M/M/c/K
// queue admits, by Little's law over the admitted rate:
//
//	T = L / (lambda (1 - pi_K)),  L = sum_j j pi_j.
//
// Valid for lambda, mu > 0 finite; NaN otherwise. It panics if c < 1 or
// K < c.
//
// Source: Gross and Harris §2.5; Little, Operations Research 9(3), 1961.
func MMcKMeanSojourn(lambda, mu float64, c, K int) float64 {
	checkServers("MMcKMeanSojourn", c)
	checkCapacity("MMcKMeanSojourn", c, K)
	pi := MMcKDist(lambda, mu, c, K)
	if math.IsNaN(pi[0]) {
		return math.NaN()
	}
	l := 0.0
	for j, p := range pi {
		l += float64(j) * p
	}
	return l / (lambda * (1 - pi[K]))
}

// MMcKSojournTail returns P(S > t | admitted), the FIFO sojourn-time tail of
// a request admitted by an M/M/c/K queue. By PASTA an arrival finds j in
// system with probability pi_j, and is admitted if j < K; given admission j
// has probability q_j = pi_j / (1 - pi_K). With j < c it starts at once and
// S = Exp(mu); with j >= c it waits for m = j - c + 1 departures at rate
// c mu, an Erlang(m, c mu), then its own Exp(mu) service. So
//
//	P(S > t) = sum_{j<c} q_j e^(-mu t) + sum_{j>=c} q_j P(Erlang(m, c mu) + Exp(mu) > t),
//
// and, with r = (c-1)/c (c >= 2),
//
//	P(Erlang(m, c mu) + Exp(mu) > t) = Q(m, c mu t) + r^(-m) e^(-mu t) P(m, (c-1) mu t),
//
// where P and Q are the regularized lower and upper incomplete gamma
// functions (gonum's mathext.GammaIncReg, GammaIncRegComp); for c = 1 the sum
// is an Erlang(m+1, mu) and the tail is Q(m+1, mu t). The second term is
// formed in logarithms, so it never overflows; P underflows (to 0) only below
// 2^-1074, so the term lost is below r^(-m) 2^-1074 <= 2^(K-c+1-1074)
// (c/(c-1) <= 2): below 2^-73 for K - c < 1000.
//
// It returns 1 for t <= 0. Valid for lambda, mu > 0 finite and t not NaN;
// NaN otherwise. It panics if c < 1 or K < c. As K grows it tends to
// MMcSojournTail (for lambda < c mu).
//
// Source: Gross and Harris §2.5 (the M/M/c/K waiting-time distribution);
// the Erlang-plus-exponential convolution by uniformization at rate c mu.
func MMcKSojournTail(lambda, mu float64, c, K int, t float64) float64 {
	checkServers("MMcKSojournTail", c)
	checkCapacity("MMcKSojournTail", c, K)
	pi := MMcKDist(lambda, mu, c, K)
	if math.IsNaN(pi[0]) || math.IsNaN(t) {
		return math.NaN()
	}
	return mmckTail(pi, mu, c, t)
}

// mmckTail is MMcKSojournTail for a valid distribution pi (length K+1).
func mmckTail(pi []float64, mu float64, c int, t float64) float64 {
	if t <= 0 {
		return 1
	}
	if math.IsInf(t, 1) {
		return 0
	}
	K := len(pi) - 1
	adm := 1 - pi[K]
	eb := math.Exp(-mu * t)
	sum := 0.0
	for j := 0; j < K; j++ {
		q := pi[j] / adm
		if j < c {
			sum += q * eb
			continue
		}
		m := float64(j - c + 1)
		if c == 1 {
			sum += q * mathext.GammaIncRegComp(m+1, mu*t)
			continue
		}
		fc := float64(c)
		lower := mathext.GammaIncReg(m, (fc-1)*mu*t)
		conv := 0.0
		if lower > 0 {
			conv = math.Exp(m*math.Log(fc/(fc-1)) - mu*t + math.Log(lower))
		}
		sum += q * (mathext.GammaIncRegComp(m, fc*mu*t) + conv)
	}
	return math.Min(sum, 1)
}

// MMcKSojournQuantile returns the p-quantile of the sojourn time of an
// admitted request in an M/M/c/K queue: the t with MMcKSojournTail = 1 - p,
// by bracketing and bisection on the tail to a relative width of 1e-13.
// Valid for lambda, mu > 0 finite and 0 < p < 1; NaN otherwise. It panics if
// c < 1 or K < c.
//
// Source: as for MMcKSojournTail.
func MMcKSojournQuantile(lambda, mu float64, c, K int, p float64) float64 {
	checkServers("MMcKSojournQuantile", c)
	checkCapacity("MMcKSojournQuantile", c, K)
	pi := MMcKDist(lambda, mu, c, K)
	if math.IsNaN(pi[0]) || !validProb(p) {
		return math.NaN()
	}
	return quantileFromTail(func(t float64) float64 { return mmckTail(pi, mu, c, t) },
		p, MMcKMeanSojourn(lambda, mu, c, K))
}

// TimeoutProb returns the probability that an attempt times out at the
// balancer, given the tail of the server's sojourn law and the slack
// T - 2h, where T is the per-attempt timeout and h the (constant) one-way
// hop between balancer and server:
//
//	P(timeout) = P(h + S + h > T) = tail(T - 2h) = tail(slack),
//
// and 1 when slack <= 0 (no answer can come back in time). It assumes: the
// timeout clock starts when the balancer forwards the attempt; both hops are
// constant and equal (no jitter; with jitter, the law of S + hops is a
// convolution and this is not it); an answer arriving exactly at T counts as
// in time (S has no atom, so this does not matter); the server's sojourn S is
// its stationary law (for example MMcSojournTail or MMcKSojournTail at the
// attempt rate the server sees, timed-out attempts included, since the server
// keeps working on them), and a rejected attempt (M/M/c/K blocking) is an
// error, not a timeout, so it is counted apart. The client's end-to-end
// latency of an attempt answered is the same law shifted by 4h (client ->
// balancer -> server and back): its quantile is the server's plus 4h.
//
// tail must be non-increasing with tail(0) = 1; TimeoutProb returns NaN if
// slack is NaN. It panics if tail is nil.
func TimeoutProb(tail func(t float64) float64, slack float64) float64 {
	if tail == nil {
		panic("analytic: TimeoutProb: nil tail")
	}
	if math.IsNaN(slack) {
		return math.NaN()
	}
	if slack <= 0 {
		return 1
	}
	return tail(slack)
}

// quantileFromTail returns the t > 0 with tail(t) = 1 - p for 0 < p < 1,
// where tail is continuous and non-increasing from tail(0) = 1 to 0, by
// bracketing from scale (a typical time, such as the mean) and bisection to a
// relative width of 1e-13. Comparing tail(t) with 1 - p (computed exactly
// for p >= 1/2) keeps high quantiles accurate. It returns NaN if the tail is
// NaN at a point it evaluates.
func quantileFromTail(tail func(float64) float64, p, scale float64) float64 {
	target := 1 - p
	if !(scale > 0) || math.IsInf(scale, 1) {
		scale = 1
	}
	lo, hi := 0.0, scale
	for tail(hi) > target { // grow until the tail is at or below the target
		lo = hi
		hi *= 2
		if math.IsInf(hi, 1) {
			return math.Inf(1)
		}
	}
	if lo == 0 { // shrink: find lo > 0 with tail(lo) > target
		lo = hi / 2
		for !(tail(lo) > target) {
			if math.IsNaN(tail(lo)) {
				return math.NaN()
			}
			hi = lo
			lo /= 2
			if lo == 0 {
				return 0
			}
		}
	}
	for hi-lo > 1e-13*hi {
		mid := lo + (hi-lo)/2
		v := tail(mid)
		if math.IsNaN(v) {
			return math.NaN()
		}
		if v > target {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo + (hi-lo)/2
}

// phiExpm1 returns (1 - e^(-u))/u for u >= 0, and 1 at u = 0.
func phiExpm1(u float64) float64 {
	if u == 0 {
		return 1
	}
	if math.IsInf(u, 1) {
		return 0
	}
	return -math.Expm1(-u) / u
}

// mmcStable reports whether 0 < lambda < c mu with mu finite (false for NaN),
// tested as lambda/mu < c, the form ErlangC checks, so the two agree when
// lambda is within an ulp of c mu.
func mmcStable(lambda, mu float64, c int) bool {
	return lambda > 0 && mu > 0 && lambda/mu < float64(c) && lambda < float64(c)*mu && !math.IsInf(mu, 1)
}

// posFinite reports whether 0 < x < +Inf (false for NaN).
func posFinite(x float64) bool { return x > 0 && !math.IsInf(x, 1) }

// checkServers panics unless c >= 1.
func checkServers(fn string, c int) {
	if c < 1 {
		panic("analytic: " + fn + ": c < 1 servers")
	}
}

// checkCapacity panics unless K >= c.
func checkCapacity(fn string, c, K int) {
	if K < c {
		panic("analytic: " + fn + ": capacity K < c servers")
	}
}
