package resilience

import (
	"math"

	"lbsweep/analytic"
	"lbsweep/model"
	"lbsweep/model/policy"
	"lbsweep/results/schema"
)

// Theory sources, as the theory_source column writes them (joined with "; " when several apply).
const (
	SourceMMc       = "random dispatch splits Poisson arrivals: each server M/M/c (Erlang C), latency = 4 hops + sojourn"
	SourceMMcK      = "random dispatch splits Poisson arrivals: each server M/M/c/K (K = workers + queue), blocking π_K, admitted sojourn law"
	SourceTimeout   = "timeout: P(sojourn > timeout − 2·hop) at the offered load"
	SourceRetry     = "retry fixed point x = λ·Σ_{i≤R} p(x)^i over M/M/c (M/M/c/K: rejections retried too), budget caps retries at b per request; stable roots: healthy, metastable (analytic.RetryFixedPoints)"
	SourceHedge     = "hedging with no queueing: T = 4·hop + min(X₁, H + X₂) with X₁, X₂ independent service times, hedged when 4·hop + X₁ > H (analytic.Hedged); hedge_quantile q: H at its fixed point 4·hop + (q-quantile of X), hedging 1 − q; an approximation under load (queueing adds to and correlates the X's, and the copies add load)"
	SourcePauseP99  = "pause bound: a load-blind share f of requests reaches servers pausing P every G; one landing in a pause waits its rest, and every answer takes its own service, so P(latency > 4·hop + x) ≥ L(x) (analytic.VacationSojournQuantileBound)"
	sourceSeparator = "; "
)

// queueLaw is the per-server queue of a point where random dispatch makes each server an independent M/M/c or
// M/M/c/K queue: every server active and alike (workers, speed), exponential service, no errors, no pauses, an open
// loop, constant hops, no concurrency limit (its admission moves with time), no cache whose hits change the work.
// Rates per ms.
type queueLaw struct {
	lam, mu float64 // requests per server, service rate per worker
	c, k    int     // workers; k = workers + queue, or 0 when unbounded
}

// tail is the server's sojourn tail P(S > t) at attempt rate x per server.
func (q queueLaw) tail(x, t float64) float64 {
	if q.k > 0 {
		return analytic.MMcKSojournTail(x, q.mu, q.c, q.k, t)
	}
	return analytic.MMcSojournTail(x, q.mu, q.c, t)
}

// lawOf returns point c's queue law when one applies (see queueLaw), for a policy with traits tr.
func lawOf(c config, tr policy.Traits) (queueLaw, bool) {
	if c.cache > 0 && c.hitCost != 1 {
		return queueLaw{}, false // hits change the service law: a mixture, not exponential
	}
	if tr.Family != policy.FamilyRandom || c.service != Exponential || c.rate == 0 || c.hopLaw != HopConstant || c.lim.algo != LimiterNone {
		return queueLaw{}, false
	}
	first := c.classes[0]
	for _, cl := range c.classes {
		if !cl.active || cl.workers != first.workers || cl.speed != first.speed || cl.errorRate != 0 || cl.gcEvery > 0 {
			return queueLaw{}, false
		}
	}
	q := queueLaw{lam: c.rate / float64(c.n), mu: first.speed / c.mean, c: first.workers}
	if c.queue >= 0 {
		q.k = first.workers + c.queue
		if q.k > MaxTheoryK {
			return queueLaw{}, false // its stationary law would be K + 1 values
		}
	}
	return q, true
}

