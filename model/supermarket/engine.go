package supermarket

import (
	"math"

	"lbsweep/model/policy"
	"lbsweep/model/sim"
)

type config struct {
	n                       int
	lambda, horizon, warmup float64
	policy                  policy.Policy
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
	busy, td := 0, math.Inf(1)
	for {
		if b := lv.Count(1); b != busy {
			busy, td = b, math.Inf(1)
			if busy > 0 {
				td = t + s.Service.Exp()/float64(busy)
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
		out.events++
		if ta <= td {
			k := c.policy.Pick(lv, s.Dispatch)
			fifo[k].Push(t)
			lv.Up(k, t)
			ta = t + s.Arrivals.Exp()/arrivalRate
			continue
		}
		k := lv.Busy(s.Service.IntN(busy))
		arrived := fifo[k].Pop()
		lv.Down(k, t)
		busy = -1 // the clock fired: draw the next one
		if arrived >= c.warmup && arrived < c.horizon {
			soj.Add(t - arrived)
		}
	}
	out.sojourns = soj
	return out
}
