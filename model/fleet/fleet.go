// Package fleet is the fleet model: a load balancer in front of a list of backend servers that may fail, measured by
// outcome as well as by latency. Its first use is seed 000's sinkholing study ("load_balancer.py"): a latency-aware
// balancer sends traffic to whoever answers fastest, and a backend that fails fast answers fastest, so every latency
// metric ranks the policies in reverse order of goodput. Seed 004's resilience mechanisms (clients, timeouts,
// retries, pauses, faults) live in model/resilience, on explicit queues; this model stays as seed 000's toy pins it,
// and the two agree where they overlap (a test in model/resilience).
//
// # Model
//
// Time is in ticks, the model's own unit (seed 000's toy counts integer ticks; by default time here is continuous and
// a tick is only the unit; `clock = "ticks"` runs the toy's integer ticks, see Clock): its healthy backends take 10 ticks, the broken one answers in 1. Requests arrive in a Poisson
// stream at total rate λ per tick (not per server, unlike the supermarket model) over [0, horizon). Servers come in
// classes (`servers`, a list of tables: "three backends at 10, one broken at 1" is
// [{count = 3, mean = 10}, {count = 1, mean = 1, healthy = false}]), servers 0..count₁−1 forming the first class and
// so on, in list order: the order that first-wins tie rules see. Each server serves `slots` requests at once, first
// come first served, with an unbounded FIFO queue behind its slots. A request's service time is drawn from the class's
// distribution, `constant`, `exponential` or `lognormal` (parameterised by its mean and coefficient of variation
// `cv`), with mean `mean`. A server with `healthy = false` fails every request, and a failure is an answer, not a
// hang: it occupies a slot like a success and takes the same draw scaled to mean `error_latency` (by default the
// class's mean, so a broken server takes exactly as long to fail as it would to succeed: seed 000 §5.1, "the
// duration does not depend on healthy, only the verdict does"). Class fields left out take the fleet-wide parameters
// of the same name (service, mean, cv, slots, error_latency), so a sweep over `mean` or `error_latency` varies every
// class that does not set its own.
//
// The balancer is a dispatch policy from model/policy. It sees each server's outstanding requests (sent and not yet
// answered: queued and in service) as the levels of a sim.Levels, and its static weight (`weight`, default 1) and
// configured latency (its mean, or its error latency when broken; the seed's EWMA estimates start there). Policies
// that learn from responses (policy.Observer) see each one with its outcome (policy.OK, or policy.Error from a broken
// server) at its completion, or, when the policy says so (policy.Traits.Observe: observe = dispatch), at dispatch
// with the eventual latency and outcome, as the toy's balancer does (§5.6).
//
// # Engine
//
// An event-driven simulation with a future-event list (sim.Events) of pending responses and a kept next-arrival
// time. An arrival is dispatched at once: the policy picks a server, the request's service time is drawn, and since
// every server is FIFO and work-conserving the request's whole future is known then: it starts when the earliest of
// the server's slots frees (each slot keeps the time it frees: a clock per slot, a small heap when slots > 1) and
// completes a service time later. That completion is pushed on the event list; the response event releases the
// outstanding count and reports the latency. This is what makes observe = dispatch possible (the toy computes `done`
// the same way, from free_at per slot), and it costs O(log pending) per request. Events at equal times are ordered by
// scheduling order, and a response at the same instant as an arrival is processed first, as the toy retires
// completions before routing a tick's arrivals. A later extension that removes a queued request before it starts (a
// server dropping expired requests, seed 004's shedding) would need an explicit queue instead of slot clocks, and
// observe = dispatch would not apply to it; client-side timeouts, retries and hedges, which do not withdraw work from
// a server, fit the event list as it is.
//
// # Clock
//
// `clock` chooses the time base; both count time in ticks. Continuous (null, the default) is the event engine above.
// Ticks is seed 000's loop as §5.6 states it: for each integer tick now = 0, 1, …, horizon−1, first every response
// due at or before now is retired, server by server in list order and each server's in dispatch order (the toy's
// `for b in fleet: b.retire(now)`); then a Poisson(λ) number of requests arrive, and each in turn is picked,
// dispatched and (observe = dispatch) observed at the integer time now, so later arrivals of the tick see the earlier
// ones outstanding. A request's service time is a whole number of ticks, max(1, round(x)) of the continuous draw x
// (halves away from zero); its latency done − now is a whole number too, and the arrivals stop at the horizon and the
// servers drain as in continuous time. The Poisson count of a tick is the number of points of the continuous
// arrival stream in [now, now+1). Check requires a whole horizon and warmup, and for constant service whole
// latencies ≥ 1 (the toy's 10 and 1), which are then the toy's durations exactly. Where the toy's code is not in the
// seed this is our choice: the toy's jittered draw (§7.4's cv) and its rounding are not shown, so random service is
// rounded as said; its Poisson sampler and the rank convention of its p99 are not shown either. Percentiles of
// whole-tick latencies below 500 ticks are exact (the sketch's value rounded: its error, 0.1% of the value, is below
// half a tick there). Why it matters: a broken backend answering in 1 tick is retired before the next tick's
// arrivals, so only arrivals of its own tick see it busy; in continuous time any arrival within the tick does (seed
// 000 §7.2's least connections with the broken backend first: 85.38% in the toy, 76.9% in continuous time). Cost
// counts each tick, arrivals or not, as tickCost (0.12) of an event.
//
// # Randomness
//
// Three streams of the run (sim.Streams): arrival times, service draws and the policy's own draws. Service draws are
// made at dispatch, one per request in arrival order (constant service draws nothing), so policies compared at the
// same point see the same arrivals and the same request sizes (common random numbers). A server's health is a twin
// parameter (model.Param.Twin): it is left out of the run seed, so the world where the fast server is healthy and the
// world where it is broken share every random number, and a policy that ignores outcomes makes identical decisions
// in both (seed 000 §6.1; a test asserts equality, not closeness).
//
// # Measurement
//
// Requests arriving in [warmup, horizon) are measured; arrivals stop at the horizon and the servers drain, so every
// measured request has its response. Latency is response time minus arrival time (queueing included). goodput counts
// the measured requests answered with a success; p99_latency is over all responses, p99_success_latency over the
// successes only (DDSketch percentiles, relative error ≤ sim.RelativeAccuracy; means exact).
package fleet

