// Package supermarket is the supermarket model: n identical FIFO servers with Exp(1) service, Poisson arrivals at
// total rate λ·n, and a dispatch policy from model/policy that sends each arrival to one server on arrival
// (Mitzenmacher, Richa & Sitaraman, "The Power of Two Random Choices: A Survey of Techniques and Results", 2001, §4;
// seed 002 §1–§2).
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
// the policy's pick.
//
// # Measurement
//
// Jobs that arrive in [warmup, horizon) are measured; at the horizon arrivals stop and the system drains, so every
// measured sojourn is complete (no censoring bias). Time averages (queue_tail, mean_max_queue) are exact integrals
// over [warmup, horizon). Percentiles come from a DDSketch with relative error ≤ sim.RelativeAccuracy (0.1%); the
// mean is exact.
package supermarket

import (
	"fmt"
	"math"

	"lbsweep/analytic"
	"lbsweep/model"
	"lbsweep/model/policy"
	"lbsweep/model/sim"
	"lbsweep/results"
)

// Model is the supermarket model; its zero value is ready to use.
type Model struct{}

// Parameter indices into Params() and a Point.
const (
	pN = iota
	pLambda
	pHorizon
	pWarmup
	pPolicy
	pD
	pReplacement
)

const timeUnit = "mean service times"

var params = []model.Param{
	pN:           {Name: "n", Kind: model.Int, Doc: "number of servers, 1 ≤ n ≤ 2^31−1"},
	pLambda:      {Name: "lambda", Kind: model.Float, Unit: "jobs per server per unit time", Doc: "arrival rate per server (load), 0 < λ < 1 for stability; total arrival rate λ·n"},
	pHorizon:     {Name: "horizon", Kind: model.Float, Unit: timeUnit, Doc: "simulated time at which arrivals stop, > 0"},
	pWarmup:      {Name: "warmup", Kind: model.Float, Unit: timeUnit, Default: model.FloatValue(0), Doc: "start of the measurement window, 0 ≤ warmup < horizon"},
	pPolicy:      {Name: "policy", Kind: model.Enum, Choices: policy.Names(), Policy: true, Doc: "dispatch policy name (sweep -list)"},
	pD:           policy.Params[0],
	pReplacement: policy.Params[1],
}

var metrics = []results.Column{
	{Name: "mean_sojourn", Type: results.Float64, Unit: timeUnit, Doc: "mean sojourn time (wait + service) of jobs arriving in [warmup, horizon); exact; null when no job arrived"},
	{Name: "p50_sojourn", Type: results.Float64, Unit: timeUnit, Doc: "median sojourn time, relative error ≤ 0.1% (DDSketch)"},
	{Name: "p99_sojourn", Type: results.Float64, Unit: timeUnit, Doc: "99th-percentile sojourn time, relative error ≤ 0.1% (DDSketch)"},
	{Name: "queue_tail", Type: results.Float64List, Doc: "element k: time-average fraction of servers with at least k+1 jobs (job in service included) over [warmup, horizon); length = longest queue seen"},
	{Name: "mean_max_queue", Type: results.Float64, Unit: "jobs", Doc: "time average over [warmup, horizon) of the longest queue"},
	{Name: "peak_queue", Type: results.Int64, Unit: "jobs", Doc: "longest queue seen in [warmup, horizon)"},
	{Name: "jobs", Type: results.Int64, Doc: "jobs measured (arrivals in [warmup, horizon))"},
	{Name: "events", Type: results.Int64, Doc: "arrivals and departures simulated, warm-up and drain included"},
	{Name: "theory_mean_sojourn", Type: results.Float64, Unit: timeUnit, Doc: "closed-form mean sojourn (see theory_source); null where none applies"},
	{Name: "theory_p99_sojourn", Type: results.Float64, Unit: timeUnit, Doc: "closed-form 99th-percentile sojourn; null where none applies"},
	{Name: "theory_queue_tail", Type: results.Float64List, Doc: "closed-form fraction of servers with at least k+1 jobs, same length as queue_tail; null where none applies"},
	{Name: "theory_source", Type: results.String, Doc: "the formula behind the theory columns; null where none applies"},
}

// Theory sources, as the theory_source column names them.
const (
	SourceMM1        = "M/M/1 (exact at any n)"
	SourceRoundRobin = "E_n/M/1 (exact at any n)"
	SourceMeanField  = "JSQ(d) mean-field fixed point (exact as n -> infinity)"
)

// Name implements model.Model.
func (Model) Name() string { return "supermarket" }

// Doc implements model.Model.
func (Model) Doc() string {
	return "n identical FIFO Exp(1) servers, Poisson arrivals at rate λ·n, a dispatch policy (survey §4; seed 002 §1-§2)"
}

// Params implements model.Model.
func (Model) Params() []model.Param { return params }

// Metrics implements model.Model.
func (Model) Metrics() []results.Column { return metrics }

