package resilience

import (
	"fmt"
	"math"
	"slices"

	"lbsweep/model"
)

// This file: adaptive concurrency limits at the servers (`limiter`), after Netflix concurrency-limits
// (github.com/Netflix/concurrency-limits, concurrency-limits-core, package com.netflix.concurrency.limits), read at
// these commits of the files:
//   - limit/AIMDLimit.java 784c960d278e75791c12fa107b002accb3888b87,
//   - limit/Gradient2Limit.java and limiter/SimpleLimiter.java f2528defbbf080dcaf5567861faec1506bac0aa2,
//   - limit/measurement/ExpAvgMeasurement.java 11c70606499f8123ba45d8355543dfec67c50162,
//   - limiter/AbstractLimiter.java 106da6d7c6080def1ede66dbf41db0bf2db9ab1d.
//
// How samples are fed (AbstractLimiter, SimpleLimiter). Each server has one limiter. An attempt arriving at a live
// server is admitted while the attempts it holds (in service plus queued, admitted and not yet left) are fewer than
// the limit (SimpleLimiter's semaphore with limit permits: tryAcquire, no waiting), else answered 503 at once. At
// admission the attempt records the server's count of held attempts, itself included (AbstractLimiter's
// currentInflight = inFlight.incrementAndGet()). When it leaves, the limit gets one sample: rtt = leaving time −
// admission time (here: attempt.admitted → the end of its service at the server, the server-side limiter's clock),
// inflight = that recorded count, and didDrop: false when its service ended (onSuccess; a 500 after the work counts
// as served), true when it was shed from a LIFO queue, skipped as expired or lost in a kill (onDropped). An attempt
// cancelled by its client gives no sample (onIgnore). Rejected attempts give none either (createRejectedListener).
// The limiter therefore learns only from the attempts it admitted.
//
// AIMD (AIMDLimit): on a sample, if didDrop or rtt > aimd_timeout, limit = ⌊limit · aimd_backoff⌋; else if
// 2·inflight ≥ limit, limit + 1; else unchanged (app-limited); then clamped to [limit_min, limit_max]. An integer
// limit. Deviations: the source's timeout default is 5 s, ours 5 × mean (seed 004's "a response slower than 5 × the
// mean service time"), since this model's times are tens of ms. Seed 004 simplifies the source in two ways: "+1
// while the limit is in use" (the source: while at least half of it is in use) and "at most once per round of
// admitted requests" (the source backs off on every slow or dropped sample); aimd_round = true offers the second as
// an option: a slow or dropped sample from an attempt admitted before the last backoff changes nothing (TCP's one
// decrease per window of data in flight).
//
// Gradient2 (Gradient2Limit), on every sample (not windowed: the source's Javadoc speaks of a sampling window, its
// code updates per sample), in the source's order, with L the estimated limit (a real number):
//  1. queueSize = gradient_queue_size (the source's default function concurrency → 4: a constant);
//  2. shortRtt = rtt (the current sample, no average); longRtt = ExpAvgMeasurement(gradient_window, 10).add(rtt):
//     the arithmetic mean of the first 10 samples, then an exponential average with factor 2/(window + 1);
//  3. if longRtt/shortRtt > 2, the measurement is multiplied by 0.95 (the long-RTT decay after an overload; the
//     gradient below still uses the value before the decay, as the source does, and during the 10 warm-up samples
//     the next add recomputes the plain mean, undoing the decay, as the source does);
//  4. if inflight < L/2, nothing more (app-limited);
//  5. gradient = clamp(gradient_tolerance · longRtt/shortRtt, 0.5, 1);
//  6. L ← (1 − s)·L + s·(L·gradient + queueSize), s = gradient_smoothing;
//  7. L clamped to [limit_min, limit_max].
//
// The limit admission uses is ⌊L⌋ (the source's (int) estimatedLimit). didDrop is not used (nor is it in the source;
// a dropped attempt's sample is fed like any other). gradient_baseline = "unqueued" is seed 004's variant: only
// samples of attempts that went into service at once (a free worker, an empty queue, the server running) feed
// longRtt, "what that average stands for", because a plain average creeps upward during a long overload; the other
// steps are unchanged, and until a first unqueued sample the limit does not move. Seed 004 also writes the growth
// term as √limit where the source's default is the constant 4; gradient_queue_size is that constant.

// Limiters, in the order of the `limiter` choices.
const (
	LimiterNone = iota
	LimiterAIMD
	LimiterGradient2
)

// Gradient2 baselines, in the order of the `gradient_baseline` choices.
const (
	BaselineAverage  = iota // every sample feeds longRtt (the source)
	BaselineUnqueued        // only samples of attempts that did not queue (seed 004)
)

