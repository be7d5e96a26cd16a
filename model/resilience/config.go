package resilience

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"lbsweep/analytic"
	"lbsweep/model"
	"lbsweep/model/policy"
)

// class is one resolved server class.
type class struct {
	count     int
	workers   int
	speed     float64
	weight    float64
	errorRate float64
	gcEvery   float64 // ms; 0: no pauses
	gcPause   float64 // ms
	gcPhase   float64 // ms: the first pause starts here
	active    bool
}

// change is one resolved timeline entry.
type change struct {
	entry    int     // its position in the spec's list (errors name it)
	at       float64 // ms
	action   Action
	server   int // -1: every server (add: the first inactive one)
	factor   float64
	duration float64
	rate     float64 // requests/ms
}

// config is a point resolved into the engine's terms: times in ms, rates per ms.
type config struct {
	classes      []class
	n            int
	queue        int // -1: unbounded
	discipline   int
	dropExpired  bool
	service      int
	mean         float64
	sigma, shift float64 // lognormal: σ and −σ²/2 of the unit-mean e^(σZ − σ²/2)
	errorLatency float64
	rate         float64 // requests per ms; 0 for a closed loop
	users        int
	think        float64
	hop          float64
	hopLaw       int
	timeout      float64 // +Inf: none
	retries      int
	backoff      float64
	jitter       int
	budget       float64 // 0: none
	hedge        float64 // the fixed hedge delay, or the first one with hedgeQ; +Inf: none
	hedgeQ       float64 // 0: a fixed delay
	hedgeWindow  float64
	hedgeCancel  bool
	hedgeBudget  float64 // 0: none
	timeline     []change
	horizon      float64
	warmup       float64
	bin          float64 // 0: no series
	// script, for tests only: the open loop's arrival times (ms, ascending, below the horizon) in place of the
	// Poisson stream (rate is then only what Check and the theory see). nil from every spec.
	script       []float64
	cbThreshold  float64 // 0: no circuit breakers
	cbWindow     int
	cbOpen       float64 // ms
	cbProbes     int
	cbTrace      bool // tests: record the breakers' transitions in outcome.cbLog
	lim          limiterConfig
	outlier      outlierConfig
	wrr          wrrConfig
	errorsActive float64 // ms; 0: off
	faultLevel   float64 // 0: no fault_window
	faultBin     float64 // ms
	keys         int     // 0: no keys
	zipf         float64
	cache        int // keys per server's LRU; 0: no caches
	hitCost      float64
}

// nullDefaults are the values of the optional parameters whose null stands for a default (their Docs say which):
// the circuit breakers' window, open time and probes, and the limiter's settings (the sources' defaults). They have
// no model.Param Default so that a point that sets none of them keeps the key and seed it had before they existed.
var nullDefaults = map[int]model.Value{
	pCBWindow:      model.IntValue(DefaultCBWindow),
	pCBOpen:        model.FloatValue(DefaultCBOpen),
	pCBProbes:      model.IntValue(DefaultCBProbes),
	pLimiter:       model.IntValue(LimiterNone),
	pLimitInitial:  model.IntValue(20),
	pLimitMin:      model.IntValue(20),
	pLimitMax:      model.IntValue(200),
	pAIMDBackoff:   model.FloatValue(0.9),
	pAIMDRound:     model.BoolValue(false),
	pGradTolerance: model.FloatValue(1.5),
	pGradSmoothing: model.FloatValue(0.2),
	pGradWindow:    model.IntValue(600),
	pGradQueue:     model.IntValue(4),
	pGradBaseline:  model.IntValue(BaselineAverage),
}

// valueOr is point p's parameter i, or its nullDefaults value when null.
func valueOr(p model.Point, i int) model.Value {
	if p[i].Valid {
		return p[i]
	}
	return nullDefaults[i]
}

// firstSet is the name of the first of the parameters i that point p sets.
func firstSet(p model.Point, is ...int) string {
	for _, i := range is {
		if p[i].Valid {
			return params[i].Name
		}
	}
	return params[is[0]].Name
}

// hedgeShare is the share of attempts hedged with no queueing, for Cost: 1 − q at a running quantile, else P(4·hop +
// X > hedge) for the service law at the mean speed of 1 (0 with no hedging).
func (c config) hedgeShare() float64 {
	switch {
	case !c.hedging():
		return 0
	case c.hedgeQ > 0:
		return 1 - c.hedgeQ
	}
	return c.workSurvival(1)(c.hedge - 4*c.hop)
}

// workSurvival is the survival function P(X > x) of an attempt's service time X at speed (x in ms): the unit-mean
// work law times mean/speed (the constant law's is a step at mean/speed).
func (c config) workSurvival(speed float64) func(float64) float64 {
	mean := c.mean / speed
	switch c.service {
	case Constant:
		return func(x float64) float64 {
			if x < mean {
				return 1
			}
			return 0
		}
	case Lognormal:
		return analytic.LognormalSurvival(mean, math.Sqrt(math.Expm1(c.sigma*c.sigma)))
	}
	return analytic.ExponentialSurvival(mean)
}

// hedging reports whether attempts are hedged.
func (c config) hedging() bool { return c.hedgeQ > 0 || !math.IsInf(c.hedge, 1) }

