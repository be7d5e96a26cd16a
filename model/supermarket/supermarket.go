// Package supermarket is the supermarket model: n FIFO servers with Exp(1) service, Poisson arrivals at total rate
// λ·n, and a dispatch policy from model/policy that sends each arrival to one server on arrival (Mitzenmacher, Richa
// & Sitaraman, "The Power of Two Random Choices: A Survey of Techniques and Results", 2001, §4; seed 002 §1–§2).
// Servers may instead come in classes with their own service rates and static weights (seed 002 §3's 20 servers at
// rate 0.5 and 80 at rate 1), with the load given as a fraction of the total capacity.
//
// # Engine
//
// Exact continuous-time Markov chain simulation. With B busy servers, the next departure happens after an Exp(B) time
// at a busy server chosen uniformly (memorylessness of Exp(1) service), and the next arrival after an Exp(λn) time.
// The two clocks race: the arrival clock is drawn from the arrival stream and kept until it fires; the departure
// clock is drawn from the service stream when it fires or when the number of busy servers changes (exact, by
// memorylessness: an unfired Exp(B) clock is still Exp(B) from any later moment while B is unchanged). Runs that differ only
// in their policy therefore see the same arrival times (common random numbers). Sojourn times are exact: each job's
// arrival time waits in its server's FIFO ring and its departure is a real event time. Cost per event: O(1) plus
// the policy's pick. Unequal rates thin the departure clock: it runs at B·μmax, and the busy server it picks completes
// with probability μ_k/μmax (otherwise nothing happens), so server k completes at rate exactly μ_k. Policies that learn
// from responses (model/policy.Observer, e.g. peak EWMA) see each completed job's sojourn time as its round trip, with
// outcome OK.
//
// # Measurement
//
// Jobs that arrive in [warmup, horizon) are measured; at the horizon arrivals stop and the system drains, so every
// measured sojourn is complete (no censoring bias). Time averages (queue_tail, mean_max_queue) are exact integrals
// over [warmup, horizon). Percentiles come from a DDSketch with relative error ≤ sim.RelativeAccuracy (0.1%); the
// mean is exact.
package supermarket

import (
	"context"
	"fmt"
	"math"
	"strconv"

	"lbsweep/analytic"
	"lbsweep/model"
	"lbsweep/model/policy"
	"lbsweep/model/sim"
	"lbsweep/results/schema"
)

// Model is the supermarket model; its zero value is ready to use.
type Model struct{}

// Parameter indices into Params() and a Point.
const (
	pN = iota
	pServers
	pLambda
	pLoad
	pHorizon
	pWarmup
	pPolicy
	pD // the policy arguments, policy.Params in order, from here
	pReplacement
)

const timeUnit = "mean service times"

// Fields of a server class in `servers`.
const (
	fCount = iota
	fRate
	fWeight
)

var params = append([]model.Param{
	pN: {Name: "n", Kind: model.Int, Optional: true, Doc: "number of servers, 1 ≤ n ≤ 2^26 (about 40 bytes each); with servers, filled in as the sum of the counts (give it only if equal)"},
	pServers: {Name: "servers", Kind: model.Records, Optional: true, Doc: "server classes in list order, e.g. [{count = 20, rate = 0.5}, {count = 80, rate = 1}]: servers 0..count₁−1 form the first class, and so on; null: n servers of rate 1",
		Fields: []model.Param{
			fCount:  {Name: "count", Kind: model.Int, Doc: "servers in the class, ≥ 1"},
			fRate:   {Name: "rate", Kind: model.Float, Default: model.FloatValue(1), Unit: "jobs per unit time", Doc: "service rate μ of each server, > 0 (mean service time 1/μ; default 1)"},
			fWeight: {Name: "weight", Kind: model.Float, Optional: true, Twin: true, Doc: "static weight for weighted policies (smooth_wrr, wrr_expanded, least_request), > 0; default: the rate. Not part of the run seed: runs that differ only in weights see the same arrivals and services"},
		}},
	pLambda:  {Name: "lambda", Kind: model.Float, Optional: true, Unit: "jobs per server per unit time", Doc: "arrival rate per server: total arrival rate λ·n; give lambda or load (the other is filled in); 0 < λ"},
	pLoad:    {Name: "load", Kind: model.Float, Optional: true, Doc: "total arrival rate / total service capacity Σμ; give lambda or load (the other is filled in); 0 < load < 1 for stability; equals λ for unit-rate servers"},
	pHorizon: {Name: "horizon", Kind: model.Float, Unit: timeUnit, Doc: "simulated time at which arrivals stop, > 0"},
	pWarmup:  {Name: "warmup", Kind: model.Float, Unit: timeUnit, Default: model.FloatValue(0), Doc: "start of the measurement window, 0 ≤ warmup < horizon"},
	pPolicy:  {Name: "policy", Kind: model.Enum, Choices: policy.Names(), Policy: true, Doc: "dispatch policy name (sweep -list)"},
}, policy.Params...)

