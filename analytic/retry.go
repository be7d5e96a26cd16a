package analytic

import (
	"math"
	"sort"
)

// This file: the retry fixed point. Requests arrive at rate lam per server;
// each attempt times out with probability p(x), where x is the attempt rate
// the server sees (first attempts and retries; the server keeps working on
// attempts whose balancer has given up, so x, not the rate of attempts
// anybody still waits for, is the load); a timed-out attempt is retried up to
// R times. A request then makes 1 + p + ... + p^R attempts on average, and
// the load solves
//
//	x = f(x) = lam * RetryAttempts(p(x), R, b).
//
// Where f crosses the diagonal more than once the system is bistable: a
// healthy state with few retries and a metastable one where the retries
// themselves keep the servers overloaded after the trigger has gone (Bronson,
// Aghayev, Charapko and Zhu, "Metastable Failures in Distributed Systems",
// HotOS 2021; Huang et al., "Metastable Failures in the Wild", OSDI 2022).
//
// What the approximation assumes (each is false in the simulator to some
// degree, which is why these are lines beside the points, not the points):
//   - the attempts of one request time out independently, each with the
//     stationary probability p(x) (in truth a retry follows a slow spell and
//     meets the same queue its predecessor timed out in, so timeouts of one
//     request are positively correlated);
//   - the attempt stream a server sees is Poisson at rate x, so it is an
//     M/M/c (or M/M/c/K) queue at load x (retries are delayed copies of
//     timed-out attempts, not Poisson; with random dispatch over many servers
//     they are nearly so);
//   - the queue is in its steady state at load x (the fixed point says where
//     the load can rest, not how long it takes to get there or leave);
//   - backoff and jitter are ignored: they delay retries but, in steady state,
//     do not change their rate;
//   - drop_expired is not modelled: every attempt is served in full;
//   - only what p counts is retried (timeouts for MMcRetryFixedPoints;
//     timeouts and 503 rejections for MMcKRetryFixedPoints);
//   - the retry budget is a long-run average (see RetryAttempts).

// RetryAttempts returns the mean number of attempts per request when each
// attempt independently fails (times out) with probability p, a failed
// attempt is retried up to retries times, and a retry budget allows at most
// budget retries per request in the long run:
//
//	A = 1 + min(budget, p + p^2 + ... + p^retries).
//
// budget = +Inf means no budget. The budget term is an approximation of seed
// 004's token bucket (each request deposits budget tokens, a retry spends
// one; Finagle's RetryBudget and Envoy's retry budget are the same idea):
// over a long run the retries cannot exceed the tokens deposited, so they are
// at most budget per request; it assumes the bucket is never the binding
// constraint while the unbudgeted retry rate is below budget, and ignores the
// bucket's cap and its initial balance (which matter only in transients).
//
// Valid for 0 <= p <= 1 and budget >= 0 (including +Inf); it returns NaN
// otherwise. It panics if retries < 0.
//
// Source: the geometric series of independent attempts; seed 004 ("a retry
// budget is a token bucket: every request deposits budget tokens").
func RetryAttempts(p float64, retries int, budget float64) float64 {
	if retries < 0 {
		panic("analytic: RetryAttempts: retries < 0")
	}
	if !(p >= 0 && p <= 1) || !(budget >= 0) {
		return math.NaN()
	}
	return 1 + math.Min(budget, retrySum(p, retries))
}

// retrySum returns p + p^2 + ... + p^r.
func retrySum(p float64, r int) float64 {
	s, pk := 0.0, 1.0
	for i := 0; i < r; i++ {
		pk *= p
		s += pk
	}
	return s
}

// RetryFixedPoint is one solution of the retry fixed point x = f(x) (see
// RetryFixedPoints).
type RetryFixedPoint struct {
	// Load is the attempt rate x, in the unit of lam (per server).
	Load float64
	// TimeoutProb is p(x), the probability that an attempt fails; 1 on the
	// saturated branch.
	TimeoutProb float64
	// Attempts is x/lam, the mean number of attempts per request.
	Attempts float64
	// Stable reports whether g(x) = f(x) - x crosses zero from + to - at x,
	// so the iteration x <- f(x) and a load that follows the retry rate both
	// return to x after a small push.
	Stable bool
	// Saturated reports whether x >= capacity: the queue has no steady state,
	// every attempt eventually times out, and x = lam (1 + min(budget, R)).
	Saturated bool
}