// Theory implements model.Theorist: the closed forms that apply to point p, for the state before any timeline
// change (the faults of a timeline are the trigger; the theory says where the fleet can rest without them).
//   - Random dispatch over alike exponential servers: each server is M/M/c (M/M/c/K with a bounded FIFO queue;
//     LIFO: the blocking only, whose chain is the same), so with no timeout, no errors and no retries (or retries
//     that cannot fire: an unbounded queue rejects nothing) the success
//     latency is 4·hop plus the sojourn (mean and p99); with a bounded queue, theory_blocking is π_K.
//   - With a timeout, theory_p_timeout is P(S > timeout − 2·hop) at the offered load; with retries too, the retry
//     fixed point's healthy and metastable attempt rates (analytic.MMcRetryFixedPoints, MMcKRetryFixedPoints; what
//     the approximation assumes is in analytic/retry.go).
//   - A load-blind policy over servers that pause periodically: the lower bound on the p99 of all answers, with no
//     timeout (analytic.VacationSojournQuantileBound).
func (Model) Theory(p model.Point) model.Theory {
	c := configOf(p)
	ps := c.policyServers()
	tr := policyConfig(p).Traits(ps)
	cells := map[schema.Column]schema.Cell{}
	var sources []string
	if q, ok := lawOf(c, tr); ok && !c.hedging() {
		sources = append(sources, theoryLaw(c, q, cells)...)
	}
	if s := theoryPause(c, tr, ps, cells); s != "" && !c.hedging() {
		sources = append(sources, s)
	}
	if s := theoryHedge(c, cells); s != "" {
		sources = append(sources, s)
	}
	sources = append(sources, theoryKeys(p, c, tr, cells)...)
	if len(sources) == 0 {
		return nil
	}
	src := sources[0]
	for _, s := range sources[1:] {
		src += sourceSeparator + s
	}
	return func(row schema.Row) {
		b := metrics.Edit(row)
		for col, cell := range cells {
			b.Set(col, cell)
		}
		b.Set(colTheorySource, schema.Str(src))
	}
}

// theoryLaw fills the queue-law columns for point c with law q and returns their sources.
func theoryLaw(c config, q queueLaw, cells map[schema.Column]schema.Cell) []string {
	var sources []string
	set := func(col schema.Column, x float64) {
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			cells[col] = schema.Float(x)
		}
	}
	stable := q.k > 0 || q.lam < float64(q.c)*q.mu
	if q.k > 0 {
		set(colTheoryBlocking, analytic.MMcKBlocking(q.lam, q.mu, q.c, q.k))
		sources = append(sources, SourceMMcK)
	} else {
		sources = append(sources, SourceMMc)
	}
	timeout := !math.IsInf(c.timeout, 1)
	// Without a timeout and errors only a full queue's 503 is retried: with an unbounded queue retries never fire.
	if !timeout && (c.retries == 0 || q.k == 0) && stable && (q.k == 0 || c.discipline == FIFO) {
		if q.k > 0 {
			set(colTheoryMean, 4*c.hop+analytic.MMcKMeanSojourn(q.lam, q.mu, q.c, q.k))
			set(colTheoryP99, 4*c.hop+analytic.MMcKSojournQuantile(q.lam, q.mu, q.c, q.k, 0.99))
		} else {
			set(colTheoryMean, 4*c.hop+analytic.MMcMeanSojourn(q.lam, q.mu, q.c))
			set(colTheoryP99, 4*c.hop+analytic.MMcSojournQuantile(q.lam, q.mu, q.c, 0.99))
		}
	}
	if !timeout || (q.k > 0 && c.discipline == LIFO) {
		return sources
	}
	slack := c.timeout - 2*c.hop
	if stable {
		set(colTheoryPTimeout, analytic.TimeoutProb(func(t float64) float64 { return q.tail(q.lam, t) }, slack))
	} else {
		set(colTheoryPTimeout, 1)
	}
	sources = append(sources, SourceTimeout)
	if c.retries == 0 {
		return sources
	}
	budget := math.Inf(1)
	if c.budget > 0 {
		budget = c.budget
	}
	var roots []analytic.RetryFixedPoint
	if q.k > 0 {
		roots = analytic.MMcKRetryFixedPoints(q.lam, q.mu, q.c, q.k, slack, c.retries, budget)
	} else {
		roots = analytic.MMcRetryFixedPoints(q.lam, q.mu, q.c, slack, c.retries, budget)
	}
	var st []analytic.RetryFixedPoint
	for _, r := range roots {
		if r.Stable {
			st = append(st, r)
		}
	}
	if len(st) == 0 {
		return sources
	}
	// The healthy state is the smallest stable one unless it is saturated (the retries alone overload the fleet:
	// no healthy state); the metastable state is the largest of two or more.
	perSecond := float64(c.n) * 1000 // per-server attempts per ms → fleet attempts per s
	if !st[0].Saturated {
		set(colTheoryHealthy, st[0].Load*perSecond)
	}
	if len(st) > 1 {
		set(colTheoryMeta, st[len(st)-1].Load*perSecond)
	}
	return append(sources, SourceRetry)
}