// The metric columns of the supermarket and the bulletin-board models (see metrics and boardMetrics for their order).
var (
	colMeanSojourn = schema.Column{Name: "mean_sojourn", Type: schema.Float64, Unit: timeUnit, Doc: "mean sojourn time (wait + service) of jobs arriving in [warmup, horizon); exact; null when no job arrived"}
	colP50Sojourn  = schema.Column{Name: "p50_sojourn", Type: schema.Float64, Unit: timeUnit, Doc: "median sojourn time, relative error ≤ 0.1% (DDSketch)"}
	colP99Sojourn  = schema.Column{Name: "p99_sojourn", Type: schema.Float64, Unit: timeUnit, Doc: "99th-percentile sojourn time, relative error ≤ 0.1% (DDSketch)"}
	colQueueTail   = schema.Column{Name: "queue_tail", Type: schema.Float64List, Doc: "element k: time-average fraction of servers with at least k+1 jobs (job in service included) over [warmup, horizon); length = longest queue seen",
		Label: "s(i): fraction of servers with >= i jobs", IndexLabel: "i (jobs at the server, the one in service included)"}
	colMeanMaxQueue      = schema.Column{Name: "mean_max_queue", Type: schema.Float64, Unit: "jobs", Doc: "time average over [warmup, horizon) of the longest queue"}
	colPeakQueue         = schema.Column{Name: "peak_queue", Type: schema.Int64, Unit: "jobs", Doc: "longest queue seen in [warmup, horizon)"}
	colJobs              = schema.Column{Name: "jobs", Type: schema.Int64, Doc: "jobs measured (arrivals in [warmup, horizon))"}
	colEvents            = schema.Column{Name: "events", Type: schema.Int64, Doc: "arrivals and departures simulated, warm-up and drain included"}
	colUnstable          = schema.Column{Name: "unstable", Type: schema.Bool, Doc: "true when the configuration has no steady state: total arrival rate ≥ capacity, or a load-blind policy (random, round_robin, smooth_wrr, wrr_expanded) gives some server an arrival rate ≥ its service rate; its statistics then grow with the horizon. false does not prove stability of load-aware policies on unequal servers"}
	colTheoryMeanSojourn = schema.Column{Name: "theory_mean_sojourn", Type: schema.Float64, Unit: timeUnit, Doc: "closed-form mean sojourn (see theory_source); null where none applies"}
	colTheoryP99Sojourn  = schema.Column{Name: "theory_p99_sojourn", Type: schema.Float64, Unit: timeUnit, Doc: "closed-form 99th-percentile sojourn; null where none applies"}
	colTheoryQueueTail   = schema.Column{Name: "theory_queue_tail", Type: schema.Float64List, Doc: "closed-form fraction of servers with at least k+1 jobs, same length as queue_tail; null where none applies"}
	colTheorySource      = schema.Column{Name: "theory_source", Type: schema.String, Doc: "the formula behind the theory columns; null where none applies"}
)

// metrics is the supermarket's metric schema: Run fills the measured columns (outcome.set), Theory the theory ones.
var metrics = schema.New(colMeanSojourn, colP50Sojourn, colP99Sojourn, colQueueTail, colMeanMaxQueue, colPeakQueue,
	colJobs, colEvents, colUnstable, colTheoryMeanSojourn, colTheoryP99Sojourn, colTheoryQueueTail, colTheorySource)

// Theory sources, as the theory_source column names them.
const (
	SourceMM1        = "M/M/1 (exact at any n)"
	SourceRoundRobin = "E_n/M/1 (exact at any n)"
	SourceMeanField  = "JSQ(d) mean-field fixed point (exact as n -> infinity)"
	SourceMM1Hetero  = "M/M/1 per server, unequal rates (exact at any n)"
	SourceRRHetero   = "E_n/M/1 per server, unequal rates (exact at any n)"
)