// retryGrid is the number of uniform intervals RetryFixedPoints scans.
const retryGrid = 4096

// RetryFixedPoints returns every solution x in [lam, lam (1 + min(budget, R)]
// of the retry fixed point
//
//	g(x) = lam * RetryAttempts(p(x), retries, budget) - x = 0,
//
// sorted by Load, each classified stable (g goes from + to -) or unstable
// (- to +). lam is the request rate per server, in any unit; p(x) is the
// probability that an attempt fails at attempt rate x, for lam <= x <
// capacity. At x >= capacity the server's queue has no steady state and
// every attempt eventually times out, so p = 1 there (the saturated branch,
// whose only root is x = lam (1 + min(budget, retries)) when that is at least
// capacity). capacity = +Inf means no saturation (a bounded queue).
//
// g(lam) >= 0 always, g < 0 beyond the interval, so stable and unstable roots
// alternate, the first and the last are stable, and their number is odd
// (barring tangencies). With three: the smallest is the healthy state, the
// middle one the threshold a trigger must push the load past, and the largest
// the metastable state (Bronson et al., HotOS 2021). See the file comment for
// what the approximation assumes.
//
// Method: g is evaluated on retryGrid uniform intervals of [lam, min(capacity,
// xmax)], on points approaching capacity geometrically (capacity - (capacity
// - lam) 2^-k, k = 1..52, and the float just below it), and at capacity and
// xmax when capacity <= xmax; each sign change is refined by bisection to
// adjacent floats. A jump of g at capacity (p(capacity-) < 1) that crosses
// zero is reported at x = capacity (to one ulp). An exact zero on the grid is a root,
// classified by the signs around it. Two roots closer than the grid spacing,
// or a root where g touches zero without crossing, can be missed. Cost: about
// retryGrid + 55 evaluations of p, plus about 60 per root.
//
// It returns nil if lam is not positive and finite, budget is negative or
// NaN, or capacity is not positive. It panics if p is nil, retries < 0, or
// p returns a value outside [0, 1] (NaN included) on [lam, capacity).
func RetryFixedPoints(lam float64, retries int, budget, capacity float64, p func(x float64) float64) []RetryFixedPoint {
	if p == nil {
		panic("analytic: RetryFixedPoints: nil p")
	}
	if retries < 0 {
		panic("analytic: RetryFixedPoints: retries < 0")
	}
	if !posFinite(lam) || !(budget >= 0) || !(capacity > 0) {
		return nil
	}
	xmax := lam * (1 + math.Min(budget, float64(retries)))
	prob := func(x float64) float64 {
		if x >= capacity {
			return 1
		}
		v := p(x)
		if !(v >= 0 && v <= 1) {
			panic("analytic: RetryFixedPoints: p(x) outside [0, 1]")
		}
		return v
	}
	g := func(x float64) float64 {
		if x >= capacity {
			return xmax - x
		}
		return lam*RetryAttempts(prob(x), retries, budget) - x
	}
	point := func(x float64, stable bool) RetryFixedPoint {
		return RetryFixedPoint{Load: x, TimeoutProb: prob(x), Attempts: x / lam, Stable: stable, Saturated: x >= capacity}
	}
	if xmax == lam || lam >= capacity {
		return []RetryFixedPoint{point(xmax, true)}
	}

	// The grid.
	hi := math.Min(capacity, xmax)
	xs := make([]float64, 0, retryGrid+60)
	for i := 0; i <= retryGrid; i++ {
		xs = append(xs, lam+(hi-lam)*float64(i)/retryGrid)
	}
	if capacity <= xmax {
		xs[len(xs)-1] = math.Nextafter(capacity, 0)
		for k := 1; k <= 52; k++ {
			xs = append(xs, capacity-(capacity-lam)*math.Ldexp(1, -k))
		}
		xs = append(xs, capacity)
		if capacity < xmax {
			xs = append(xs, xmax)
		}
	}
	sort.Float64s(xs)
	gs := make([]float64, 0, len(xs))
	uniq := xs[:0]
	for i, x := range xs {
		if i > 0 && x == uniq[len(uniq)-1] {
			continue
		}
		uniq = append(uniq, x)
		gs = append(gs, g(x))
	}
	xs = uniq

	sign := func(v float64) int {
		switch {
		case v > 0:
			return 1
		case v < 0:
			return -1
		}
		return 0
	}
	var out []RetryFixedPoint
	prev := 1 // the sign left of lam: f >= lam > x
	for i := 0; i < len(xs); {
		s := sign(gs[i])
		if s == 0 { // a run of exact zeros: one root at its middle
			j := i
			for j+1 < len(xs) && gs[j+1] == 0 {
				j++
			}
			next := -1 // the sign right of xmax
			if j+1 < len(xs) {
				next = sign(gs[j+1])
			}
			if prev != next {
				out = append(out, point(xs[(i+j)/2], prev > 0))
			}
			i = j + 1
			continue
		}
		if i > 0 && sign(gs[i-1]) == -s {
			out = append(out, point(bisectRoot(g, xs[i-1], xs[i]), s < 0))
		}
		prev = s
		i++
	}
	return out
}