import (
	"context"
	"fmt"
	"math"
	"slices"

	"lbsweep/model"
	"lbsweep/model/policy"
	"lbsweep/model/sim"
	"lbsweep/results/schema"
)

// Model is the fleet model; its zero value is ready to use.
type Model struct{}

// Parameter indices into Params() and a Point.
const (
	pN = iota
	pServers
	pBroken
	pService
	pMean
	pCV
	pSlots
	pErrorLatency
	pLambda
	pHorizon
	pWarmup
	pClock
	pPolicy // the policy arguments, policy.Params in order, follow
)

// Fields of a server class in `servers`.
const (
	fCount = iota
	fService
	fMean
	fCV
	fSlots
	fHealthy
	fErrorLatency
	fWeight
)

// Service-time distributions, in the order of the `service` choices.
const (
	Constant = iota
	Exponential
	Lognormal
)

// Clocks, in the order of the `clock` choices: the engine's time base (see the package doc, "Clock").
const (
	// Continuous: arrivals at real-valued Poisson times, handled one event at a time (the default; clock null).
	Continuous = iota
	// Ticks: seed 000's integer ticks (§5.6): per tick, completions retired first, then that tick's arrivals.
	Ticks
)

// Bounds on a point.
const (
	// MaxServers bounds n.
	MaxServers = 1_000_000
	// MaxSlots bounds a server's slots.
	MaxSlots = 1_000_000
	// MaxRequests bounds the expected requests λ·horizon (each pending one holds a few words).
	MaxRequests = 1e8
)

const tick = "ticks"

var serviceChoices = []string{"constant", "exponential", "lognormal"}

var clockChoices = []string{"continuous", "ticks"}