// servers is a point's server configuration, expanded.
type servers struct {
	classes []analytic.Class
	n       int
	uniform bool      // every server has the same rate
	rate    []float64 // per server; nil when uniform
	mu      float64   // the common rate when uniform; the largest rate otherwise
	weight  []float64 // per class static weight for weighted policies (default: the rate); nil when all equal
}

func serversOf(p model.Point) servers {
	if !p[pServers].Valid {
		return servers{classes: []analytic.Class{{Count: int(p[pN].I), Rate: 1}}, n: int(p[pN].I), uniform: true, mu: 1}
	}
	var s servers
	equalWeights := true
	for i, r := range p[pServers].R {
		c := analytic.Class{Count: int(r[fCount].I), Rate: r[fRate].F}
		s.classes = append(s.classes, c)
		s.n += c.Count
		w := c.Rate
		if r[fWeight].Valid {
			w = r[fWeight].F
		}
		s.weight = append(s.weight, w)
		equalWeights = equalWeights && w == s.weight[0]
		if i == 0 {
			s.uniform, s.mu = true, c.Rate
		}
		s.uniform = s.uniform && c.Rate == s.mu
		s.mu = max(s.mu, c.Rate)
	}
	if equalWeights {
		s.weight = nil
	}
	if !s.uniform {
		s.rate = make([]float64, 0, s.n)
		for _, c := range s.classes {
			for range c.Count {
				s.rate = append(s.rate, c.Rate)
			}
		}
	}
	return s
}

// policyServers is what a policy knows of the servers: their weights, and their mean service times 1/μ as the
// configured latencies (nil when all are 1).
func (s servers) policyServers() policy.Servers {
	ps := policy.Servers{N: s.n}
	if s.weight != nil {
		ps.Weight = make([]float64, 0, s.n)
		for i, c := range s.classes {
			for range c.Count {
				ps.Weight = append(ps.Weight, s.weight[i])
			}
		}
	}
	if s.rate != nil {
		ps.Latency = make([]float64, s.n)
		for k, mu := range s.rate {
			ps.Latency[k] = 1 / mu
		}
	} else if s.mu != 1 {
		ps.Latency = make([]float64, s.n)
		for k := range ps.Latency {
			ps.Latency[k] = 1 / s.mu
		}
	}
	return ps
}

// errNoForesight refuses observe = dispatch: the CTMC engine draws a job's departure only when it happens, so no
// latency is known at dispatch (see policy.AtDispatch; the fleet model can run it).
var errNoForesight = model.Issue{Param: "observe", Message: "dispatch: this model learns a job's latency only when it completes (observe = \"completion\"); the fleet model can observe at dispatch"}

// capacity is the total service rate Σμ.
func (s servers) capacity() float64 {
	c := 0.0
	for _, cl := range s.classes {
		c += float64(cl.Count) * cl.Rate
	}
	return c
}

// Resolve implements model.Resolver: n from the server classes, and whichever of lambda and load is not given
// (load = λn/Σμ), rounded to 12 significant digits so that 0.8 of capacity prints as λ = 0.72.
func (Model) Resolve(p model.Point) error {
	if p[pServers].Valid {
		total := int64(0)
		for i, r := range p[pServers].R {
			c, rate := r[fCount].I, r[fRate].F
			switch {
			case c < 1:
				return model.Issue{Param: "servers", Message: fmt.Sprintf("element %d: count %d, need ≥ 1", i+1, c)}
			case !(rate > 0) || math.IsInf(rate, 0):
				return model.Issue{Param: "servers", Message: fmt.Sprintf("element %d: rate %v, need a finite rate > 0", i+1, rate)}
			case r[fWeight].Valid && !(r[fWeight].F > 0 && !math.IsInf(r[fWeight].F, 0)):
				return model.Issue{Param: "servers", Message: fmt.Sprintf("element %d: weight %v, need a finite weight > 0", i+1, r[fWeight].F)}
			}
			total += c
			if total > MaxServers {
				return model.Issue{Param: "servers", Message: fmt.Sprintf("more than %d servers (about 40 bytes each)", MaxServers)}
			}
		}
		if p[pN].Valid && p[pN].I != total {
			return model.Issue{Param: "n", Message: fmt.Sprintf("%d, but the server classes hold %d servers: leave n out or make them agree", p[pN].I, total)}
		}
		p[pN] = model.IntValue(total)
	}
	if !p[pN].Valid {
		return model.Issue{Param: "n", Message: "n is required: set n, or the server classes (servers = [{count = ..., rate = ...}, ...])"}
	}
	if n := p[pN].I; n < 1 || n > MaxServers {
		return model.Issue{Param: "n", Message: fmt.Sprintf("%d servers: need 1 ≤ n ≤ %d (about 40 bytes each)", n, MaxServers)}
	}
	perServer := serversOf(p).capacity() / float64(p[pN].I) // load = λ / perServer
	round := func(x float64) float64 {
		y, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'g', 12, 64), 64)
		return y
	}
	switch {
	case p[pLambda].Valid && p[pLoad].Valid:
		return model.Issue{Param: "load", Message: "give lambda (per-server arrival rate) or load (fraction of capacity), not both"}
	case p[pLambda].Valid:
		p[pLoad] = model.FloatValue(round(p[pLambda].F / perServer))
	case p[pLoad].Valid:
		p[pLambda] = model.FloatValue(round(p[pLoad].F * perServer))
	default:
		return model.Issue{Param: "lambda", Message: "required: give lambda (arrival rate per server) or load (fraction of total capacity)"}
	}
	return nil
}

