package policy

import (
	"math"

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

func newPeakEWMA(a Args, s Servers) Policy {
	p := &peakEWMA{tau: a.Tau, estimate: make([]float64, s.N), updated: make([]float64, s.N)}
	for k := range p.estimate {
		p.estimate[k] = a.DefaultRTT
	}
	return p
}

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

func (p *peakEWMA) Pick(l *sim.Levels, r *sim.Rand, now float64) int {
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

// Done implements Observer: a response from server k after rtt, at time now.
func (p *peakEWMA) Done(k int, rtt, now float64) { p.update(k, rtt, now) }