var params = append([]model.Param{
	pN: {Name: "n", Kind: model.Int, Optional: true, Doc: "number of servers, filled in as the sum of the classes' counts (give it only if equal), ≤ 10^6"},
	pServers: {Name: "servers", Kind: model.Records, Doc: "server classes in list order, e.g. [{count = 3, mean = 10}, {count = 1, mean = 1, healthy = false}] (seed 000's fleet): servers 0..count₁−1 form the first class, and so on; fields left out take the fleet-wide parameter of the same name",
		Fields: []model.Param{
			fCount:        {Name: "count", Kind: model.Int, Doc: "servers in the class, ≥ 1"},
			fService:      {Name: "service", Kind: model.Enum, Choices: serviceChoices, Optional: true, Doc: "service-time distribution (default: the fleet's service)"},
			fMean:         {Name: "mean", Kind: model.Float, Optional: true, Unit: tick, Doc: "mean service time, > 0 (default: the fleet's mean)"},
			fCV:           {Name: "cv", Kind: model.Float, Optional: true, Doc: "lognormal: coefficient of variation of the service time, ≥ 0 (default: the fleet's cv)"},
			fSlots:        {Name: "slots", Kind: model.Int, Optional: true, Doc: "requests in service at once, ≥ 1 (default: the fleet's slots)"},
			fHealthy:      {Name: "healthy", Kind: model.Bool, Optional: true, Twin: true, Doc: "false: every request fails, after error_latency (default true); a twin field: left out of the run seed, so the healthy and broken worlds share every random number"},
			fErrorLatency: {Name: "error_latency", Kind: model.Float, Optional: true, Unit: tick, Doc: "broken servers: mean time to answer with a failure, > 0 (default: the fleet's error_latency, else the class's mean)"},
			fWeight:       {Name: "weight", Kind: model.Float, Optional: true, Doc: "static weight for weighted policies (smooth_wrr, wrr_expanded, least_request), > 0 (default 1)"},
		}},
	pBroken:       {Name: "broken", Kind: model.Int, Optional: true, Twin: true, Doc: "number of servers with healthy = false, filled in from servers (give it only if equal); 0 is the healthy world"},
	pService:      {Name: "service", Kind: model.Enum, Choices: serviceChoices, Default: model.IntValue(Constant), Doc: "service-time distribution of the classes that set none: constant, exponential, or lognormal with coefficient of variation cv (default constant, as seed 000's toy)"},
	pMean:         {Name: "mean", Kind: model.Float, Unit: tick, Default: model.FloatValue(1), Doc: "mean service time of the classes that set none, > 0 (default 1)"},
	pCV:           {Name: "cv", Kind: model.Float, Optional: true, Doc: "coefficient of variation of lognormal service times for the classes that set none, ≥ 0 (null: 1); constant service has cv 0 and exponential cv 1, so a cv given only for them is an error"},
	pSlots:        {Name: "slots", Kind: model.Int, Default: model.IntValue(1), Doc: "requests each server has in service at once for the classes that set none, 1 ≤ slots ≤ 10^6 (default 1, as seed 000's demo); more wait in its FIFO queue"},
	pErrorLatency: {Name: "error_latency", Kind: model.Float, Optional: true, Unit: tick, Doc: "mean time a broken server takes to answer with a failure, for the broken classes that set none, > 0 (null: each class's mean: failing takes as long as succeeding would)"},
	pLambda:       {Name: "lambda", Kind: model.Float, Unit: "requests per tick", Doc: "total Poisson arrival rate (not per server), > 0 (seed 000: 0.32)"},
	pHorizon:      {Name: "horizon", Kind: model.Float, Unit: tick, Doc: "time at which arrivals stop, > 0; λ·horizon ≤ 10^8 (seed 000: 20000)"},
	pWarmup:       {Name: "warmup", Kind: model.Float, Unit: tick, Default: model.FloatValue(0), Doc: "start of the measurement window, 0 ≤ warmup < horizon (default 0: seed 000 measures the whole run from an empty fleet)"},
	pClock:        {Name: "clock", Kind: model.Enum, Choices: clockChoices, Optional: true, Doc: "time base, in ticks either way: continuous (null, the default: Poisson arrival times, events in time order) or ticks (seed 000 §5.6: for each integer tick now = 0..horizon−1, completions due at or before now are retired, then a Poisson(λ) number of arrivals is routed one by one at now; service times are whole ticks, max(1, round(draw)); horizon and warmup whole, constant-service latencies whole)"},
	pPolicy:       {Name: "policy", Kind: model.Enum, Choices: policy.Names(), Policy: true, Doc: "dispatch policy name (sweep -list); it sees each server's outstanding requests"},
}, policy.Params...)