// requestsEstimate is the expected number of requests of the run (open loop: over the timeline's rate changes;
// closed loop: each user's cycle of think time plus the four hops and a mean service).
func (c config) requestsEstimate() float64 {
	if c.users > 0 {
		return float64(c.users) * c.horizon / (c.think + 4*c.hop + c.mean)
	}
	// Open loop: the rate in effect on each segment between the timeline's rate changes.
	n, rate, from := 0.0, c.rate, 0.0
	for _, ch := range c.timeline {
		if ch.action == Rate {
			n += rate * (ch.at - from)
			rate, from = ch.rate, ch.at
		}
	}
	return n + rate*(c.horizon-from)
}

// configOf resolves point p (defaults applied; see Resolve and Check).
func configOf(p model.Point) config {
	c := config{
		queue: -1, discipline: int(p[pDiscipline].I), dropExpired: p[pDropExpired].B, service: int(p[pService].I),
		mean: p[pMean].F, errorLatency: p[pMean].F, hop: p[pHop].F, hopLaw: int(p[pHopLaw].I),
		timeout: math.Inf(1), retries: int(p[pRetries].I), backoff: p[pBackoff].F, jitter: int(p[pJitter].I),
		horizon: p[pHorizon].F, warmup: p[pWarmup].F, bin: p[pBin].F, lim: limiterOf(p),
		cbWindow: int(valueOr(p, pCBWindow).I), cbOpen: valueOr(p, pCBOpen).F,
		cbProbes: int(valueOr(p, pCBProbes).I),
	}
	if p[pCBThreshold].Valid {
		c.cbThreshold = p[pCBThreshold].F
	}
	if p[pQueue].Valid {
		c.queue = int(p[pQueue].I)
	}
	if c.service == Lognormal {
		cv := 1.0
		if p[pCV].Valid {
			cv = p[pCV].F
		}
		s2 := math.Log1p(cv * cv)
		c.sigma, c.shift = math.Sqrt(s2), -s2/2
	}
	if p[pErrorLatency].Valid {
		c.errorLatency = p[pErrorLatency].F
	}
	if p[pRate].Valid {
		c.rate = p[pRate].F / 1000
	}
	if p[pUsers].Valid {
		c.users = int(p[pUsers].I)
		if p[pThink].Valid {
			c.think = p[pThink].F
		}
	}
	if p[pTimeout].Valid {
		c.timeout = p[pTimeout].F
	}
	if p[pRetryBudget].Valid {
		c.budget = p[pRetryBudget].F
	}
	c.hedge, c.hedgeWindow, c.hedgeCancel = math.Inf(1), 1000, p[pHedgeCancel].Valid && p[pHedgeCancel].B
	if p[pHedgeWindow].Valid {
		c.hedgeWindow = p[pHedgeWindow].F
	}
	if p[pHedge].Valid {
		c.hedge = p[pHedge].F
	}
	if p[pHedgeQuantile].Valid {
		c.hedgeQ = p[pHedgeQuantile].F
	}
	if p[pHedgeBudget].Valid {
		c.hedgeBudget = p[pHedgeBudget].F
	}
	c.outlier = outlierOf(p)
	c.wrr = wrrOf(p)
	if p[pErrorsActive].Valid {
		c.errorsActive = p[pErrorsActive].F
	}
	c.faultBin = 100
	if p[pFaultLevel].Valid {
		c.faultLevel = p[pFaultLevel].F
	}
	if p[pFaultBin].Valid {
		c.faultBin = p[pFaultBin].F
	}
	c.zipf, c.hitCost = DefaultZipf, DefaultHitCost
	if p[pKeys].Valid {
		c.keys = int(p[pKeys].I)
	}
	if p[pZipf].Valid {
		c.zipf = p[pZipf].F
	}
	if p[pCache].Valid {
		c.cache = int(p[pCache].I)
	}
	if p[pHitCost].Valid {
		c.hitCost = p[pHitCost].F
	}
	for _, r := range p[pServers].R {
		cl := class{count: int(r[fCount].I), workers: int(p[pWorkers].I), speed: 1, errorRate: p[pErrorRate].F, active: true}
		if r[fWorkers].Valid {
			cl.workers = int(r[fWorkers].I)
		}
		if r[fSpeed].Valid {
			cl.speed = r[fSpeed].F
		}
		cl.weight = cl.speed
		if r[fWeight].Valid {
			cl.weight = r[fWeight].F
		}
		if r[fErrorRate].Valid {
			cl.errorRate = r[fErrorRate].F
		}
		if r[fGCEvery].Valid {
			cl.gcEvery, cl.gcPhase = r[fGCEvery].F, r[fGCEvery].F
		}
		if r[fGCPause].Valid {
			cl.gcPause = r[fGCPause].F
		}
		if r[fGCPhase].Valid {
			cl.gcPhase = r[fGCPhase].F
		}
		if r[fActive].Valid {
			cl.active = r[fActive].B
		}
		c.classes = append(c.classes, cl)
		c.n += cl.count
	}
	if p[pTimeline].Valid {
		for i, r := range p[pTimeline].R {
			ch := change{entry: i, at: r[tAt].F, action: Action(r[tAction].I), server: -1, factor: 1}
			if r[tServer].Valid {
				ch.server = int(r[tServer].I)
			}
			if r[tFactor].Valid {
				ch.factor = r[tFactor].F
			}
			if r[tDuration].Valid {
				ch.duration = r[tDuration].F
			}
			if r[tRate].Valid {
				ch.rate = r[tRate].F / 1000
			}
			c.timeline = append(c.timeline, ch)
		}
		// Applied in time order; entries at the same time in list order.
		slices.SortStableFunc(c.timeline, func(a, b change) int { return cmp.Compare(a.at, b.at) })
	}
	return c
}

