package policy

import (
	"lbsweep/model/sim"
)

const ewmaDoc = "seed 000's peak-EWMA: score = estimate·(outstanding+1), the lowest wins (ties: tie), each observed " +
	"latency moving the estimate with a fixed weight, estimate ← (1−α)·estimate + α·latency, from the server's " +
	"configured latency; reads latencies, never outcomes. Unlike peak_ewma (tower/Finagle) it has no peak rule and no " +
	"decay in time, and scores every server unless d is set (seed 000 §5.4, §5.6)"

const ewmaSuccessDoc = "seed 000's fix (PeakEwmaOverSuccess): ewma's score divided by the server's Laplace-smoothed " +
	"success rate (ok+1)/(ok+err+2), ok and err counted as responses are observed; the one score that reads " +
	"outcomes (seed 000 §5.5, §6.4)"

// ewma is seed 000's PeakEwma (§5.4) and, with success set, its PeakEwmaOverSuccess (§5.5). Per server it keeps a
// latency estimate; the score is estimate·(outstanding + 1), outstanding being the server's level in sim.Levels (the
// requests sent to it and not yet answered), divided for ewma_success by the Laplace-smoothed success rate
// (ok + 1)/(ok + err + 2), and the scorer takes the lowest (every server, or d sampled; ties by tie).
//
// An observation of latency x sets estimate = (1 − α)·estimate + α·x, the toy's observe line for line, whatever the
// outcome: ewma never reads it (§5.4: "observe takes ok and ignores it"), ewma_success counts it in ok or err. Both
// observe either at completion (OutcomeObserver.Result, or Observer.Done, a success, in models where nothing fails)
// or, with observe = dispatch, at dispatch with the request's eventual latency and outcome (Foreseer), as the toy
// does (§5.6: observe is called right after dispatch with the latency of a request that has just been scheduled).
//
// How it differs from tower's and Finagle's peak EWMA (peak_ewma here; tower 0.4.13 tower/src/load/peak_ewma.rs):
// those weight a response by 1 − e^(−Δ/τ) with Δ the time since the last update and decay the estimate toward 0
// while a server is silent, and a response above the estimate replaces it at once (the peak rule). The seed's has a
// fixed weight α per observation, no decay in time and no peak rule (a high latency moves the estimate by α of the
// difference, like a low one), despite its name; and it scores every server rather than two (P2C) unless d is set.
//
// Starting estimates: each server's configured latency (Servers.Latency: its mean service time, or for a server that
// fails every request, its error latency). The seed's listing does not show the initial value, but its pinned
// results need it: under first-wins ties equal starting values would send the first request to ok0 and an early one
// to ok2, yet its split is [4, 1, 0, 6402] (ok2 never used) and with slots > 1 no request at all reaches a healthy
// backend (§6.1, §7.5).
type ewma struct {
	scorer
	alpha      float64
	atDispatch bool
	success    bool
	est        []float64 // latency estimate per server, in the model's time unit
	ok, err    []int64   // ewma_success: observed successes and failures per server
}

func newEWMA(a Args, s Servers) Policy { return newEWMAPolicy(a, s, false) }

func newEWMASuccess(a Args, s Servers) Policy { return newEWMAPolicy(a, s, true) }

func newEWMAPolicy(a Args, s Servers, success bool) *ewma {
	p := &ewma{scorer: newScorer(a, s.N), alpha: a.Alpha, atDispatch: a.Observe == ObserveDispatch, success: success,
		est: make([]float64, s.N)}
	for k := range p.est {
		p.est[k] = s.latency(k)
	}
	if success {
		p.ok, p.err = make([]int64, s.N), make([]int64, s.N)
	}
	return p
}

func (p *ewma) score(l *sim.Levels, k int) float64 {
	x := p.est[k] * float64(l.Len(k)+1)
	if p.success {
		rate := float64(p.ok[k]+1) / float64(p.ok[k]+p.err[k]+2)
		x /= rate
	}
	return x
}

func (p *ewma) Pick(l *sim.Levels, r *sim.Rand, _ float64) int { return p.pick(l, r, p) }

func (p *ewma) observe(k int, latency float64, ok bool) {
	p.est[k] = (1-p.alpha)*p.est[k] + p.alpha*latency
	if p.success {
		if ok {
			p.ok[k]++
		} else {
			p.err[k]++
		}
	}
}

// Foresee implements Foreseer: observe = dispatch learns here.
func (p *ewma) Foresee(k int, latency, _ float64, ok bool) {
	if p.atDispatch {
		p.observe(k, latency, ok)
	}
}

// Result implements OutcomeObserver: observe = completion learns here.
func (p *ewma) Result(k int, latency, _ float64, ok bool) {
	if !p.atDispatch {
		p.observe(k, latency, ok)
	}
}

// Done implements Observer for models where nothing fails: a success.
func (p *ewma) Done(k int, rtt, now float64) { p.Result(k, rtt, now, true) }

// Estimates returns the latency estimates, one per server (the policy's own slice: read, do not keep). Tests use it
// to compare the policy's state across twin worlds (seed 000 §6.1).
func (p *ewma) Estimates() []float64 { return p.est }

// Outcomes returns ewma_success's observed successes and failures per server (nil for ewma).
func (p *ewma) Outcomes() (ok, err []int64) { return p.ok, p.err }