// theoryHedge fills the hedging columns when a point hedges over alike servers (every class active, one speed, no
// errors, no pauses) with constant hops, exponential or lognormal service and no timeout, and returns their source.
func theoryHedge(c config, cells map[schema.Column]schema.Cell) string {
	if !c.hedging() || c.hopLaw != HopConstant || !math.IsInf(c.timeout, 1) || c.service == Constant {
		return ""
	}
	first := c.classes[0]
	for _, cl := range c.classes {
		if !cl.active || cl.speed != first.speed || cl.errorRate != 0 || cl.gcEvery > 0 {
			return ""
		}
	}
	s := c.workSurvival(first.speed) // not constant: Mean needs a continuous law
	base := 4 * c.hop
	d := analytic.Hedged{Base: base, H: c.hedge, S: s}
	if c.hedgeQ > 0 {
		d.H = base + analytic.Hedged{Base: 0, H: math.Inf(1), S: s}.Quantile(c.hedgeQ)
	}
	for col, x := range map[schema.Column]float64{colTheoryHedgeDelay: d.H, colTheoryHedgeRate: d.HedgeRate(),
		colTheoryHedgeMean: d.Mean(), colTheoryHedgeP99: d.Quantile(0.99)} {
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			cells[col] = schema.Float(x)
		}
	}
	return SourceHedge
}

// theoryPause fills theory_p99_pause_bound when a load-blind policy (tr.Split) sends a fixed share of the requests to
// servers that pause, all with the same pause and period, every server active, with no timeout, no retries and no
// errors (every answer is then the server's sojourn plus four constant hops), and returns its source. The share is
// the pausing servers' count over n (SplitEqual) or their weights' share (SplitWeighted). The service term of the
// bound uses Exp(speed/mean) when the service is exponential and every server has the same speed, and nothing
// (μ = +Inf, a weaker bound valid for any service law) otherwise.
func theoryPause(c config, tr policy.Traits, ps policy.Servers, cells map[schema.Column]schema.Cell) string {
	if tr.Split == policy.LoadAware || !math.IsInf(c.timeout, 1) || c.retries > 0 || c.hopLaw != HopConstant {
		return ""
	}
	pause, period := 0.0, 0.0
	mu := c.classes[0].speed / c.mean
	for _, cl := range c.classes {
		switch {
		case !cl.active || cl.errorRate != 0:
			return ""
		case cl.gcEvery > 0 && period > 0 && (cl.gcEvery != period || cl.gcPause != pause):
			return ""
		case cl.gcEvery > 0:
			pause, period = cl.gcPause, cl.gcEvery
		}
		if cl.speed != c.classes[0].speed {
			mu = math.Inf(1)
		}
	}
	if period == 0 {
		return ""
	}
	if c.service != Exponential {
		mu = math.Inf(1)
	}
	share, total := 0.0, 0.0
	k := 0
	for _, cl := range c.classes {
		for range cl.count {
			w := 1.0
			if tr.Split == policy.SplitWeighted && ps.Weight != nil {
				w = ps.Weight[k]
			}
			total += w
			if cl.gcEvery > 0 {
				share += w
			}
			k++
		}
	}
	b := analytic.VacationSojournQuantileBound(mu, pause, period, share/total, 0.99)
	if math.IsNaN(b) {
		return ""
	}
	cells[colTheoryPauseP99] = schema.Float(4*c.hop + b)
	return SourcePauseP99
}
