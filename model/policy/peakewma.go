package policy

import (
	"math"

	"lbsweep/model"
	"lbsweep/model/sim"
)

const peakEWMADoc = "P2C over peak-EWMA cost (tower 0.4.13 tower/src/load/peak_ewma.rs; Finagle p2cPeakEwma): two " +
	"distinct servers sampled, each one's RTT estimate decayed toward 0 to now, cost = estimate·(outstanding+1) with " +
	"outstanding = its queue length, the lower cost wins (ties: the first sampled); a response's RTT replaces a lower " +
	"estimate at once (the peak) and a higher one decays in with weight 1−e^(−Δ/τ). Args tau, default_rtt " +
	"(seed 002 §5, seed 000 §5)"

// peakEWMA is tower's PeakEwma load (tower 0.4.13, tower/src/load/peak_ewma.rs, RttEstimate::update and decay) under
// tower's p2c balancer (tower/src/balance/p2c: two distinct endpoints, the one with lower load wins, the first on a
// tie). Each server k keeps an estimate r̂ and the time of its last update. update(rtt, now) sets r̂ = rtt when
// r̂ < rtt (the peak) and otherwise r̂ = r̂·e^(−Δ/τ) + rtt·(1 − e^(−Δ/τ)) with Δ = now − last update; either way the
// update time becomes now. Computing a cost first calls update(0, now), so an estimate decays toward 0 while its
// server is not answering, then cost = r̂·(outstanding + 1). Estimates start at default_rtt at time 0. Note that the
// decay at cost time is an update: it moves the update time, which changes how the next response blends in (as in
// tower).
type peakEWMA struct {
	tau      float64
	estimate []float64 // r̂ per server, in the model's time unit
	updated  []float64 // time of the last update per server
}

// peakEWMAArgs are peak_ewma's arguments: tau (required) and default_rtt (default 1).
var peakEWMAArgs = []Arg{
	{Name: "tau", Required: true},
	{Name: "default_rtt", Default: model.FloatValue(1)},
}

// PeakEWMAConfig is peak_ewma's configuration (tower 0.4.13, tower/src/load/peak_ewma.rs).
type PeakEWMAConfig struct {
	// Tau is the decay time constant of the RTT estimate, in the model's time unit (`tau`: tower's `decay`, Finagle's
	// decayTime), finite and > 0.
	Tau float64
	// DefaultRTT is every server's estimate before its first response, in the model's time unit (`default_rtt`,
	// default 1), finite and ≥ 0.
	DefaultRTT float64
}

func buildPeakEWMA(v Values) Config {
	return PeakEWMAConfig{Tau: v[argTau].F, DefaultRTT: v[argDefaultRTT].F}
}

// Check implements Config: tau and default_rtt.
func (c PeakEWMAConfig) Check(Servers) error {
	// tower PeakEwma::new: `debug_assert!(decay_ns > 0.0, "decay_ns must be positive")`.
	if !(c.Tau > 0 && finite(c.Tau)) {
		return issue("tau", "%v: need a finite decay time > 0", c.Tau)
	}
	// tower RttEstimate::new: `debug_assert!(0.0 < rtt_ns, "rtt must be positive")`. Deviation: 0 is accepted here
	// (every server starts as if idle and fast; the first costs then tie at 0 and the first sampled wins).
	if !(c.DefaultRTT >= 0 && finite(c.DefaultRTT)) {
		return issue("default_rtt", "%v: need a finite default RTT ≥ 0", c.DefaultRTT)
	}
	return nil
}

// New implements Config.
func (c PeakEWMAConfig) New(s Servers) Policy {
	p := &peakEWMA{tau: c.Tau, estimate: make([]float64, s.N), updated: make([]float64, s.N)}
	for k := range p.estimate {
		p.estimate[k] = c.DefaultRTT
	}
	return p
}

// Traits implements Config: load-aware, observes at completion, two reads per pick; eligibility is not honored.
func (PeakEWMAConfig) Traits(Servers) Traits { return Traits{Observe: AtCompletion, Reads: 2} }

func (p *peakEWMA) update(k int, rtt, now float64) float64 {
	if p.estimate[k] < rtt {
		p.estimate[k] = rtt
	} else {
		decay := math.Exp(-(now - p.updated[k]) / p.tau)
		p.estimate[k] = p.estimate[k]*decay + rtt*(1-decay)
	}
	p.updated[k] = now
	return p.estimate[k]
}

func (p *peakEWMA) cost(l *sim.Levels, k int, now float64) float64 {
	return p.update(k, 0, now) * float64(l.Len(k)+1)
}

// Pick implements Policy (the view's eligibility is ignored).
func (p *peakEWMA) Pick(v View, req Request, r *sim.Rand) int {
	l, now := v.Loads, req.Now
	n := l.N()
	if n == 1 {
		return 0
	}
	a, b := r.IntN(n), r.IntN(n-1)
	if b >= a {
		b++
	}
	if p.cost(l, a, now) <= p.cost(l, b, now) {
		return a
	}
	return b
}

// Observe implements Observer: a response from server k after rtt, at time now, whatever its outcome (tower's Handle
// records the round trip when it is dropped, however the request ended).
func (p *peakEWMA) Observe(k int, rtt, now float64, _ Outcome) { p.update(k, rtt, now) }