// serverClasses returns each server's class index, in server order.
func (c config) serverClasses() []int {
	out := make([]int, 0, c.n)
	for i, cl := range c.classes {
		for range cl.count {
			out = append(out, i)
		}
	}
	return out
}

// policyServers is what the policy knows of the servers: their weights (nil when all equal) and configured
// latencies (the balancer's round trip for a mean request: two hops and the mean work at the server's speed).
func (c config) policyServers() policy.Servers {
	pc := make([]policy.Class, len(c.classes))
	for i, cl := range c.classes {
		pc[i] = policy.Class{Count: cl.count, Weight: cl.weight, Latency: 2*c.hop + c.mean/cl.speed}
	}
	return policy.ClassServers(pc)
}

// policyConfig returns point p's policy configuration.
func policyConfig(p model.Point) policy.Config {
	return policy.Registry[p[pPolicy].I].Configure(params, p)
}

// Resolve implements model.Resolver: n from the server classes (if given, it must agree).
func (Model) Resolve(p model.Point) error {
	if !p[pServers].Valid {
		return model.Issue{Param: "servers", Message: "required: the server classes, e.g. [{count = 4}]"}
	}
	total := int64(0)
	for i, r := range p[pServers].R {
		c := r[fCount].I
		if c < 1 {
			return model.Issue{Param: "servers", Message: fmt.Sprintf("element %d: count %d, need ≥ 1", i+1, c)}
		}
		total += c
		if total > MaxServers {
			return model.Issue{Param: "servers", Message: fmt.Sprintf("more than %d servers", MaxServers)}
		}
	}
	if p[pN].Valid && p[pN].I != total {
		return model.Issue{Param: "n", Message: fmt.Sprintf("%d, but the server classes hold %d servers: leave n out or make them agree", p[pN].I, total)}
	}
	p[pN] = model.IntValue(total)
	return nil
}

