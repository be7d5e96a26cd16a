package resilience

import (
	"math"

	"github.com/DataDog/sketches-go/ddsketch"
)

// HedgeAccuracy is the relative accuracy of the running quantile that sets the hedge delay with hedge_quantile: the
// delay is within 1% of the window's true quantile (DDSketch's guarantee).
const HedgeAccuracy = 0.01

// A hedger holds the hedge delay: fixed (hedge), or the q-quantile (hedge_quantile) of the time from sending an
// attempt to its request's success (the attempt's or its hedge's answer, whichever came first) over the successes
// seen in the last whole window of hedge_window ms — windows [i·w, (i+1)·w), each
// estimated once it has ended, from a DDSketch cleared for the next. This is the shape of Finagle's
// BackupRequestFilter (a delay at a latency percentile, read from a windowed histogram and refreshed periodically:
// 30 s windows refreshed every 3 s there, one window refreshed at its end here), with Dean & Barroso's p95. A window
// with fewer than ⌈1/(1 − q)⌉ samples (too few to have a q-quantile above its maximum) keeps the previous delay.
// These are the latencies the client sees, hedging's effect included; a loser's latency is never seen (its answer
// is withdrawn), so a per-attempt estimate would be biased low and drift. At light load the q-quantile of the
// hedged latency T = 4·hop + min(X₁, h + X₂) is 4·hop + (the q-quantile of X) whenever h is below it, so the delay's
// fixed point is that value and exactly a fraction 1 − q of the attempts is hedged there (analytic.Hedged).
type hedger struct {
	q, window float64
	delay     float64 // current delay, ms; +Inf: none yet
	sk        *ddsketch.DDSketch
	end       float64 // end of the current window
	min       float64 // fewest samples for an estimate
}

// newHedger returns c's hedger.
func newHedger(c config) *hedger {
	h := &hedger{q: c.hedgeQ, window: c.hedgeWindow, delay: c.hedge, end: c.hedgeWindow}
	if h.q > 0 {
		sk, err := ddsketch.NewDefaultDDSketch(HedgeAccuracy)
		if err != nil {
			panic("resilience: " + err.Error())
		}
		h.sk = sk
		h.min = math.Ceil(1 / (1 - h.q))
	}
	return h
}

// add records a success x ms after its attempt was sent, seen at now.
func (h *hedger) add(now, x float64) {
	if h.sk == nil {
		return
	}
	if now >= h.end {
		if h.sk.GetCount() >= h.min {
			if v, err := h.sk.GetValueAtQuantile(h.q); err == nil {
				h.delay = v
			}
		}
		h.sk.Clear()
		h.end = (math.Floor(now/h.window) + 1) * h.window
	}
	_ = h.sk.Add(x) // x ≥ 0 is always accepted
}