// Name implements model.Model.
func (Model) Name() string { return "supermarket" }

// Doc implements model.Model.
func (Model) Doc() string {
	return "n FIFO servers with Exp(μ) service (μ = 1, or per class: servers), Poisson arrivals at rate λ·n, a dispatch policy (survey §4; seed 002 §1-§5)"
}

// Params implements model.Model.
func (Model) Params() []model.Param { return params }

// Metrics implements model.Model.
func (Model) Metrics() []schema.Column { return metrics.Columns() }

// Check implements model.Model: a resolved point (see Resolve) with λ > 0, horizon > 0, 0 ≤ warmup < horizon, and
// valid policy arguments (e.g. 1 ≤ d ≤ n; wrr_expanded needs weights with an integer ratio). An unstable
// configuration (see the unstable column) is an error unless o.AllowUnstable, and then a warning.
func (Model) Check(p model.Point, o model.CheckOptions) (warnings []string, err error) {
	n, lambda := p[pN].I, p[pLambda].F
	switch {
	case n < 1 || n > MaxServers:
		return nil, model.Issue{Param: "n", Message: fmt.Sprintf("%d servers: need 1 ≤ n ≤ %d", n, MaxServers)}
	case !(lambda > 0) || math.IsInf(lambda, 0):
		return nil, model.Issue{Param: "lambda", Message: fmt.Sprintf("%v: need 0 < λ (load = %v)", lambda, p[pLoad].F)}
	}
	if err := model.CheckWindow(p[pWarmup].F, p[pHorizon].F); err != nil {
		return nil, err
	}
	srv := serversOf(p)
	cfg, ps := policyOf(p, srv)
	if err := cfg.Check(ps); err != nil {
		if is, ok := err.(model.Issue); ok && is.Param == "weights" {
			is.Param, is.Message = "servers", "weights: "+is.Message
			return nil, is
		}
		return nil, err
	}
	if cfg.Traits(ps).Observe == policy.AtDispatch {
		return nil, errNoForesight
	}
	if err := policy.CheckUnkeyed(cfg.Traits(ps), policy.Registry[p[pPolicy].I].Name); err != nil {
		return nil, err // before instability: a keyed policy has no share to check
	}
	if why := instability(p, srv); why != "" {
		param := "lambda"
		if p[pServers].Valid {
			param = "load"
		}
		if !o.AllowUnstable {
			return nil, model.Issue{Param: param, Message: why + "; set allow_unstable = true to run it anyway"}
		}
		if backlog := srv.excess(p) * p[pHorizon].F; backlog > maxBacklog {
			return nil, model.Issue{Param: param, Message: fmt.Sprintf("%s: about %.3g jobs would wait at the horizon (more than %.0g): shorten the horizon or lower the load", why, backlog, float64(maxBacklog))}
		}
		warnings = append(warnings, why+"; its statistics are not steady-state (unstable = true)")
	}
	return warnings, nil
}

// policyOf returns point p's policy configuration and the servers as the policy knows them.
func policyOf(p model.Point, srv servers) (policy.Config, policy.Servers) {
	return policy.Registry[p[pPolicy].I].Configure(params, p), srv.policyServers()
}