// Check implements model.Model. Every value is range-checked as its parameter's doc says; the timeline is checked
// entry by entry in time order (an entry that cannot apply: a restore with no slow-down in effect, a restart of a
// running server, a recover with no fail, an add with no inactive server, a rate change in a closed loop). An
// offered load at or above the fleet's capacity (rate·mean over Σ workers·speed·(1 − gc_pause/gc_every), the pauses'
// share of time taken out) with unbounded queues is an error unless o.AllowUnstable; then a warning.
func (Model) Check(p model.Point, o model.CheckOptions) (warnings []string, err error) {
	bad := func(param, format string, v ...any) error {
		return model.Issue{Param: param, Message: fmt.Sprintf(format, v...)}
	}
	positive := func(name string, v model.Value, what string) error {
		if v.Valid && !(v.F > 0 && finite(v.F)) {
			return bad(name, "%v: need a finite %s > 0", v.F, what)
		}
		return nil
	}
	for _, e := range []error{
		positive("mean", p[pMean], "mean service work"),
		positive("error_latency", p[pErrorLatency], "error latency"),
		positive("rate", p[pRate], "rate"),
		positive("timeout", p[pTimeout], "timeout"),
		positive("horizon", p[pHorizon], "horizon"),
		positive("hedge", p[pHedge], "hedge delay"),
		positive("hedge_window", p[pHedgeWindow], "hedge window"),
		positive("cb_open", p[pCBOpen], "open time"),
	} {
		if e != nil {
			return nil, e
		}
	}
	cbWindow, cbProbes := valueOr(p, pCBWindow).I, valueOr(p, pCBProbes).I
	nonNegative := []struct {
		i    int
		name string
	}{{pHop, "hop"}, {pBackoff, "backoff"}, {pWarmup, "warmup"}, {pBin, "bin"}, {pThink, "think"}}
	for _, x := range nonNegative {
		if v := p[x.i]; v.Valid && !(v.F >= 0 && finite(v.F)) {
			return nil, bad(x.name, "%v: need a finite value ≥ 0", v.F)
		}
	}
	switch {
	case p[pWorkers].I < 1 || p[pWorkers].I > MaxWorkers:
		return nil, bad("workers", "%d: need 1 ≤ workers ≤ %d", p[pWorkers].I, MaxWorkers)
	case p[pQueue].Valid && p[pQueue].I < 0:
		return nil, bad("queue", "%d: need a queue of ≥ 0 attempts (leave it out for an unbounded queue)", p[pQueue].I)
	case p[pCV].Valid && !(p[pCV].F >= 0 && p[pCV].F <= MaxCV):
		// Beyond, σ² = ln(1 + cv²) makes e^(σZ) overflow to +Inf and the work NaN.
		return nil, bad("cv", "%v: need 0 ≤ cv ≤ %v", p[pCV].F, float64(MaxCV))
	case p[pQueue].Valid && p[pQueue].I > MaxQueue:
		return nil, bad("queue", "%d: need a queue of at most %.0g attempts (leave it out for an unbounded queue)", p[pQueue].I, float64(MaxQueue))
	case p[pRate].Valid && p[pRate].F < MinRate:
		return nil, bad("rate", "%v: need a rate ≥ %v requests/s", p[pRate].F, MinRate)
	case p[pCV].Valid && p[pService].I != Lognormal:
		return nil, bad("cv", "%v given for %s service, whose cv is fixed: use service = \"lognormal\"", p[pCV].F, serviceChoices[p[pService].I])
	case !(p[pErrorRate].F >= 0 && p[pErrorRate].F <= 1):
		return nil, bad("error_rate", "%v: need 0 ≤ error_rate ≤ 1", p[pErrorRate].F)
	case p[pRetries].I < 0 || p[pRetries].I > MaxRetries:
		return nil, bad("retries", "%d: need 0 ≤ retries ≤ %d", p[pRetries].I, MaxRetries)
	case p[pRetryBudget].Valid && !(p[pRetryBudget].F > 0 && p[pRetryBudget].F <= 10):
		return nil, bad("retry_budget", "%v: need 0 < retry_budget ≤ 10 tokens per request", p[pRetryBudget].F)
	case p[pHedgeQuantile].Valid && !(p[pHedgeQuantile].F > 0 && p[pHedgeQuantile].F < 1):
		return nil, bad("hedge_quantile", "%v: need 0 < hedge_quantile < 1", p[pHedgeQuantile].F)
	case p[pHedgeBudget].Valid && !(p[pHedgeBudget].F > 0 && p[pHedgeBudget].F <= 10):
		return nil, bad("hedge_budget", "%v: need 0 < hedge_budget ≤ 10 tokens per request", p[pHedgeBudget].F)
	case p[pHedgeBudget].Valid && !p[pHedge].Valid && !p[pHedgeQuantile].Valid:
		return nil, bad("hedge_budget", "given with no hedging: set hedge (ms) or hedge_quantile")
	case p[pHedgeWindow].Valid && !p[pHedgeQuantile].Valid:
		return nil, bad("hedge_window", "given with no hedge_quantile: the window is the running quantile's")
	case p[pHedgeCancel].Valid && p[pHedgeCancel].B && !p[pHedge].Valid && !p[pHedgeQuantile].Valid:
		return nil, bad("hedge_cancel", "true with no hedging: set hedge (ms) or hedge_quantile")
	case p[pRate].Valid == p[pUsers].Valid:
		return nil, bad("rate", "give exactly one of rate (open loop, requests/s) and users (closed loop)")
	case p[pUsers].Valid && (p[pUsers].I < 1 || p[pUsers].I > MaxUsers):
		return nil, bad("users", "%d: need 1 ≤ users ≤ %.0g", p[pUsers].I, float64(MaxUsers))
	case p[pUsers].Valid && !p[pThink].Valid:
		return nil, bad("think", "required with users: the mean think time in ms")
	case p[pThink].Valid && !p[pUsers].Valid:
		return nil, bad("think", "only for a closed loop (users)")
	case p[pUsers].Valid && p[pThink].F == 0 && p[pHop].F == 0:
		// A request answered at once (a full queue's 503, a down server's refusal) would be sent again at the same
		// instant, forever: the run would never advance time.
		return nil, bad("think", "0 with hop = 0: a request answered at once (a full queue's 503, a down server's refusal) would be sent again at the same instant forever; give think > 0 or hop > 0")
	case p[pUsers].Valid && float64(p[pUsers].I)*p[pHorizon].F/(p[pThink].F+4*p[pHop].F) > MaxCycles:
		// The shortest cycle of a user is think + 4 hops (a 503 or a refusal takes no service): bound the requests
		// that could make, so that a near-zero cycle is refused, not run for hours.
		return nil, bad("think", "%v: users·horizon/(think + 4·hop) = %.3g requests could be made (a 503 or a refused connection takes no service), more than %.0g: give a longer think or hop", p[pThink].F, float64(p[pUsers].I)*p[pHorizon].F/(p[pThink].F+4*p[pHop].F), float64(MaxCycles))
	case model.CheckWindow(p[pWarmup].F, p[pHorizon].F) != nil:
		return nil, model.CheckWindow(p[pWarmup].F, p[pHorizon].F)
	case p[pBin].F > 0 && p[pHorizon].F/p[pBin].F > MaxBins:
		return nil, bad("bin", "%v: need 0 (no series) or a bin ≥ horizon/%d", p[pBin].F, MaxBins)
	case p[pBin].F > 0 && p[pHorizon].F/p[pBin].F*float64(p[pN].I) > MaxSeriesCells:
		return nil, bad("bin", "%v: (horizon/bin)·n = %.3g per-server series cells (in_flight, queued), more than %.0g: give a wider bin, or 0 for no series", p[pBin].F, p[pHorizon].F/p[pBin].F*float64(p[pN].I), float64(MaxSeriesCells))
	case p[pCBThreshold].Valid && !(p[pCBThreshold].F > 0 && p[pCBThreshold].F <= 1):
		return nil, bad("cb_threshold", "%v: need a failure fraction 0 < cb_threshold ≤ 1 (leave it out for no breakers)", p[pCBThreshold].F)
	case !p[pCBThreshold].Valid && (p[pCBWindow].Valid || p[pCBOpen].Valid || p[pCBProbes].Valid):
		return nil, bad(firstSet(p, pCBWindow, pCBOpen, pCBProbes), "given with no breakers: set cb_threshold")
	case cbWindow < MinCBWindow || cbWindow > MaxCBWindow:
		return nil, bad("cb_window", "%d: need %d ≤ cb_window ≤ %d results (seed 004: at least 10)", cbWindow, MinCBWindow, MaxCBWindow)
	case cbProbes < 1 || cbProbes > cbWindow:
		return nil, bad("cb_probes", "%d: need 1 ≤ cb_probes ≤ cb_window (%d)", cbProbes, cbWindow)
	case p[pCBThreshold].Valid && float64(cbWindow)*float64(p[pN].I) > MaxSeriesCells:
		return nil, bad("cb_window", "%d: cb_window·n = %.3g results held by the breakers, more than %.0g", cbWindow, float64(cbWindow)*float64(p[pN].I), float64(MaxSeriesCells))
	case p[pRate].Valid && p[pRate].F/1000*p[pHorizon].F > MaxRequests:
		return nil, bad("horizon", "%v: rate·horizon = %.3g requests, more than %.0g", p[pHorizon].F, p[pRate].F/1000*p[pHorizon].F, float64(MaxRequests))
	}
	inactive := 0
	for i, r := range p[pServers].R {
		el := func(format string, v ...any) error {
			return bad("servers", "element %d: "+format, append([]any{i + 1}, v...)...)
		}
		switch {
		case r[fWorkers].Valid && (r[fWorkers].I < 1 || r[fWorkers].I > MaxWorkers):
			return nil, el("workers %d, need 1 ≤ workers ≤ %d", r[fWorkers].I, MaxWorkers)
		case r[fSpeed].Valid && !(r[fSpeed].F > 0 && finite(r[fSpeed].F)):
			return nil, el("speed %v, need a finite speed > 0", r[fSpeed].F)
		case r[fWeight].Valid && !(r[fWeight].F > 0 && finite(r[fWeight].F)):
			return nil, el("weight %v, need a finite weight > 0", r[fWeight].F)
		case r[fErrorRate].Valid && !(r[fErrorRate].F >= 0 && r[fErrorRate].F <= 1):
			return nil, el("error_rate %v, need 0 ≤ error_rate ≤ 1", r[fErrorRate].F)
		case r[fGCEvery].Valid != r[fGCPause].Valid:
			return nil, el("gc_every and gc_pause go together")
		case r[fGCPhase].Valid && !r[fGCEvery].Valid:
			return nil, el("gc_phase without gc_every")
		case r[fGCPause].Valid && !(r[fGCPause].F > 0 && finite(r[fGCPause].F)):
			return nil, el("gc_pause %v, need a finite pause > 0", r[fGCPause].F)
		case r[fGCEvery].Valid && !(r[fGCEvery].F > r[fGCPause].F && finite(r[fGCEvery].F)):
			return nil, el("gc_every %v, need a finite period > gc_pause (%v)", r[fGCEvery].F, r[fGCPause].F)
		case r[fGCPhase].Valid && !(r[fGCPhase].F >= 0 && finite(r[fGCPhase].F)):
			return nil, el("gc_phase %v, need a finite time ≥ 0", r[fGCPhase].F)
		}
		if r[fActive].Valid && !r[fActive].B {
			inactive += int(r[fCount].I)
		}
	}
	cfg := configOf(p)
	if inactive == cfg.n {
		return nil, bad("servers", "every server is inactive (active = false): at least one must start in the fleet")
	}
	ps := cfg.policyServers()
	pc := policyConfig(p)
	if err := pc.Check(ps); err != nil {
		if is, ok := err.(model.Issue); ok && is.Param == "weights" {
			is.Param, is.Message = "servers", "weights: "+is.Message
			return nil, is
		}
		return nil, err
	}
	tr := pc.Traits(ps)
	if tr.Observe == policy.AtDispatch {
		return nil, bad("observe", "dispatch: a request's latency is not known when it is dispatched in this model (timeouts, pauses and faults come later): use observe = \"completion\"")
	}
	if cfg.hedging() && !tr.Eligibility {
		return nil, bad("policy", "%s cannot send a hedge to another server (it does not honor eligibility): use a policy that does, or no hedging", policy.Registry[p[pPolicy].I].Name)
	}
	if inactive > 0 && !tr.Eligibility {
		return nil, bad("policy", "%s cannot leave out the inactive servers (it does not honor eligibility): use a policy that does, or no active = false", policy.Registry[p[pPolicy].I].Name)
	}
	if cfg.cbThreshold > 0 && !tr.Eligibility {
		return nil, bad("policy", "%s cannot leave out a server whose circuit breaker is open (it does not honor eligibility): use a policy that does, or no cb_threshold", policy.Registry[p[pPolicy].I].Name)
	}
	if err := checkFixes(p, cfg, tr); err != nil {
		return nil, err
	}
	if err := checkTimeline(p, cfg); err != nil {
		return nil, err
	}
	if err := checkKeys(p, cfg, tr); err != nil {
		return nil, err
	}
	if err := checkLimiter(p); err != nil {
		return nil, err
	}
	if cfg.queue < 0 && cfg.rate > 0 && cfg.lim.algo == LimiterNone { // a limiter bounds what a server holds
		capacity, active := 0.0, 0 // work per ms the fleet can do, and its servers at time 0
		for _, cl := range cfg.classes {
			if !cl.active {
				continue
			}
			active += cl.count
			up := 1.0
			if cl.gcEvery > 0 {
				up = 1 - cl.gcPause/cl.gcEvery
			}
			capacity += float64(cl.count*cl.workers) * cl.speed * up
		}
		rho := cfg.rate * cfg.mean / capacity
		scaled := ""
		if cfg.cache > 0 {
			scaled = ", a miss's work scaled down by the most the caches can hit"
			// A hit costs hit_cost of a miss, and at most the cache·(active servers) most popular keys can be held at
			// once, so the work per request is at least mean·(1 − (1 − hit_cost)·h_max), h_max their Zipf mass. Only
			// a load that even this bound leaves at or above capacity is certainly unstable; below it, whether the
			// fleet keeps up depends on the hit ratio the policy gets (a hot key's server may still overflow).
			rho *= 1 - (1-cfg.hitCost)*zipfHead(cfg.keys, cfg.zipf, cfg.cache*active)
		}
		if rho >= 1 {
			msg := fmt.Sprintf("offered load %.3g of the fleet's capacity (rate·mean / Σ workers·speed·(1 − gc_pause/gc_every)%s) with unbounded queues: no steady state", rho, scaled)
			if !o.AllowUnstable {
				return nil, bad("rate", "%s (set allow_unstable = true to run it anyway)", msg)
			}
			warnings = append(warnings, "rate: "+msg)
		}
	}
	return warnings, nil
}