var (
	limiterChoices  = []string{"none", "aimd", "gradient2"}
	baselineChoices = []string{"average", "unqueued"}
)

// Bounds of the limiter's parameters.
const (
	// MaxLimit bounds limit_max (and so limit_initial and limit_min).
	MaxLimit = 1_000_000
	// MaxGradientWindow bounds gradient_window.
	MaxGradientWindow = 1_000_000
)

// Gradient2's fixed constants (Gradient2Limit, ExpAvgMeasurement at the commits above).
const (
	gradientWarmup   = 10   // samples averaged plainly before the exponential average starts
	gradientDecayAt  = 2    // longRtt/shortRtt above this decays longRtt
	gradientDecay    = 0.95 // by this factor
	gradientMinSlope = 0.5  // the gradient's floor
)

// limiterConfig is the resolved limiter: times in ms.
type limiterConfig struct {
	algo                 int // LimiterNone, LimiterAIMD, LimiterGradient2
	initial, min, max    float64
	backoff, timeout     float64 // AIMD
	round                bool    // AIMD: at most one backoff per round (seed 004)
	tolerance, smoothing float64 // Gradient2
	window               int
	queue                float64
	baseline             int
}

// limiterOf resolves point p's limiter (timeout null: 5 × mean).
func limiterOf(p model.Point) limiterConfig {
	l := limiterConfig{algo: int(valueOr(p, pLimiter).I), initial: float64(valueOr(p, pLimitInitial).I), min: float64(valueOr(p, pLimitMin).I),
		max: float64(valueOr(p, pLimitMax).I), backoff: valueOr(p, pAIMDBackoff).F, timeout: 5 * p[pMean].F, round: valueOr(p, pAIMDRound).B,
		tolerance: valueOr(p, pGradTolerance).F, smoothing: valueOr(p, pGradSmoothing).F, window: int(valueOr(p, pGradWindow).I),
		queue: float64(valueOr(p, pGradQueue).I), baseline: int(valueOr(p, pGradBaseline).I)}
	if p[pAIMDTimeout].Valid {
		l.timeout = p[pAIMDTimeout].F
	}
	return l
}