// bisectRoot returns a point where g changes sign in [a, b] (g(a) and g(b)
// of opposite signs), bisecting until a and b are adjacent floats, and
// returns the endpoint with the smaller |g|.
func bisectRoot(g func(float64) float64, a, b float64) float64 {
	ga, gb := g(a), g(b)
	for {
		m := a + (b-a)/2
		if m <= a || m >= b {
			break
		}
		gm := g(m)
		if gm == 0 {
			return m
		}
		if (gm > 0) == (ga > 0) {
			a, ga = m, gm
		} else {
			b, gb = m, gm
		}
	}
	if math.Abs(ga) <= math.Abs(gb) {
		return a
	}
	return b
}

// MMcRetryFixedPoints returns RetryFixedPoints for servers that are M/M/c
// queues: c workers of rate mu each, requests at rate lam per server, an
// attempt timing out when its sojourn exceeds slack = T - 2h (per-attempt
// timeout T at the balancer, constant hop h each way; see TimeoutProb), so
// p(x) = MMcSojournTail(x, mu, c, slack) and capacity = c mu. Rates and
// times in one unit (per ms and ms, say). Random dispatch over n such
// servers makes each one this queue with lam = (total request rate)/n.
//
// It returns nil if lam, mu or slack is NaN, lam or mu is not positive and
// finite, or budget is negative or NaN. It panics if c < 1 or retries < 0.
//
// Source: as for RetryFixedPoints and MMcSojournTail.
func MMcRetryFixedPoints(lam, mu float64, c int, slack float64, retries int, budget float64) []RetryFixedPoint {
	checkServers("MMcRetryFixedPoints", c)
	if !posFinite(mu) || math.IsNaN(slack) {
		return nil
	}
	tailAt := func(x float64) func(float64) float64 {
		return func(t float64) float64 { return MMcSojournTail(x, mu, c, t) }
	}
	return RetryFixedPoints(lam, retries, budget, float64(c)*mu, func(x float64) float64 {
		v := TimeoutProb(tailAt(x), slack)
		if math.IsNaN(v) {
			// x is within rounding of c mu (x/mu rounds to c): the tail's
			// limit there is 1.
			return 1
		}
		return v
	})
}

// MMcKRetryFixedPoints returns RetryFixedPoints for servers that are
// M/M/c/K queues (c workers of rate mu, room for K in all). An attempt fails
// if it is refused (the queue is full: a 503, retried like a timeout, as seed
// 004's client retries after an error or a timeout) or if it is admitted and
// its sojourn exceeds slack:
//
//	p(x) = B(x) + (1 - B(x)) P(S > slack | admitted),  B = MMcKBlocking,
//
// and the capacity is +Inf (a bounded queue always has a steady state, so
// there is no saturated branch; overload shows up as blocking). Units and
// lam as for MMcRetryFixedPoints.
//
// It returns nil for invalid lam, mu, slack or budget, as
// MMcRetryFixedPoints. It panics if c < 1, K < c or retries < 0.
//
// Source: as for RetryFixedPoints, MMcKBlocking and MMcKSojournTail.
func MMcKRetryFixedPoints(lam, mu float64, c, K int, slack float64, retries int, budget float64) []RetryFixedPoint {
	checkServers("MMcKRetryFixedPoints", c)
	checkCapacity("MMcKRetryFixedPoints", c, K)
	if !posFinite(mu) || math.IsNaN(slack) {
		return nil
	}
	return RetryFixedPoints(lam, retries, budget, math.Inf(1), func(x float64) float64 {
		pi := MMcKDist(x, mu, c, K)
		b := pi[K]
		to := TimeoutProb(func(t float64) float64 { return mmckTail(pi, mu, c, t) }, slack)
		return math.Min(1, b+(1-b)*to)
	})
}