// The metric columns, in the order of metrics.
var (
	colRequests           = schema.Column{Name: "requests", Type: schema.Int64, Doc: "requests measured: arrivals in [warmup, horizon)"}
	colGoodput            = schema.Column{Name: "goodput", Type: schema.Int64, Doc: "measured requests answered with a success (seed 000's goodput)"}
	colThroughput         = schema.Column{Name: "throughput", Type: schema.Int64, Doc: "measured requests answered, successes and failures (every request is answered: the run drains and nothing is dropped, so this equals requests until timeouts or shedding are modelled)"}
	colGoodputFraction    = schema.Column{Name: "goodput_fraction", Type: schema.Float64, Doc: "goodput / requests; null when no request was measured"}
	colMeanLatency        = schema.Column{Name: "mean_latency", Type: schema.Float64, Unit: tick, Doc: "mean latency (response time − arrival time, queueing included) of all measured responses; exact"}
	colP50Latency         = schema.Column{Name: "p50_latency", Type: schema.Float64, Unit: tick, Doc: "median latency of all responses, relative error ≤ 0.1% (DDSketch; on clock = ticks exact whole ticks below 500)"}
	colP99Latency         = schema.Column{Name: "p99_latency", Type: schema.Float64, Unit: tick, Doc: "99th-percentile latency of all responses, failures included, relative error ≤ 0.1% (DDSketch; on clock = ticks exact whole ticks below 500)"}
	colMeanSuccessLatency = schema.Column{Name: "mean_success_latency", Type: schema.Float64, Unit: tick, Doc: "mean latency of the successful responses; null when none"}
	colP99SuccessLatency  = schema.Column{Name: "p99_success_latency", Type: schema.Float64, Unit: tick, Doc: "99th-percentile latency of the successful responses only, relative error ≤ 0.1% (on clock = ticks exact whole ticks below 500); null when none"}
	colShares             = schema.Column{Name: "shares", Type: schema.Float64List, Doc: "element k: the fraction of measured requests sent to server k, in server order (the classes' servers in list order)"}
	colBrokenShare        = schema.Column{Name: "broken_share", Type: schema.Float64, Doc: "the fraction of measured requests sent to broken servers (healthy = false); 0 in the healthy world"}
	colFastestShare       = schema.Column{Name: "fastest_share", Type: schema.Float64, Doc: "the fraction of measured requests sent to the servers that answer fastest by configuration (the lowest mean, or error latency when broken): what a latency-aware policy seeks; in seed 000's twin worlds the fast backend's share, healthy or broken"}
	colBrokenSamples      = schema.Column{Name: "broken_samples", Type: schema.Int64, Doc: "measured picks whose candidates (policy.Sampler: the d sampled, or every server) held a broken server among two or more; null for policies that do not compare candidates, and with no broken server"}
	colBrokenWinRate      = schema.Column{Name: "broken_win_rate", Type: schema.Float64, Doc: "of those picks, the fraction that went to a broken server (seed 000 §6.3's won|sampled); null when broken_samples is 0 or null (so for d = 1)"}
	colPeakOutstanding    = schema.Column{Name: "peak_outstanding", Type: schema.Int64, Unit: "requests", Doc: "the most outstanding requests (queued and in service) at any one server in [warmup, horizon)"}
	colEvents             = schema.Column{Name: "events", Type: schema.Int64, Doc: "arrivals and responses simulated, warm-up and drain included"}
	colTheoryBrokenShare  = schema.Column{Name: "theory_broken_share", Type: schema.Float64, Doc: "closed-form broken share (see theory_source): load-blind policies B/N (weighted: the broken servers' share of the weights); ewma when every broken server answers faster than every healthy one serves: the chance that a uniform d-sample holds a broken server, 1 − C(N−B, d)/C(N, d) (d/N for one broken server; 1 with no d); null elsewhere"}
	colTheorySource       = schema.Column{Name: "theory_source", Type: schema.String, Doc: "the formula behind theory_broken_share; null where none applies"}
)

// metrics is the metric schema: Run fills the measured columns (outcome.set), Theory the theory ones.
var metrics = schema.New(colRequests, colGoodput, colThroughput, colGoodputFraction, colMeanLatency, colP50Latency, colP99Latency, colMeanSuccessLatency, colP99SuccessLatency, colShares, colBrokenShare, colFastestShare, colBrokenSamples, colBrokenWinRate, colPeakOutstanding, colEvents, colTheoryBrokenShare, colTheorySource)

// Theory sources, as the theory_source column names them.
const (
	SourceLoadBlind = "load-blind: B/N (exact in expectation)"
	SourceWeighted  = "static weights: broken weight / total weight"
	SourceBlast     = "seed 000 §6.3: broken wins every sample it is in: 1 - C(N-B,d)/C(N,d)"
)

// class is one resolved server class.
type class struct {
	count         int
	service       int     // Constant, Exponential or Lognormal
	mean          float64 // ticks
	cv            float64 // lognormal only
	slots         int
	healthy       bool
	errorLatency  float64 // ticks; broken classes only
	weight        float64
	sigma, offset float64 // lognormal: σ and −σ²/2 of the unit-mean lognormal e^(σZ − σ²/2)
}