// Check implements model.Model: n ≥ 1, λ > 0 (λ ≥ 1 only with allowUnstable, then a warning), horizon > 0,
// 0 ≤ warmup < horizon, 1 ≤ d ≤ n for jsq_d.
func (Model) Check(p model.Point, allowUnstable bool) (warnings []string, err error) {
	n, lambda := p[pN].I, p[pLambda].F
	switch {
	case n < 1 || n > math.MaxInt32:
		return nil, model.Issue{Param: "n", Message: fmt.Sprintf("%d servers: need 1 ≤ n ≤ %d", n, math.MaxInt32)}
	case !(lambda > 0) || math.IsInf(lambda, 0):
		return nil, model.Issue{Param: "lambda", Message: fmt.Sprintf("%v: need 0 < λ", lambda)}
	case !(p[pHorizon].F > 0) || math.IsInf(p[pHorizon].F, 0):
		return nil, model.Issue{Param: "horizon", Message: fmt.Sprintf("%v: need a finite horizon > 0", p[pHorizon].F)}
	case !(p[pWarmup].F >= 0) || p[pWarmup].F >= p[pHorizon].F:
		return nil, model.Issue{Param: "warmup", Message: fmt.Sprintf("%v: need 0 ≤ warmup < horizon (%v)", p[pWarmup].F, p[pHorizon].F)}
	}
	if lambda >= 1 {
		msg := fmt.Sprintf("λ = %v ≥ 1: the system is unstable (queues grow without bound)", lambda)
		if !allowUnstable {
			return nil, model.Issue{Param: "lambda", Message: msg + "; set allow_unstable = true to run it anyway"}
		}
		// Jobs pile up at about (λ − 1)·n per unit time, each holding 8 bytes until it is served.
		if backlog := (lambda - 1) * float64(n) * p[pHorizon].F; backlog > maxBacklog {
			return nil, model.Issue{Param: "lambda", Message: fmt.Sprintf("%v: about %.3g jobs would wait at the horizon (more than %.0g): shorten the horizon or lower λ", lambda, backlog, float64(maxBacklog))}
		}
		warnings = append(warnings, msg+"; its statistics are not steady-state")
	}
	if pol := policy.Registry[p[pPolicy].I]; pol.Takes("d") {
		if d := p[pD].I; d < 1 || d > n {
			return nil, model.Issue{Param: "d", Message: fmt.Sprintf("%d: need 1 ≤ d ≤ n (n = %d)", d, n)}
		}
	}
	return warnings, nil
}

// maxBacklog bounds the jobs an unstable run may accumulate (about 1.6 GB of arrival times at 8 bytes each, with the
// rings' doubling).
const maxBacklog = 1e8

// Cost implements model.Model: about two events (arrival, departure) per job.
func (Model) Cost(p model.Point) float64 { return 2 * p[pLambda].F * float64(p[pN].I) * p[pHorizon].F }

// Run implements model.Model.
func (Model) Run(p model.Point, seed model.Seed) ([]results.Cell, error) {
	n := int(p[pN].I)
	cfg := config{
		n: n, lambda: p[pLambda].F, horizon: p[pHorizon].F, warmup: p[pWarmup].F,
		policy: policy.Registry[p[pPolicy].I].New(policy.Args{D: int(p[pD].I), Replacement: p[pReplacement].B}, n),
	}
	out := simulate(cfg, sim.NewStreams(seed))
	sojourn := func(x float64) results.Cell { // null, not NaN, when no job arrived in the window
		if out.sojourns.Count() == 0 {
			return results.Null()
		}
		return results.Float(x)
	}
	row := []results.Cell{
		sojourn(out.sojourns.Mean()),
		sojourn(out.sojourns.Quantile(0.5)),
		sojourn(out.sojourns.Quantile(0.99)),
		results.List(out.tail),
		results.Float(out.meanMax),
		results.Int(int64(out.peak)),
		results.Int(out.sojourns.Count()),
		results.Int(out.events),
	}
	return append(row, theory(p, len(out.tail))...), nil
}

// theory returns the theory columns for point p, with theory_queue_tail of length k.
func theory(p model.Point, k int) []results.Cell {
	n, lambda := int(p[pN].I), p[pLambda].F
	none := []results.Cell{results.Null(), results.Null(), results.Null(), results.Null()}
	if !(lambda < 1) {
		return none
	}
	var mean, p99 float64
	var tail []float64
	var source string
	switch policy.ID(p[pPolicy].I) {
	case policy.Random:
		mean, p99, tail, source = analytic.MM1MeanSojourn(lambda, 1), analytic.MM1SojournQuantile(lambda, 1, 0.99), analytic.MM1Tail(lambda, k), SourceMM1
	case policy.RoundRobin:
		mean, p99, tail, source = analytic.RoundRobinMeanSojourn(lambda, n), analytic.RoundRobinSojournQuantile(lambda, n, 0.99), analytic.RoundRobinTail(lambda, n, k), SourceRoundRobin
	case policy.JSQd:
		d := int(p[pD].I)
		mean, p99, tail, source = analytic.JSQdMeanSojourn(lambda, d), analytic.JSQdSojournQuantile(lambda, d, 0.99), analytic.JSQdTail(lambda, d, k), SourceMeanField
		if d == 1 {
			source = SourceMM1
		}
	default:
		return none
	}
	return []results.Cell{results.Float(mean), results.Float(p99), results.List(tail), results.Str(source)}
}