// zipfHead is the probability mass of the m most popular of k keys under Zipf(s) (1 when m ≥ k), the most a set
// of caches holding m keys at once can hit; O(k), no allocation.
func zipfHead(k int, s float64, m int) float64 {
	head, all := 0.0, 0.0
	for i := 1; i <= k; i++ {
		w := math.Pow(float64(i), -s)
		all += w
		if i <= m {
			head += w
		}
	}
	return head / all
}

// checkTimeline checks the timeline of point p (cfg resolved from it) entry by entry, replaying its state changes in
// time order. Errors name the entry by its position in the spec's list.
func checkTimeline(p model.Point, cfg config) error {
	if !p[pTimeline].Valid {
		return nil
	}
	recs := p[pTimeline].R
	for i, r := range recs {
		el := func(format string, v ...any) error {
			return model.Issue{Param: "timeline", Message: fmt.Sprintf("element %d (%s at %v): ", i+1, Action(r[tAction].I), r[tAt].F) + fmt.Sprintf(format, v...)}
		}
		a := Action(r[tAction].I)
		switch {
		case !(r[tAt].F >= 0 && r[tAt].F < cfg.horizon):
			return el("at %v, need 0 ≤ at < horizon (%v)", r[tAt].F, cfg.horizon)
		case r[tServer].Valid && (r[tServer].I < 0 || r[tServer].I >= int64(cfg.n)):
			return el("server %d, need 0 ≤ server < n (%d)", r[tServer].I, cfg.n)
		case r[tServer].Valid && a == Rate:
			return el("a rate change applies to the clients, not a server")
		case r[tFactor].Valid && a != Slow && a != Fail:
			return el("factor is for slow and fail only")
		case r[tDuration].Valid && a != Pause:
			return el("duration is for pause only")
		case r[tRate].Valid && a != Rate:
			return el("rate is for a rate change only")
		case a == Slow && !r[tFactor].Valid:
			return el("slow needs factor (the speed multiplier, e.g. 0.25)")
		case a == Slow && !(r[tFactor].F > 0 && finite(r[tFactor].F)):
			return el("factor %v, need a finite speed multiplier > 0", r[tFactor].F)
		case a == Fail && r[tFactor].Valid && !(r[tFactor].F > 0 && r[tFactor].F <= 1):
			return el("factor %v, need an error rate 0 < factor ≤ 1", r[tFactor].F)
		case a == Pause && !(r[tDuration].Valid && r[tDuration].F > 0 && finite(r[tDuration].F)):
			return el("pause needs a finite duration > 0 (ms)")
		case a == Rate && !(r[tRate].Valid && r[tRate].F >= MinRate && finite(r[tRate].F)):
			return el("rate needs a finite rate ≥ %v (requests/s)", MinRate)
		case a == Rate && cfg.rate == 0:
			return el("a rate change needs an open loop (rate), not users")
		}
	}
	if n := cfg.requestsEstimate(); n > MaxRequests {
		return model.Issue{Param: "timeline", Message: fmt.Sprintf("its rate changes make %.3g expected requests, more than %.0g", n, float64(MaxRequests))}
	}
	// Replay in time order (cfg.timeline is sorted, stably): what each entry needs in effect.
	dead := make([]bool, cfg.n)
	slowed := make([]bool, cfg.n)
	failing := make([]bool, cfg.n)
	active := make([]bool, 0, cfg.n)
	for _, cl := range cfg.classes {
		for range cl.count {
			active = append(active, cl.active)
		}
	}
	for _, ch := range cfg.timeline {
		i := ch.entry
		r := recs[i]
		a := Action(r[tAction].I)
		el := func(format string, v ...any) error {
			return model.Issue{Param: "timeline", Message: fmt.Sprintf("element %d (%s at %v): ", i+1, a, r[tAt].F) + fmt.Sprintf(format, v...)}
		}
		targets := []int{}
		if r[tServer].Valid {
			targets = append(targets, int(r[tServer].I))
			if a != Add && !active[targets[0]] {
				return el("server %d is not in the fleet yet (active = false until a timeline add)", targets[0])
			}
		} else if a != Add && a != Rate {
			for k := range cfg.n { // every server in the fleet at that time
				if active[k] {
					targets = append(targets, k)
				}
			}
		}
		if a == Add {
			if r[tServer].Valid {
				if active[targets[0]] {
					return el("server %d is already in the fleet (add needs one declared active = false)", targets[0])
				}
			} else {
				k := slices.Index(active, false)
				if k < 0 {
					return el("no inactive server left to add (declare one with active = false)")
				}
				targets = append(targets, k)
			}
			active[targets[0]] = true
			continue
		}
		// A restart, restore or recover must find something to undo: on the server named, or on at least one
		// server when the entry names none (every server).
		undo := map[Action]struct {
			state []bool
			what  string
		}{Restart: {dead, "down: nothing to restart"}, Restore: {slowed, "slowed: nothing to restore"}, Recover: {failing, "failing: nothing to recover"}}
		if u, ok := undo[a]; ok {
			some := slices.ContainsFunc(targets, func(k int) bool { return u.state[k] })
			switch {
			case !some && r[tServer].Valid:
				return el("server %d is not %s", targets[0], u.what)
			case !some:
				return el("no server is %s", u.what)
			}
		}
		if a == Kill && r[tServer].Valid && dead[targets[0]] {
			return el("server %d is already down", targets[0])
		}
		for _, k := range targets {
			switch a {
			case Kill:
				dead[k] = true
			case Restart:
				dead[k] = false
			case Slow:
				slowed[k] = true
			case Restore:
				slowed[k] = false
			case Fail:
				failing[k] = true
			case Recover:
				failing[k] = false
			}
		}
	}
	return nil
}