// latency is how long the class's requests take on average: the mean, or the error latency when broken.
func (c class) latency() float64 {
	if c.healthy {
		return c.mean
	}
	return c.errorLatency
}

// classesOf resolves the classes of point p: each field from the class, else the fleet-wide parameter, else the
// built-in default.
func classesOf(p model.Point) []class {
	cs := make([]class, len(p[pServers].R))
	for i, r := range p[pServers].R {
		c := class{count: int(r[fCount].I), service: int(p[pService].I), mean: p[pMean].F, cv: 1,
			slots: int(p[pSlots].I), healthy: true, weight: 1}
		if p[pCV].Valid {
			c.cv = p[pCV].F
		}
		if r[fService].Valid {
			c.service = int(r[fService].I)
		}
		if r[fMean].Valid {
			c.mean = r[fMean].F
		}
		if r[fCV].Valid {
			c.cv = r[fCV].F
		}
		if r[fSlots].Valid {
			c.slots = int(r[fSlots].I)
		}
		if r[fHealthy].Valid {
			c.healthy = r[fHealthy].B
		}
		c.errorLatency = c.mean
		if p[pErrorLatency].Valid {
			c.errorLatency = p[pErrorLatency].F
		}
		if r[fErrorLatency].Valid {
			c.errorLatency = r[fErrorLatency].F
		}
		if r[fWeight].Valid {
			c.weight = r[fWeight].F
		}
		switch c.service {
		case Constant:
			c.cv = 0
		case Exponential:
			c.cv = 1
		case Lognormal:
			s2 := math.Log1p(c.cv * c.cv)
			c.sigma, c.offset = math.Sqrt(s2), -s2/2
		}
		cs[i] = c
	}
	return cs
}

// counts returns the number of servers and of broken servers.
func counts(cs []class) (n, broken int) {
	for _, c := range cs {
		n += c.count
		if !c.healthy {
			broken += c.count
		}
	}
	return n, broken
}

