package resilience

import (
	"lbsweep/model/policy"
	"lbsweep/model/sim"
)

// A guard is a balancer-side mechanism: it sees every attempt the balancer sends and every result it gets back, may
// bar servers from dispatch (an open circuit breaker, an ejected outlier), and may act on the balancer's outstanding
// counts (errors counted as active requests) or feed its policy (per-server load reports). Guards run in the order
// of engine.guards; each is one run's state, built from the config at the start of the run.
type guard interface {
	// bars reports whether server k is barred from dispatch now. The engine asks after the guard calls
	// engine.recheck(k), and keeps the answer in the policy's eligibility mask.
	bars(k int) bool
	// sent: the balancer sent attempt a to server k at e.now (after the pick, before the hop).
	sent(e *engine, k int, a int32)
	// result: the balancer learnt attempt a's result from server k at e.now: policy.OK or policy.Error (an answer),
	// policy.Rejected (a 503: a full queue, a limiter), policy.Timeout (its timeout fired) or policy.Cancelled (a
	// hedge's loser, withdrawn by its client before its answer: no verdict on the server); latency is e.now − the
	// dispatch time. Every attempt sent gets exactly one result, unless the run ends first.
	result(e *engine, k int, a int32, o policy.Outcome, latency float64)
	// fire handles an evGuard event addressed to this guard with payload p (0 ≤ p < 2^20), scheduled through
	// engine.guardAt.
	fire(e *engine, p int32)
}

// guardShift splits an evGuard event's index into the guard's position in engine.guards (high bits) and its payload.
const guardShift = 20

// guardAt schedules an evGuard event for guard g with payload p (0 ≤ p < 2^20: a server index, or a guard's own
// code) at t.
func (e *engine) guardAt(t float64, g int, p int32) sim.Handle {
	return e.ev.Schedule(t, event{evGuard, int32(g)<<guardShift | p})
}

// recheck recomputes server k's eligibility (in the fleet and barred by no guard) after a guard's state changed.
func (e *engine) recheck(k int) {
	ok := e.servers[k].active
	for _, g := range e.guards {
		if !ok {
			break
		}
		ok = !g.bars(k)
	}
	if ok != e.eligible[k] {
		e.eligible[k] = ok
		if ok {
			e.nEligible++
		} else {
			e.nEligible--
		}
	}
}

// exit is how an admitted attempt left its server, as an admission control is told.
type exit uint8

// Exits.
const (
	// exitServed: its service ended (a success or a 500 after the work; attempt.outcome says which, and
	// attempt.timedOut whether the balancer still waited for it).
	exitServed exit = iota
	// exitDropped: it left unserved or cut short: shed from a LIFO queue, skipped as expired (drop_expired), or
	// lost in a kill.
	exitDropped
	// exitCancelled: its client withdrew it (a hedge's loser) before or during its service.
	exitCancelled
)

// An admission is a server-side admission control (an adaptive concurrency limit): it decides at an attempt's
// arrival whether its server takes it (in service plus queued), or answers 503 at once, and learns from the attempts
// it admitted when they leave.
type admission interface {
	// admit: attempt a arrives at live server k at e.now; false rejects it with a 503 (its outcome policy.Rejected).
	admit(e *engine, k int, a int32) bool
	// left: attempt a, admitted at server k at attempt.admitted, left at e.now, as how says.
	left(e *engine, k int, a int32, how exit)
	// limit is server k's current limit on attempts in service plus queued.
	limit(k int) float64
	// binLimit is the time average of server k's limit over the series bin that ends at t (not before any sample
	// so far), and starts the next bin there.
	binLimit(k int, t float64) float64
	// meanLimit is the time average over [warmup, t] of the servers' limits, averaged over the servers (t: the
	// horizon, after the last event).
	meanLimit(t float64) float64
}

// newGuards builds the run's balancer-side mechanisms from e.c, in the order they see results.
func (e *engine) newGuards() []guard {
	var gs []guard
	if e.c.cbThreshold > 0 {
		e.brk = newBreaker(e.c, len(gs))
		gs = append(gs, e.brk)
	}
	if c := e.c.outlier; c.consecutive > 0 {
		g := &outlierGuard{d: newOutlierDetector(c, e.c.n), idx: len(gs)}
		gs = append(gs, g)
		e.guardAt(c.interval, g.idx, 0)
		e.out.ejectionsOn = true
	}
	if e.c.errorsActive > 0 {
		gs = append(gs, &errorsActive{hold: e.c.errorsActive, idx: len(gs), held: make([]int, e.c.n)})
	}
	if e.c.wrr.update > 0 {
		g := newWRR(e, len(gs))
		gs = append(gs, g)
		e.pol = g // A58 replaces the round robin it falls back to (Check requires one)
	}
	if f := newFaultWindow(e.c); f != nil {
		gs = append(gs, f)
	}
	return gs
}

// A finisher is a guard with something to record at the end of the run (at the horizon, before the books).
type finisher interface {
	finish(e *engine)
}

// newAdmission builds the run's admission control from e.c (nil: none).
func (e *engine) newAdmission() admission {
	if e.c.lim.algo != LimiterNone {
		return newLimiter(e)
	}
	return nil
}
