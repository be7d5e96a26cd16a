package supermarket

import (
	"math"

	"lbsweep/model/policy"
	"lbsweep/model/sim"
)

type config struct {
	n                       int
	lambda, horizon, warmup float64
	// mu is every server's service rate when rate is nil; otherwise rate[k] is server k's and mu the largest.
	mu     float64
	rate   []float64
	policy policy.Policy
}

type outcome struct {
	sojourns *sim.Sojourns
	tail     []float64
	meanMax  float64
	peak     int
	events   int64
}

// simulate runs the exact CTMC described in the package doc.
func simulate(c config, s sim.Streams) outcome {
	lv := sim.NewLevels(c.n)
	fifo := make([]sim.FIFO, c.n)
	soj := sim.NewSojourns()
	arrivalRate := c.lambda * float64(c.n)

	var out outcome
	t := 0.0
	ta := s.Arrivals.Exp() / arrivalRate // next arrival; +Inf once arrivals have stopped
	marked, ended := false, false
	if c.warmup == 0 {
		lv.Mark(0)
		marked = true
	}
	// The departure clock td is Exp(busy) from the moment it was drawn; by memorylessness an unfired clock is still
	// exactly distributed while busy is unchanged, so it is redrawn only when it fires or busy changes.
	// Unequal rates are simulated by thinning (uniformization): the clock runs at busy·μmax, the server it picks
	// uniformly among the busy ones completes with probability μ_k/μmax, and otherwise nothing happens and the clock is
	// redrawn. Each busy server k then completes at rate exactly μ_k. With equal rates nothing is thinned and no
	// uniform is drawn, so unit-rate runs use the streams exactly as before.
	observer, _ := c.policy.(policy.Observer)
	departed := -1
	busy, td := 0, math.Inf(1)
	for {
		if b := lv.Count(1); b != busy {
			busy, td = b, math.Inf(1)
			if busy > 0 {
				td = t + s.Service.Exp()/(float64(busy)*c.mu)
			}
		}
		next := min(ta, td)
		if !ended && next >= c.horizon {
			// The measurement window closes before this event; arrivals stop at the horizon.
			if !marked {
				lv.Mark(c.warmup)
				marked = true
			}
			out.tail, out.meanMax, out.peak = lv.Window(c.horizon)
			ended = true
			ta = math.Inf(1)
			if busy == 0 {
				break
			}
			next = td
		}
		if next == math.Inf(1) {
			break
		}
		if !marked && next >= c.warmup {
			lv.Mark(c.warmup)
			marked = true
		}
		t = next
		if ta > td && c.rate != nil {
			if k := lv.Busy(s.Service.IntN(busy)); s.Service.Float64()*c.mu >= c.rate[k] {
				td = t + s.Service.Exp()/(float64(busy)*c.mu) // thinned: no departure
				continue
			} else {
				departed = k
			}
		}
		out.events++
		if ta <= td {
			k := c.policy.Pick(lv, s.Dispatch, t)
			fifo[k].Push(t)
			lv.Up(k, t)
			ta = t + s.Arrivals.Exp()/arrivalRate
			continue
		}
		k := departed
		if c.rate == nil {
			k = lv.Busy(s.Service.IntN(busy))
		}
		arrived := fifo[k].Pop()
		lv.Down(k, t)
		busy = -1 // the clock fired: draw the next one
		if observer != nil {
			observer.Done(k, t-arrived, t)
		}
		if arrived >= c.warmup && arrived < c.horizon {
			soj.Add(t - arrived)
		}
	}
	out.sojourns = soj
	return out
}