// policyServers is what the policy knows of the servers: weights (nil when all equal) and configured latencies.
func policyServers(cs []class) policy.Servers {
	pc := make([]policy.Class, len(cs))
	for i, c := range cs {
		pc[i] = policy.Class{Count: c.count, Weight: c.weight, Latency: c.latency()}
	}
	return policy.ClassServers(pc)
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// Resolve implements model.Resolver: n and broken from the server classes (each, if given, must agree).
func (Model) Resolve(p model.Point) error {
	if !p[pServers].Valid {
		return model.Issue{Param: "servers", Message: "required: the server classes, e.g. [{count = 3, mean = 10}, {count = 1, mean = 1, healthy = false}]"}
	}
	total, broken := int64(0), int64(0)
	for i, r := range p[pServers].R {
		c := r[fCount].I
		if c < 1 {
			return model.Issue{Param: "servers", Message: fmt.Sprintf("element %d: count %d, need ≥ 1", i+1, c)}
		}
		total += c
		if total > MaxServers {
			return model.Issue{Param: "servers", Message: fmt.Sprintf("more than %d servers", MaxServers)}
		}
		if r[fHealthy].Valid && !r[fHealthy].B {
			broken += c
		}
	}
	if p[pN].Valid && p[pN].I != total {
		return model.Issue{Param: "n", Message: fmt.Sprintf("%d, but the server classes hold %d servers: leave n out or make them agree", p[pN].I, total)}
	}
	if p[pBroken].Valid && p[pBroken].I != broken {
		return model.Issue{Param: "broken", Message: fmt.Sprintf("%d, but the server classes hold %d broken servers: leave broken out or make them agree", p[pBroken].I, broken)}
	}
	p[pN], p[pBroken] = model.IntValue(total), model.IntValue(broken)
	return nil
}

// Name implements model.Model.
func (Model) Name() string { return "fleet" }

// Doc implements model.Model.
func (Model) Doc() string {
	return "a balancer over server classes that may fail (healthy = false: every request fails after error_latency), FIFO servers with slots, constant/exponential/lognormal service, Poisson arrivals at total rate λ per tick; goodput and latency by outcome (seed 000)"
}

// Params implements model.Model.
func (Model) Params() []model.Param { return params }

// Metrics implements model.Model.
func (Model) Metrics() []schema.Column { return metrics.Columns() }

// Check implements model.Model: a resolved point (see Resolve) with valid classes (mean, error_latency and weight
// finite and > 0; 1 ≤ slots ≤ 10^6; cv finite and ≥ 0 and only for lognormal service), λ > 0, λ·horizon ≤ 10^8,
// 0 ≤ warmup < horizon, and valid policy arguments. Overloaded fleets are allowed (CheckOptions.AllowUnstable is not
// consulted): like seed 000's, a run is a finite-horizon transient from an empty fleet, and its queues may grow.
func (Model) Check(p model.Point, _ model.CheckOptions) (warnings []string, err error) {
	servers := func(i int, format string, v ...any) error {
		return model.Issue{Param: "servers", Message: fmt.Sprintf("element %d: ", i+1) + fmt.Sprintf(format, v...)}
	}
	switch {
	case !(p[pMean].F > 0) || !finite(p[pMean].F):
		return nil, model.Issue{Param: "mean", Message: fmt.Sprintf("%v: need a finite mean service time > 0", p[pMean].F)}
	case p[pSlots].I < 1 || p[pSlots].I > MaxSlots:
		return nil, model.Issue{Param: "slots", Message: fmt.Sprintf("%d: need 1 ≤ slots ≤ %d", p[pSlots].I, MaxSlots)}
	case p[pCV].Valid && !(p[pCV].F >= 0 && finite(p[pCV].F)):
		return nil, model.Issue{Param: "cv", Message: fmt.Sprintf("%v: need a finite cv ≥ 0", p[pCV].F)}
	case p[pErrorLatency].Valid && !(p[pErrorLatency].F > 0 && finite(p[pErrorLatency].F)):
		return nil, model.Issue{Param: "error_latency", Message: fmt.Sprintf("%v: need a finite error latency > 0", p[pErrorLatency].F)}
	}
	lognormal := false
	for i, r := range p[pServers].R {
		switch {
		case r[fMean].Valid && !(r[fMean].F > 0 && finite(r[fMean].F)):
			return nil, servers(i, "mean %v, need a finite mean service time > 0", r[fMean].F)
		case r[fSlots].Valid && (r[fSlots].I < 1 || r[fSlots].I > MaxSlots):
			return nil, servers(i, "slots %d, need 1 ≤ slots ≤ %d", r[fSlots].I, MaxSlots)
		case r[fCV].Valid && !(r[fCV].F >= 0 && finite(r[fCV].F)):
			return nil, servers(i, "cv %v, need a finite cv ≥ 0", r[fCV].F)
		case r[fErrorLatency].Valid && !(r[fErrorLatency].F > 0 && finite(r[fErrorLatency].F)):
			return nil, servers(i, "error_latency %v, need a finite error latency > 0", r[fErrorLatency].F)
		case r[fWeight].Valid && !(r[fWeight].F > 0 && finite(r[fWeight].F)):
			return nil, servers(i, "weight %v, need a finite weight > 0", r[fWeight].F)
		}
		service := p[pService].I
		if r[fService].Valid {
			service = r[fService].I
		}
		if service == Lognormal {
			lognormal = true
		} else if r[fCV].Valid {
			return nil, servers(i, "cv %v given for %s service, whose cv is fixed (constant 0, exponential 1): use service = \"lognormal\"", r[fCV].F, serviceChoices[service])
		}
	}
	if p[pCV].Valid && !lognormal {
		return nil, model.Issue{Param: "cv", Message: fmt.Sprintf("%v, but no class has lognormal service (constant has cv 0, exponential cv 1): set service = \"lognormal\"", p[pCV].F)}
	}
	lambda, horizon, warmup := p[pLambda].F, p[pHorizon].F, p[pWarmup].F
	switch {
	case !(lambda > 0) || !finite(lambda):
		return nil, model.Issue{Param: "lambda", Message: fmt.Sprintf("%v: need a finite arrival rate > 0", lambda)}
	case model.CheckWindow(warmup, horizon) != nil:
		return nil, model.CheckWindow(warmup, horizon)
	case lambda*horizon > MaxRequests:
		return nil, model.Issue{Param: "horizon", Message: fmt.Sprintf("%v: λ·horizon = %.3g requests, more than %.0g", horizon, lambda*horizon, float64(MaxRequests))}
	}
	cs := classesOf(p)
	if ticksOf(p) {
		if err := checkTicks(p, cs); err != nil {
			return nil, err
		}
	}
	if err := configOf(p).Check(policyServers(cs)); err != nil {
		if is, ok := err.(model.Issue); ok && is.Param == "weights" {
			is.Param, is.Message = "servers", "weights: "+is.Message
			return nil, is
		}
		return nil, err
	}
	return nil, policy.CheckUnkeyed(configOf(p).Traits(policyServers(cs)), policy.Registry[p[pPolicy].I].Name)
}

// ticksOf reports whether point p runs on seed 000's integer ticks (clock = "ticks").
func ticksOf(p model.Point) bool { return p[pClock].Valid && p[pClock].I == Ticks }

// checkTicks checks what the tick clock adds: whole horizon and warmup (the ticks are 0..horizon−1, the measured ones
// warmup..horizon−1), and for constant service whole latencies ≥ 1 (each class's mean, or its error latency when
// broken), so that the toy's constant durations (§5.1: "latency is how long a call takes, in ticks") are taken as
// given, never rounded. Random durations are rounded (see the package doc), so their means may be any.
func checkTicks(p model.Point, cs []class) error {
	whole := func(x float64) bool { return x == math.Trunc(x) }
	switch {
	case !whole(p[pHorizon].F):
		return model.Issue{Param: "horizon", Message: fmt.Sprintf("%v: clock = \"ticks\" needs a whole number of ticks", p[pHorizon].F)}
	case !whole(p[pWarmup].F):
		return model.Issue{Param: "warmup", Message: fmt.Sprintf("%v: clock = \"ticks\" needs a whole number of ticks", p[pWarmup].F)}
	}
	for i, c := range cs {
		if l := c.latency(); c.service == Constant && (!whole(l) || l < 1) {
			what := "mean"
			if !c.healthy {
				what = "error latency"
			}
			return model.Issue{Param: "servers", Message: fmt.Sprintf("element %d: %s %v: clock = \"ticks\" with constant service needs a whole number of ticks ≥ 1 (seed 000's durations are whole ticks)", i+1, what, l)}
		}
	}
	return nil
}

// Cost implements model.Model: about two events per request, and a scan of the servers per pick; on the tick clock
// also one step per tick, arrivals or not (horizon steps, each tickCost of an event: an idle tick's measured time).
func (Model) Cost(p model.Point) float64 {
	c := p[pLambda].F * p[pHorizon].F * (2 + float64(p[pN].I)/8)
	if ticksOf(p) {
		c += tickCost * p[pHorizon].F
	}
	return c
}

// EventsPerSecond implements model.Rater: 1.2·10^7 events per CPU-second (6.7–7.5·10^6 over the boundary and knobs
// experiments' points and 1.1–2.2·10^7 on four servers while the machine was loaded, about 1.5× faster when it was
// quiet; measured on the project's machine, 2026-12-02, experiments/sweep TestPlanRates -calibrate).
func (Model) EventsPerSecond(model.Point) float64 { return 1.2e7 }

// Run implements model.Model: the measured columns; the theory columns are Theory's.
func (Model) Run(ctx context.Context, p model.Point, seed model.Seed) (schema.Row, error) {
	cs := classesOf(p)
	ps := policyServers(cs)
	pc := configOf(p)
	out, err := simulate(ctx, config{classes: cs, lambda: p[pLambda].F, horizon: p[pHorizon].F, warmup: p[pWarmup].F,
		ticks: ticksOf(p)}, sim.NewStreams(seed), pc.New(ps), pc.Traits(ps).Observe)
	if err != nil {
		return nil, err
	}
	row := metrics.NewRow()
	out.set(row)
	return row.Row(), nil
}

// configOf returns point p's policy configuration.
func configOf(p model.Point) policy.Config { return policy.Registry[p[pPolicy].I].Configure(params, p) }

// Theory implements model.Theorist: theory, which depends on the point alone.
func (Model) Theory(p model.Point) model.Theory {
	cs := classesOf(p)
	ps := policyServers(cs)
	th := theory(configOf(p).Traits(ps), cs, ps)
	return func(row schema.Row) {
		b := metrics.Edit(row)
		b.Set(colTheoryBrokenShare, th[0])
		b.Set(colTheorySource, th[1])
	}
}

// set fills the measured columns.
func (o outcome) set(row *schema.Builder) {
	nullIfNaN := func(x float64) schema.Cell {
		if math.IsNaN(x) {
			return schema.Null()
		}
		return schema.Float(x)
	}
	req := o.all.Count()
	row.Set(colRequests, schema.Int(req))
	row.Set(colGoodput, schema.Int(o.ok.Count()))
	row.Set(colThroughput, schema.Int(req))
	shares := make([]float64, len(o.sent))
	brokenShare, fastestShare := 0.0, 0.0
	if req > 0 { // goodput_fraction stays null when no request was measured
		row.Set(colGoodputFraction, schema.Float(float64(o.ok.Count())/float64(req)))
		for k, c := range o.sent {
			shares[k] = float64(c) / float64(req)
		}
		brokenShare = float64(o.sentBroken) / float64(req)
		fastestShare = float64(o.sentFastest) / float64(req)
	}
	row.Set(colMeanLatency, nullIfNaN(o.all.Mean()))
	row.Set(colP50Latency, nullIfNaN(o.quantile(o.all, 0.5)))
	row.Set(colP99Latency, nullIfNaN(o.quantile(o.all, 0.99)))
	row.Set(colMeanSuccessLatency, nullIfNaN(o.ok.Mean()))
	row.Set(colP99SuccessLatency, nullIfNaN(o.quantile(o.ok, 0.99)))
	row.Set(colShares, schema.List(shares))
	row.Set(colBrokenShare, schema.Float(brokenShare))
	row.Set(colFastestShare, schema.Float(fastestShare))
	if o.sampler { // broken_samples and broken_win_rate stay null for policies that do not compare candidates
		row.Set(colBrokenSamples, schema.Int(o.samples))
		if o.samples > 0 {
			row.Set(colBrokenWinRate, schema.Float(float64(o.won)/float64(o.samples)))
		}
	}
	row.Set(colPeakOutstanding, schema.Int(int64(o.peak)))
	row.Set(colEvents, schema.Int(o.events))
}

// exactBelow is the latency, in ticks, below which a sketch percentile of whole-tick latencies rounds to the exact
// one: the sketch's error RelativeAccuracy·x is then below half a tick.
const exactBelow = 0.5 / sim.RelativeAccuracy

// quantile is the p-quantile of s. On the tick clock every latency is a whole number of ticks, so a sketch value
// below exactBelow (500 ticks) is rounded to the whole tick it approximates: the exact quantile (DDSketch's rank
// convention, sim.Sojourns.Quantile); above, and in continuous time, the sketch's value (relative error ≤ 0.1%).
func (o outcome) quantile(s *sim.Sojourns, p float64) float64 {
	q := s.Quantile(p)
	if o.wholeTicks && q < exactBelow {
		return math.Round(q)
	}
	return q
}

// theory returns theory_broken_share and theory_source for the policy with traits tr over classes cs: the random
// family and the round-robin sequence split the requests equally (B/N, whatever the outcomes); the weighted sequences
// (smooth and expanded) split them by weight; the latency-score family (ewma) sends the broken servers every sample
// they are in when they answer fastest.
func theory(tr policy.Traits, cs []class, ps policy.Servers) [2]schema.Cell {
	none := [2]schema.Cell{schema.Null(), schema.Null()}
	n, b := counts(cs)
	if b == 0 {
		return none
	}
	switch {
	case tr.Family == policy.FamilyRandom || tr.Sequence == policy.RoundRobinSequence:
		return [2]schema.Cell{schema.Float(float64(b) / float64(n)), schema.Str(SourceLoadBlind)}
	case tr.Sequence == policy.SmoothSequence || tr.Sequence == policy.ExpandedSequence:
		total, broken := 0.0, 0.0
		for _, c := range cs {
			total += float64(c.count) * c.weight
			if !c.healthy {
				broken += float64(c.count) * c.weight
			}
		}
		return [2]schema.Cell{schema.Float(broken / total), schema.Str(SourceWeighted)}
	case tr.Family == policy.FamilyLatencyScore:
		// The broken servers must answer faster than any healthy server serves: then a broken candidate's score
		// e·(outstanding+1) stays below every healthy one's s·(outstanding+1) while its in-flight count is below s/e − 1.
		slowestBroken, fastestHealthy := 0.0, math.Inf(1)
		for _, c := range cs {
			if c.healthy {
				fastestHealthy = min(fastestHealthy, c.mean)
			} else {
				slowestBroken = max(slowestBroken, c.errorLatency)
			}
		}
		if b == n || !(slowestBroken < fastestHealthy) {
			return none
		}
		d := tr.D
		if d == 0 {
			d = n
		}
		// 1 − C(n−b, d)/C(n, d) = 1 − Π_{i<d} (n−b−i)/(n−i)
		miss := 1.0
		for i := range d {
			miss *= float64(n-b-i) / float64(n-i)
		}
		return [2]schema.Cell{schema.Float(1 - max(miss, 0)), schema.Str(SourceBlast)}
	}
	return none
}

// brokenIn reports whether any of the candidates is broken.
func brokenIn(cand []int, broken []bool) bool {
	return slices.ContainsFunc(cand, func(k int) bool { return broken[k] })
}