// traitsOf returns the traits of point p's policy over its servers.
func traitsOf(p model.Point, srv servers) policy.Traits {
	cfg, ps := policyOf(p, srv)
	return cfg.Traits(ps)
}

// shares returns each class's per-server arrival rate under a load-blind policy, one whose split of the arrivals is
// fixed in advance (policy.Traits.Split: equal shares, or shares ∝ weight), so each server's arrival rate is known;
// nil for load-aware policies.
func (s servers) shares(p model.Point) []float64 {
	split := traitsOf(p, s).Split
	if split == policy.LoadAware || split == policy.SplitByKey { // by key: refused by Check (the jobs carry no key)
		return nil
	}
	total := p[pLambda].F * float64(s.n)
	out := make([]float64, len(s.classes))
	if split == policy.SplitEqual || s.weight == nil {
		for i := range out {
			out[i] = total / float64(s.n)
		}
		return out
	}
	sum := 0.0
	for i, c := range s.classes {
		sum += float64(c.Count) * s.weight[i]
	}
	for i := range s.classes {
		out[i] = total * s.weight[i] / sum
	}
	return out
}

// instability says why point p has no steady state, or "" when no sufficient condition for instability holds.
func instability(p model.Point, s servers) string {
	total, capacity := p[pLambda].F*float64(s.n), s.capacity()
	if total >= capacity {
		return fmt.Sprintf("load %v ≥ 1: arrivals (%v per unit time) reach the total service capacity (%v): the system is unstable (queues grow without bound)", p[pLoad].F, total, capacity)
	}
	shares := s.shares(p)
	for i, c := range s.classes {
		if shares != nil && shares[i] >= c.Rate {
			return fmt.Sprintf("%s sends each server of class %d (rate %v) %.4g jobs per unit time, at or above its rate: those queues grow without bound", policy.Registry[p[pPolicy].I].Name, i+1, c.Rate, shares[i])
		}
	}
	return ""
}

// excess is the rate at which jobs pile up: Σ over overloaded servers of (arrival rate − service rate), or the total
// excess for load-aware policies.
func (s servers) excess(p model.Point) float64 {
	shares := s.shares(p)
	if shares == nil {
		return max(0, p[pLambda].F*float64(s.n)-s.capacity())
	}
	e := 0.0
	for i, c := range s.classes {
		e += float64(c.Count) * max(0, shares[i]-c.Rate)
	}
	return e
}

// MaxServers bounds n (the servers' state takes about 40 bytes each: 2.7 GB at the bound).
const MaxServers = 1 << 26

// maxBacklog bounds the jobs an unstable run may accumulate (about 1.6 GB of arrival times at 8 bytes each, with the
// rings' doubling).
const maxBacklog = 1e8

// Cost implements model.Model: about two events (arrival, departure) per job, and each pick's reads of the servers
// (policy.Traits.PickEvents).
func (Model) Cost(p model.Point) float64 {
	jobs := p[pLambda].F * float64(p[pN].I) * p[pHorizon].F
	tr := policy.Registry[p[pPolicy].I].Configure(params, p).Traits(policy.Servers{N: int(p[pN].I)})
	return jobs * (2 + tr.PickEvents())
}

// EventsPerSecond implements model.Rater: 2.5·10^7 events per CPU-second (2.0–2.5·10^7 for random, round robin,
// JSQ(d), JSQ and least_request at n = 100, and the homo and supermarket-tail experiments within 5% of it), and
// 1.4·10^7 for peak_ewma, whose picks decay their estimates with an exponential (measured on the project's machine,
// 2026-12-02; experiments/sweep TestPlanRates -calibrate).
func (Model) EventsPerSecond(p model.Point) float64 {
	if policy.Registry[p[pPolicy].I].Name == "peak_ewma" {
		return 1.4e7
	}
	return 2.5e7
}

// Run implements model.Model: the measured columns; the theory columns are Theory's.
func (Model) Run(ctx context.Context, p model.Point, seed model.Seed) (schema.Row, error) {
	srv := serversOf(p)
	cfg := config{n: srv.n, lambda: p[pLambda].F, horizon: p[pHorizon].F, warmup: p[pWarmup].F, mu: srv.mu, rate: srv.rate}
	pc, ps := policyOf(p, srv)
	streams := sim.NewStreams(seed)
	out, err := simulate(ctx, cfg, streams, newFresh(pc.New(ps), pc.Traits(ps).Observe == policy.AtCompletion, streams))
	if err != nil {
		return nil, err
	}
	row := metrics.NewRow()
	out.set(row, instability(p, srv) != "")
	return row.Row(), nil
}