// checkFixes checks the outlier detection, A58 and errors-as-active parameters of point p (cfg resolved from it; tr
// its policy's traits), each range with its source's rule.
func checkFixes(p model.Point, cfg config, tr policy.Traits) error {
	bad := func(param, format string, v ...any) error {
		return model.Issue{Param: param, Message: fmt.Sprintf(format, v...)}
	}
	pos := func(i int, name string) error {
		if v := p[i]; v.Valid && !(v.F > 0 && finite(v.F)) {
			return bad(name, "%v: need a finite time > 0 (ms)", v.F)
		}
		return nil
	}
	for _, x := range []struct {
		i    int
		name string
	}{{pOutlierInterval, "outlier_interval"}, {pOutlierBase, "outlier_base_ejection"}, {pOutlierMax, "outlier_max_ejection"},
		{pWRRExpiration, "wrr_expiration"}, {pWRRReport, "wrr_report"}, {pErrorsActive, "errors_active"}, {pFaultBin, "fault_bin"}} {
		if err := pos(x.i, x.name); err != nil {
			return err
		}
	}
	outlierArgs := []int{pOutlierInterval, pOutlierBase, pOutlierMax, pOutlierMaxPercent, pOutlierSRHosts, pOutlierSRVolume, pOutlierSRFactor, pOutlierSREnforcing}
	wrrArgs := []int{pWRRBlackout, pWRRExpiration, pWRRPenalty, pWRRReport}
	switch {
	case p[pOutlier5xx].Valid && (p[pOutlier5xx].I < 1 || p[pOutlier5xx].I > 1_000_000):
		// Envoy's consecutive_5xx is a uint32 with no lower bound; 0 would eject on every answer counted.
		return bad("outlier_consecutive_5xx", "%d: need 1 ≤ n ≤ 10^6 (null: no outlier detection)", p[pOutlier5xx].I)
	case !p[pOutlier5xx].Valid && slices.ContainsFunc(outlierArgs, func(i int) bool { return p[i].Valid }):
		// Named by the parameter given, as cb_window's and the limiter knobs' errors are: the spec's line is its.
		return bad(firstSet(p, outlierArgs...), "given with no outlier detection: set outlier_consecutive_5xx (it turns outlier detection on, and the other outlier_ parameters tune it)")
	case p[pOutlierMaxPercent].Valid && !(p[pOutlierMaxPercent].F >= 0 && p[pOutlierMaxPercent].F <= 100):
		// Envoy: max_ejection_percent is a percentage, "Defaults to 10%"; its PGV rule is lte: 100.
		return bad("outlier_max_ejection_percent", "%v: need 0 ≤ percent ≤ 100", p[pOutlierMaxPercent].F)
	case p[pOutlierSRHosts].Valid && (p[pOutlierSRHosts].I < 1 || p[pOutlierSRHosts].I > MaxServers):
		return bad("outlier_success_rate_minimum_hosts", "%d: need 1 ≤ hosts ≤ %d", p[pOutlierSRHosts].I, MaxServers)
	case p[pOutlierSRVolume].Valid && p[pOutlierSRVolume].I < 1:
		// Envoy: success_rate_request_volume "Defaults to 100"; 0 would judge a server with no answers (0/0).
		return bad("outlier_success_rate_request_volume", "%d: need ≥ 1 answers", p[pOutlierSRVolume].I)
	case p[pOutlierSRFactor].Valid && (p[pOutlierSRFactor].I < 0 || p[pOutlierSRFactor].I > 1_000_000):
		return bad("outlier_success_rate_stdev_factor", "%d: need 0 ≤ factor ≤ 10^6 (thousandths)", p[pOutlierSRFactor].I)
	case p[pOutlierSREnforcing].Valid && p[pOutlierSREnforcing].I != 0 && p[pOutlierSREnforcing].I != 100:
		// Envoy's enforcing_success_rate is a percentage chance per ejection; this model enforces all or none.
		return bad("outlier_enforcing_success_rate", "%d: need 0 or 100 (Envoy's percentage chance in between is not modelled)", p[pOutlierSREnforcing].I)
	case cfg.outlier.consecutive > 0 && cfg.outlier.max < cfg.outlier.base:
		// Envoy refuses max_ejection_time < base_ejection_time ("max_ejection_time ... must be greater than or equal to base_ejection_time").
		return bad("outlier_max_ejection", "%v: need ≥ outlier_base_ejection (%v)", cfg.outlier.max, cfg.outlier.base)
	case cfg.outlier.consecutive > 0 && !tr.Eligibility:
		return bad("policy", "%s cannot leave out the ejected servers (it does not honor eligibility): use a policy that does with outlier detection", policy.Registry[p[pPolicy].I].Name)
	case p[pWRRUpdate].Valid && !(p[pWRRUpdate].F >= 100 && finite(p[pWRRUpdate].F)):
		// A58: weight_update_period "Values less than 100ms are capped at 100ms"; here refused instead of raised.
		return bad("wrr_update", "%v: need a finite period ≥ 100 ms (A58 raises shorter ones to 100 ms; null: A58 off)", p[pWRRUpdate].F)
	case !p[pWRRUpdate].Valid && slices.ContainsFunc(wrrArgs, func(i int) bool { return p[i].Valid }):
		return bad(firstSet(p, wrrArgs...), "given with no A58: set wrr_update (it turns A58 weighted round robin on, and the other wrr_ parameters tune it)")
	case p[pWRRBlackout].Valid && !(p[pWRRBlackout].F >= 0 && finite(p[pWRRBlackout].F)):
		return bad("wrr_blackout", "%v: need a finite period ≥ 0 ms", p[pWRRBlackout].F)
	case p[pWRRPenalty].Valid && !(p[pWRRPenalty].F >= 0 && finite(p[pWRRPenalty].F)):
		// A58: "error_utilization_penalty ... a negative value rejects the config".
		return bad("wrr_penalty", "%v: need a finite penalty ≥ 0", p[pWRRPenalty].F)
	case p[pWRRUpdate].Valid && tr.Sequence != policy.RoundRobinSequence:
		// A58 behaves as round_robin until two servers have weights: it stands in for a round robin.
		return bad("policy", "%s with wrr_update: A58 weighted round robin replaces the policy and falls back to round robin, so the policy must pick in round-robin order (round_robin)", policy.Registry[p[pPolicy].I].Name)
	case p[pFaultLevel].Valid && !(p[pFaultLevel].F > 0 && p[pFaultLevel].F <= 1):
		return bad("fault_level", "%v: need 0 < level ≤ 1", p[pFaultLevel].F)
	case p[pFaultBin].Valid && !p[pFaultLevel].Valid:
		return bad("fault_bin", "only with fault_level")
	case p[pFaultLevel].Valid && !slices.ContainsFunc(cfg.timeline, func(c change) bool { return c.action == Fail && c.server >= 0 }):
		return bad("fault_level", "needs a timeline fail naming a server (the fault whose window it measures)")
	}
	// The periodic timers each visit every server at every tick: bound their ticks as the series' bins are (at most
	// MaxBins, and ticks·n at most MaxSeriesCells), so that outlier_interval = 1e-6 is refused instead of running a
	// 1 s horizon for 10^9 ticks (and a period below the clock's resolution would never advance time).
	for _, x := range cfg.periodics() {
		ticks := cfg.horizon / x.period
		if ticks > MaxBins || ticks*float64(cfg.n) > MaxSeriesCells {
			return bad(params[x.param].Name, "%v: horizon/%s = %.3g ticks of a timer that visits all %d servers, more than %d ticks or %.0g server visits: give a longer period (or a shorter horizon)",
				x.period, params[x.param].Name, ticks, cfg.n, MaxBins, float64(MaxSeriesCells))
		}
	}
	return nil
}

