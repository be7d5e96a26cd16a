package policy

import (
	"math"

	"lbsweep/model"
	"lbsweep/model/sim"
)

const leastLatencyDoc = "seed 004's least EWMA latency (time-decayed, 1 s): the server with the lowest latency " +
	"estimate wins (ties: tie, default random; with d, the same over d distinct servers sampled), each response's " +
	"round trip rtt at time now moving its server's estimate with weight w = 1−e^(−Δ/τ), Δ the time since that " +
	"server's last sample, estimate ← estimate·(1−w) + rtt·w (Finagle PeakEwma's time decay without its peak rule or " +
	"outstanding factor); ok, error, rejected and timeout answers are samples, cancelled ones are not. Args tau " +
	"(default 1000: 1 s in ms), default_rtt, d, tie (seed 004; Linkerd, Beyond Round Robin)"

// leastLatency is seed 004's "least EWMA latency (time-decayed, 1 s)": per server a latency estimate, an
// exponentially time-weighted moving average of the round trips its responses took, and each pick the server with the
// lowest estimate (every eligible server, or d distinct ones sampled: power of d choices over the same score; a tie
// goes to a uniformly random tied candidate by default, tie = random, or the first compared, tie = first). The score
// is the estimate alone: unlike peak_ewma (tower, Finagle) it has no peak rule and no (outstanding + 1) factor, so it
// reads the servers' load only through the latencies their answers take (queueing delay included), never View.Loads.
//
// The update. On a response from server k after rtt, at time now, with Δ = now − (the time of k's last sample; 0
// before its first),
//
//	w = 1 − e^(−Δ/τ),   estimate ← estimate·(1 − w) + rtt·w,
//
// (computed as estimate + w·(rtt − estimate), the same value, which a sample equal to the estimate leaves exactly
// unchanged): the EWMA of an unevenly spaced series with time constant τ: a sample's weight grows with the time since
// the one before it, so the estimate forgets its past at rate 1/τ in time, however often the server answers (half of it
// in τ·ln 2), rather than by a fixed fraction per response as seed 000's ewma does. It is the blend of Finagle's
// PeakEwma (finagle-core/src/main/scala/com/twitter/finagle/loadbalancer/PeakEwma.scala at commit 1e8497e,
// Metric.observe: w = exp(−td/Tau), cost = cost·w + rtt·(1−w), its w being our 1 − w) and of tower 0.4.13's
// RttEstimate::update, without their peak rule (a higher sample there replaces the estimate at once) and without their
// decay toward 0 at pick time: here the estimate changes only when its server answers, so a server the policy no longer
// picks keeps the estimate it had until every other estimate rises above it. With a full scan the policy therefore
// herds: the lowest estimate takes every request until its answers, late by the queue they build, lift it above the
// next, and a server drained after a spell of slow answers stays idle at its high estimate. Power of d choices softens
// the herd (the lowest estimate is in only a share d/n of the samples) but not the idling: the highest estimate loses
// every sample it is in. Two answers at the same time give the second weight 0. Estimates start at default_rtt at time
// 0, so a first answer at time t has weight 1 − e^(−t/τ): the start is forgotten over about τ of answers.
//
// Outcomes. Seed 004 says only that each balancer keeps its own "latency averages" and does not say which answers
// feed them; the natural reading, and what Finagle and tower do, is that every answer's latency is a sample: Finagle
// calls Metric.end (and so observe) on a session's close and on a failed acquisition alike (the Return and Throw
// branches of PeakEwmaNode.apply), and tower's Handle records the round trip when it is dropped, however the
// request ended. So OK, Error (a 500 after the server's error latency), Rejected (a 503 at admission) and Timeout
// (the balancer's 504, with latency = the timeout, a lower bound on what the server would have taken) each move the
// estimate. The consequences are the real ones: a server that fails fast looks fast and attracts traffic (the
// sinkhole; linkerd2-proxy PR #4537 reports it of tower's PeakEwma with fast 503s), and a server whose answers time
// out is estimated at the timeout, not at its true latency. Cancelled is not an answer (the request was withdrawn:
// its elapsed time measures the race it lost, not the server; see Outcome) and leaves the estimate and its time
// unchanged; tower and Finagle would record it.
//
// Seed 004's parameter "1 s" is tau = 1000 in the resilience model's milliseconds, the default; other models'
// time units (mean service times, ticks) want their own tau.
type leastLatency struct {
	scorer
	tau     float64
	est     []float64 // latency estimate per server, in the model's time unit
	updated []float64 // time of each server's last sample (0 before the first)
}