// checkLimiter checks point p's limiter parameters, with the source's rule quoted where it has one.
func checkLimiter(p model.Point) error {
	bad := func(param, format string, v ...any) error {
		return model.Issue{Param: param, Message: fmt.Sprintf(format, v...)}
	}
	lo, ini, hi := valueOr(p, pLimitMin).I, valueOr(p, pLimitInitial).I, valueOr(p, pLimitMax).I
	knobs := []int{pLimitInitial, pLimitMin, pLimitMax, pAIMDBackoff, pAIMDTimeout, pAIMDRound, pGradTolerance, pGradSmoothing, pGradWindow, pGradQueue, pGradBaseline}
	if valueOr(p, pLimiter).I == LimiterNone && slices.ContainsFunc(knobs, func(i int) bool { return p[i].Valid }) {
		return bad(firstSet(p, knobs...), "given with no limiter: set limiter = \"aimd\" or \"gradient2\"")
	}
	switch {
	case lo < 1:
		return bad("limit_min", "%d: need limit_min ≥ 1 (a limit of 0 admits nothing, and nothing would move it)", lo)
	case hi > MaxLimit:
		return bad("limit_max", "%d: need limit_max ≤ %d", hi, MaxLimit)
	case hi < lo:
		return bad("limit_max", "%d: need limit_max ≥ limit_min (%d)", hi, lo)
	case ini < lo || ini > hi:
		// The source only logs "Initial limit exceeded maximum limit" / "is less than minimum limit"; a model
		// refuses the point instead, whose first sample would jump into the range.
		return bad("limit_initial", "%d: need limit_min (%d) ≤ limit_initial ≤ limit_max (%d)", ini, lo, hi)
	case !(valueOr(p, pAIMDBackoff).F >= 0.5 && valueOr(p, pAIMDBackoff).F < 1):
		// AIMDLimit: "Backoff ratio must be in the range [0.5, 1.0)".
		return bad("aimd_backoff", "%v: need 0.5 ≤ aimd_backoff < 1 (AIMDLimit: \"Backoff ratio must be in the range [0.5, 1.0)\")", valueOr(p, pAIMDBackoff).F)
	case p[pAIMDTimeout].Valid && !(p[pAIMDTimeout].F > 0 && finite(p[pAIMDTimeout].F)):
		// AIMDLimit: "Timeout must be positive".
		return bad("aimd_timeout", "%v: need a finite timeout > 0 (AIMDLimit: \"Timeout must be positive\")", p[pAIMDTimeout].F)
	case !(valueOr(p, pGradTolerance).F >= 1 && finite(valueOr(p, pGradTolerance).F)):
		// Gradient2Limit: "Tolerance must be >= 1.0".
		return bad("gradient_tolerance", "%v: need a finite tolerance ≥ 1 (Gradient2Limit: \"Tolerance must be >= 1.0\")", valueOr(p, pGradTolerance).F)
	case !(valueOr(p, pGradSmoothing).F > 0 && valueOr(p, pGradSmoothing).F <= 1):
		// Gradient2Limit's doc: "Value of 0.0 to 1.0"; 0 would freeze the limit.
		return bad("gradient_smoothing", "%v: need 0 < gradient_smoothing ≤ 1", valueOr(p, pGradSmoothing).F)
	case valueOr(p, pGradWindow).I < 1 || valueOr(p, pGradWindow).I > MaxGradientWindow:
		return bad("gradient_window", "%d: need 1 ≤ gradient_window ≤ %d samples", valueOr(p, pGradWindow).I, MaxGradientWindow)
	case valueOr(p, pGradQueue).I < 0 || valueOr(p, pGradQueue).I > MaxLimit:
		return bad("gradient_queue_size", "%d: need 0 ≤ gradient_queue_size ≤ %d", valueOr(p, pGradQueue).I, MaxLimit)
	}
	// One algorithm's knobs with the other: nothing reads them (with a limiter axis, bundle each knob with its own
	// algorithm: { name = "aimd", aimd_round = true }).
	aimdKnobs := []int{pAIMDBackoff, pAIMDTimeout, pAIMDRound}
	gradKnobs := []int{pGradTolerance, pGradSmoothing, pGradWindow, pGradQueue, pGradBaseline}
	set := func(i int) bool { return p[i].Valid }
	switch valueOr(p, pLimiter).I {
	case LimiterAIMD:
		if slices.ContainsFunc(gradKnobs, set) {
			return bad(firstSet(p, gradKnobs...), "is a gradient2 knob, given with limiter = \"aimd\", which does not read it: use limiter = \"gradient2\" or leave it out")
		}
	case LimiterGradient2:
		if slices.ContainsFunc(aimdKnobs, set) {
			return bad(firstSet(p, aimdKnobs...), "is an aimd knob, given with limiter = \"gradient2\", which does not read it: use limiter = \"aimd\" or leave it out")
		}
	}
	return nil
}

// limState is one server's limiter state.
type limState struct {
	est         float64 // the limit: AIMD's integer, Gradient2's estimatedLimit
	long        float64 // Gradient2: longRtt's value
	sum         float64 // its warm-up sum
	n           int     // its samples, up to gradientWarmup
	lastBackoff float64 // AIMD with aimd_round: when the limit was last backed off (−Inf: never)
	held        int     // attempts admitted and not yet left
	// Time integrals of the admitted limit ⌊est⌋: over the current series bin up to t, and over [warmup, wt]. Each
	// has its own clock so that the window's sum is split only where the limit changes, never at a bin's end: the
	// series is observation only, and a row must not depend on bin even in its last bit.
	binArea, winArea, t, wt float64
}

// cap is the limit admission uses: ⌊est⌋ (AbstractLimit's int limit).
func (s *limState) cap() float64 { return math.Floor(s.est) }

// aimd applies one AIMDLimit sample to s: rtt in ms, inflight the held count at the attempt's admission (itself
// included), drop its didDrop; admitted is its admission time and now the sample's (for aimd_round).
func (c *limiterConfig) aimd(s *limState, rtt float64, inflight int, drop bool, admitted, now float64) {
	l := s.est
	switch {
	case drop || rtt > c.timeout:
		if c.round && admitted < s.lastBackoff {
			return // seed 004: this round was backed off already
		}
		l = math.Floor(l * c.backoff)
		s.lastBackoff = now
	case 2*float64(inflight) >= l:
		l++
	}
	s.est = min(c.max, max(c.min, l))
}