// Theory implements model.Theorist: theory's closed forms (none for an unstable point), computed once for the
// point's replications (see sharedTheory).
func (Model) Theory(p model.Point) model.Theory {
	srv := serversOf(p)
	if instability(p, srv) != "" {
		return nil
	}
	return sharedTheory(metrics, func(k int) closedForm { return theory(p, srv, k) })
}

// noTheory is the theory columns where no closed form applies: all null.
func noTheory() closedForm { return closedForm{} }

// set fills the measured columns shared by the supermarket and bulletin-board models, from mean_sojourn to unstable.
func (out outcome) set(row *schema.Builder, unstable bool) {
	if out.sojourns.Count() > 0 { // null, not NaN, when no job arrived in the window
		row.Set(colMeanSojourn, schema.Float(out.sojourns.Mean()))
		row.Set(colP50Sojourn, schema.Float(out.sojourns.Quantile(0.5)))
		row.Set(colP99Sojourn, schema.Float(out.sojourns.Quantile(0.99)))
	}
	row.Set(colQueueTail, schema.List(out.tail))
	row.Set(colMeanMaxQueue, schema.Float(out.meanMax))
	row.Set(colPeakQueue, schema.Int(int64(out.peak)))
	row.Set(colJobs, schema.Int(out.sojourns.Count()))
	row.Set(colEvents, schema.Int(out.events))
	row.Set(colUnstable, schema.Boolean(unstable))
}

// theory returns the theory columns for point p, with theory_queue_tail of length k.
func theory(p model.Point, srv servers, k int) closedForm {
	lambda := p[pLambda].F
	var mean, p99 float64
	var tail []float64
	var source string
	// The policy's law, as it declares it: random splits into independent Poisson streams; the round-robin sequence
	// (smooth_wrr and wrr_expanded with equal weights too) gives each server Erlang-n gaps; JSQ(d) has its mean field.
	tr := traitsOf(p, srv)
	if !srv.uniform {
		switch {
		case tr.Family == policy.FamilyRandom:
			mean, p99, tail, source = analytic.RandomHeteroMeanSojourn(lambda, srv.classes), analytic.RandomHeteroSojournQuantile(lambda, srv.classes, 0.99), analytic.RandomHeteroTail(lambda, srv.classes, k), SourceMM1Hetero
		case tr.Sequence == policy.RoundRobinSequence:
			mean, p99, tail, source = analytic.RoundRobinHeteroMeanSojourn(lambda, srv.classes), analytic.RoundRobinHeteroSojournQuantile(lambda, srv.classes, 0.99), analytic.RoundRobinHeteroTail(lambda, srv.classes, k), SourceRRHetero
		default:
			return noTheory()
		}
		return closedForm{mean: schema.Float(mean), p99: schema.Float(p99), tail: tail, source: source}
	}
	// Identical servers of rate μ: the unit-rate formulas at load ρ = λ/μ, with times divided by μ.
	n, rho, mu := srv.n, lambda/srv.mu, srv.mu
	if !(rho < 1) {
		return noTheory()
	}
	switch {
	case tr.Family == policy.FamilyRandom:
		mean, p99, tail, source = analytic.MM1MeanSojourn(rho, 1), analytic.MM1SojournQuantile(rho, 1, 0.99), analytic.MM1Tail(rho, k), SourceMM1
	case tr.Sequence == policy.RoundRobinSequence:
		mean, p99, tail, source = analytic.RoundRobinMeanSojourn(rho, n), analytic.RoundRobinSojournQuantile(rho, n, 0.99), analytic.RoundRobinTail(rho, n, k), SourceRoundRobin
	case tr.Family == policy.FamilyJSQd:
		d := tr.D
		mean, p99, tail, source = analytic.JSQdMeanSojourn(rho, d), analytic.JSQdSojournQuantile(rho, d, 0.99), analytic.JSQdTail(rho, d, k), SourceMeanField
		if d == 1 {
			source = SourceMM1
		}
	default:
		return noTheory()
	}
	return closedForm{mean: schema.Float(mean / mu), p99: schema.Float(p99 / mu), tail: tail, source: source}
}