// leastLatencyArgs are least_latency's arguments, in Params order: d (null: every server), tau (default 1000: seed
// 004's 1 s in ms), default_rtt (default 1, as peak_ewma) and tie (default random).
var leastLatencyArgs = []Arg{
	{Name: "d"},
	{Name: "tau", Default: model.FloatValue(1000)},
	{Name: "default_rtt", Default: model.FloatValue(1)},
	{Name: "tie", Default: model.IntValue(int64(TieRandom))},
}

// LeastLatencyConfig is least_latency's configuration.
type LeastLatencyConfig struct {
	// ScoreConfig is the candidate rule: D (`d`: 0 for every server, else 1 ≤ D ≤ n sampled) and Tie (`tie`,
	// default random).
	ScoreConfig
	// Tau is the time constant of the estimate's decay, in the model's time unit (`tau`, default 1000: seed 004's
	// 1 s in ms), finite and > 0.
	Tau float64
	// DefaultRTT is every server's estimate before its first response, in the model's time unit (`default_rtt`,
	// default 1), finite and ≥ 0.
	DefaultRTT float64
}

func buildLeastLatency(v Values) Config {
	return LeastLatencyConfig{ScoreConfig: scoreConfigOf(v), Tau: v[argTau].F, DefaultRTT: v[argDefaultRTT].F}
}

// Check implements Config: d, tau and default_rtt.
func (c LeastLatencyConfig) Check(s Servers) error {
	if err := c.check(s); err != nil {
		return err
	}
	// Finagle PeakEwma's Metric: `require(Tau > 0)`; tower PeakEwma::new: `debug_assert!(decay_ns > 0.0)`. An
	// infinite τ would freeze every estimate at default_rtt.
	if !(c.Tau > 0 && finite(c.Tau)) {
		return issue("tau", "%v: need a finite decay time > 0", c.Tau)
	}
	// tower RttEstimate::new asserts 0 < rtt; as peak_ewma, 0 is accepted (every server starts as if instant, and
	// the first estimates tie).
	if !(c.DefaultRTT >= 0 && finite(c.DefaultRTT)) {
		return issue("default_rtt", "%v: need a finite default RTT ≥ 0", c.DefaultRTT)
	}
	return nil
}

// New implements Config.
func (c LeastLatencyConfig) New(s Servers) Policy {
	p := &leastLatency{scorer: newScorer(c.ScoreConfig, s.N), tau: c.Tau, est: make([]float64, s.N),
		updated: make([]float64, s.N)}
	for k := range p.est {
		p.est[k] = c.DefaultRTT
	}
	return p
}

// Traits implements Config: the candidate rule's facts (eligibility honored; n reads per pick, or d), observing at
// completion. Its split is load-aware, though its score never reads View.Loads: the estimates follow the latencies
// the servers answer with, which grow with their queues, so no server's share is fixed in advance (the registry's
// load-blindness test feeds an observer the latencies its view implies). With d = 1 the one candidate is a uniform
// sample whatever the estimates: an equal split. No theory family.
func (c LeastLatencyConfig) Traits(s Servers) Traits {
	t := c.traits(s)
	t.Observe = AtCompletion
	return t
}

func (p *leastLatency) score(_ *sim.Levels, k int) float64 { return p.est[k] }

// Pick implements Policy.
func (p *leastLatency) Pick(v View, req Request, r *sim.Rand) int { return p.pick(v, req.Key, r, p) }

// Observe implements Observer: server k answered after latency at time now; every outcome but Cancelled is a sample
// (see leastLatency). It panics if now precedes k's last sample (a model reporting out of time order).
func (p *leastLatency) Observe(k int, latency, now float64, outcome Outcome) {
	if outcome == Cancelled {
		return
	}
	dt := now - p.updated[k]
	if dt < 0 {
		panic("policy: least_latency: response observed before the previous one (time order)")
	}
	w := -math.Expm1(-dt / p.tau) // 1 − e^(−Δ/τ), accurate for small Δ/τ
	p.est[k] += w * (latency - p.est[k])
	p.updated[k] = now
}

// Estimates returns the latency estimates, one per server (the policy's own slice: read, do not keep).
func (p *leastLatency) Estimates() []float64 { return p.est }