// gradient applies one Gradient2Limit sample to s: rtt in ms, inflight as for aimd; unqueued: the attempt went into
// service at once (it feeds the baseline with gradient_baseline = "unqueued").
func (c *limiterConfig) gradient(s *limState, rtt float64, inflight int, unqueued bool) {
	queue := c.queue
	short := rtt
	if c.baseline == BaselineAverage || unqueued {
		if s.n < gradientWarmup {
			s.n++
			s.sum += rtt
			s.long = s.sum / float64(s.n)
		} else {
			f := 2 / float64(c.window+1)
			s.long = s.long*(1-f) + rtt*f
		}
	}
	if s.n == 0 {
		return // no baseline yet (unqueued: no attempt has gone into service at once)
	}
	long := s.long
	ratio := math.Inf(1) // a zero rtt (a drop at its admission instant) shows no queueing
	if short > 0 {
		ratio = long / short
	}
	if ratio > gradientDecayAt {
		s.long *= gradientDecay
	}
	if float64(inflight) < s.est/2 {
		return // app-limited
	}
	g := max(gradientMinSlope, min(1, c.tolerance*ratio))
	l := s.est*g + queue
	l = s.est*(1-c.smoothing) + l*c.smoothing
	s.est = max(c.min, min(c.max, l))
}

// limiter is the `admission` of a run with a limiter: one limState per server, and per attempt (by index) what its
// sample needs from its admission.
type limiter struct {
	c      *limiterConfig
	warmup float64
	bin    float64
	st     []limState
	acq    []acquired // by attempt index, grown with the engine's pool
}

// acquired is what an admitted attempt's sample needs from its admission.
type acquired struct {
	inflight int32 // held count at admission, itself included
	unqueued bool  // it went into service at once
}

// newLimiter builds the limiter of run e (e.c.lim.algo ≠ LimiterNone).
func newLimiter(e *engine) *limiter {
	l := &limiter{c: &e.c.lim, warmup: e.c.warmup, bin: e.c.bin, st: make([]limState, e.c.n)}
	for k := range l.st {
		l.st[k] = limState{est: e.c.lim.initial, lastBackoff: math.Inf(-1)}
	}
	return l
}

// admit implements admission: in service plus queued below the limit (SimpleLimiter's tryAcquire).
func (l *limiter) admit(e *engine, k int, a int32) bool {
	s := &l.st[k]
	if float64(s.held) >= s.cap() {
		if e.att[a].measured {
			e.out.limited++
		}
		return false
	}
	s.held++
	for int(a) >= len(l.acq) {
		l.acq = append(l.acq, acquired{})
	}
	sv := &e.servers[k]
	l.acq[a] = acquired{inflight: int32(s.held), unqueued: sv.rate() > 0 && len(sv.running) < sv.workers && sv.queue.len() == 0}
	return true
}

// left implements admission: one sample of the attempt's limit, none when it was cancelled.
func (l *limiter) left(e *engine, k int, a int32, how exit) {
	s := &l.st[k]
	s.held--
	if how == exitCancelled {
		return // onIgnore
	}
	l.integrate(s, e.now)
	at, q := &e.att[a], l.acq[a]
	rtt := e.now - at.admitted
	switch l.c.algo {
	case LimiterAIMD:
		l.c.aimd(s, rtt, int(q.inflight), how == exitDropped, at.admitted, e.now)
	case LimiterGradient2:
		l.c.gradient(s, rtt, int(q.inflight), q.unqueued)
	}
}

// limit implements admission: server k's admitted limit ⌊L⌋ now.
func (l *limiter) limit(k int) float64 { return l.st[k].cap() }

// integrate accumulates s's admitted limit up to t (≥ its last t), before the limit changes: over the bin, and over
// the window.
func (l *limiter) integrate(s *limState, t float64) {
	l.integrateBin(s, t)
	l.integrateWindow(s, t)
}

// integrateBin accumulates s's admitted limit over [s.t, t].
func (l *limiter) integrateBin(s *limState, t float64) {
	s.binArea += s.cap() * (t - s.t)
	s.t = t
}

// integrateWindow accumulates s's admitted limit over the part of [s.wt, t] after warmup.
func (l *limiter) integrateWindow(s *limState, t float64) {
	if t > l.warmup {
		s.winArea += s.cap() * (t - max(s.wt, l.warmup))
	}
	s.wt = t
}

// binLimit implements admission: the time average of server k's admitted limit over the bin ending at t.
func (l *limiter) binLimit(k int, t float64) float64 {
	s := &l.st[k]
	l.integrateBin(s, t)
	v := s.binArea / l.bin
	s.binArea = 0
	return v
}

// meanLimit implements admission: the time average over [warmup, t] of the servers' admitted limits, averaged over
// the servers.
func (l *limiter) meanLimit(t float64) float64 {
	sum := 0.0
	for k := range l.st {
		s := &l.st[k]
		l.integrateWindow(s, t)
		sum += s.winArea
	}
	return sum / (t - l.warmup) / float64(len(l.st))
}