// periodic is a periodic timer of the balancer-side fixes: its parameter and period (ms, resolved).
type periodic struct {
	param  int
	period float64
}

// periodics lists the periodic timers of c's fixes: outlier detection's interval, A58's report windows and scheduler
// updates. Each tick visits every server.
func (c config) periodics() []periodic {
	var out []periodic
	if c.outlier.consecutive > 0 {
		out = append(out, periodic{pOutlierInterval, c.outlier.interval})
	}
	if c.wrr.update > 0 {
		out = append(out, periodic{pWRRReport, c.wrr.report}, periodic{pWRRUpdate, c.wrr.update})
	}
	return out
}

// checkKeys checks the keys and caches parameters of point p (cfg resolved from it; tr its policy's traits).
func checkKeys(p model.Point, cfg config, tr policy.Traits) error {
	bad := func(param, format string, v ...any) error {
		return model.Issue{Param: param, Message: fmt.Sprintf(format, v...)}
	}
	switch {
	case p[pKeys].Valid && (p[pKeys].I < 1 || p[pKeys].I > MaxKeys):
		return bad("keys", "%d: need 1 ≤ keys ≤ %.0g", p[pKeys].I, float64(MaxKeys))
	case p[pZipf].Valid && !p[pKeys].Valid:
		return bad("zipf", "given with no keys: set keys (the number of keys the Zipf law ranges over)")
	case p[pZipf].Valid && !(p[pZipf].F >= 0 && p[pZipf].F <= MaxZipf):
		return bad("zipf", "%v: need 0 ≤ zipf ≤ %v", p[pZipf].F, float64(MaxZipf))
	case p[pCache].Valid && !p[pKeys].Valid:
		return bad("cache", "given with no keys: a cache holds keys, set keys")
	case p[pCache].Valid && p[pCache].I < 1:
		return bad("cache", "%d: need a cache of ≥ 1 keys (leave it out for no cache)", p[pCache].I)
	case p[pCache].Valid && float64(cfg.keys)*float64(cfg.n) > MaxCacheCells:
		return bad("cache", "keys·n = %d·%d, more than %.0g: each server's cache indexes every key", cfg.keys, cfg.n, float64(MaxCacheCells))
	case p[pHitCost].Valid && !p[pCache].Valid:
		return bad("hit_cost", "given with no cache: set cache")
	case p[pHitCost].Valid && !(p[pHitCost].F >= 0 && p[pHitCost].F <= 1):
		return bad("hit_cost", "%v: need 0 ≤ hit_cost ≤ 1", p[pHitCost].F)
	}
	if !p[pKeys].Valid {
		return policy.CheckUnkeyed(tr, policy.Registry[p[pPolicy].I].Name)
	}
	return nil
}
