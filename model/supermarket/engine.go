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
	mu   float64
	rate []float64
	// sample > 0 records the time series every sample time units over [0, horizon): the longest and shortest queue
	// and the queue lengths of servers 0..track−1.
	sample float64
	track  int
}

type outcome struct {
	sojourns *sim.Sojourns
	tail     []float64
	meanMax  float64
	peak     int
	events   int64
	series   []snapshot
}

// snapshot is one time-series sample.
type snapshot struct {
	t        float64
	max, min int32
	queues   []int32
}

// dispatcher is how arrivals reach the servers: fresh (one policy reading the true queue lengths) or through a
// bulletin board (see board). The engine is generic in it so that the fresh case compiles to direct calls.
type dispatcher interface {
	// next is the time of the dispatcher's next own event (a board refresh); +Inf when there is none.
	next() float64
	// fire handles that event at time t, with lv the true queue lengths.
	fire(t float64, lv *sim.Levels)
	// pick sends the job arriving at time t to a server and returns it.
	pick(lv *sim.Levels, t float64) int
	// done reports the job leaving server k at time t after rtt in the system.
	done(k int, rtt, t float64)
}

// fresh is the supermarket's dispatcher: one policy, the true queue lengths.
type fresh struct {
	p   policy.Policy
	obs policy.Observer // p, when it learns from responses; nil otherwise
	r   *sim.Rand
}

func newFresh(p policy.Policy, s sim.Streams) func(*sim.Levels) fresh {
	obs, _ := p.(policy.Observer)
	return func(*sim.Levels) fresh { return fresh{p: p, obs: obs, r: s.Dispatch} }
}

func (fresh) next() float64                        { return math.Inf(1) }
func (fresh) fire(float64, *sim.Levels)            {}
func (f fresh) pick(lv *sim.Levels, t float64) int { return f.p.Pick(lv, f.r, t) }
func (f fresh) done(k int, rtt, t float64) {
	if f.obs != nil {
		f.obs.Done(k, rtt, t)
	}
}

// simulate runs the exact CTMC described in the package doc, with the dispatcher dispatch builds on the true queue
// lengths.
func simulate[D dispatcher](c config, s sim.Streams, dispatch func(lv *sim.Levels) D) outcome {
	lv := sim.NewLevels(c.n)
	d := dispatch(lv)
	fifo := make([]sim.FIFO, c.n)
	soj := sim.NewSojourns()
	arrivalRate := c.lambda * float64(c.n)

	var out outcome
	t := 0.0
	ta := s.Arrivals.Exp() / arrivalRate // next arrival; +Inf once arrivals have stopped
	ts := math.Inf(1)                    // next time-series sample
	if c.sample > 0 {
		ts = 0
	}
	marked, ended := false, false
	if c.warmup == 0 {
		lv.Mark(0)
		marked = true
	}
	// Unequal rates are simulated by thinning (uniformization): the clock runs at busy·μmax, the server it picks
	// uniformly among the busy ones completes with probability μ_k/μmax, and otherwise nothing happens and the clock is
	// redrawn. Each busy server k then completes at rate exactly μ_k. With equal rates nothing is thinned and no
	// uniform is drawn, so unit-rate runs use the streams exactly as before.
	departed := -1
	// The departure clock td is Exp(busy·μ) from the moment it was drawn; by memorylessness an unfired clock is still
	// exactly distributed while busy is unchanged, so it is redrawn only when it fires or busy changes.
	busy, td := 0, math.Inf(1)
	thin := c.rate != nil
	tx := min(d.next(), ts) // the next board event or sample (+Inf for the supermarket without a series)
	for {
		if b := lv.Count(1); b != busy {
			busy, td = b, math.Inf(1)
			if busy > 0 {
				td = t + s.Service.Exp()/(float64(busy)*c.mu)
			}
		}
		next := min(ta, td)
		// Board refreshes and samples happen before the horizon, in time order with the other events (ties: first).
		if tx <= next && tx < c.horizon {
			if tx == ts {
				out.series = append(out.series, snap(lv, ts, c.track))
				ts = float64(len(out.series)) * c.sample // multiples of sample, no drift from repeated addition
			} else {
				d.fire(tx, lv)
			}
			tx = min(d.next(), ts)
			continue
		}
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
		if thin && ta > td {
			departed = lv.Busy(s.Service.IntN(busy))
			if s.Service.Float64()*c.mu >= c.rate[departed] {
				td = t + s.Service.Exp()/(float64(busy)*c.mu) // thinned: no departure
				continue
			}
		}
		out.events++
		if ta <= td {
			k := d.pick(lv, t)
			fifo[k].Push(t)
			lv.Up(k, t)
			ta = t + s.Arrivals.Exp()/arrivalRate
			continue
		}
		k := departed
		if !thin {
			k = lv.Busy(s.Service.IntN(busy))
		}
		arrived := fifo[k].Pop()
		lv.Down(k, t)
		busy = -1 // the clock fired: draw the next one
		d.done(k, t-arrived, t)
		if arrived >= c.warmup && arrived < c.horizon {
			soj.Add(t - arrived)
		}
	}
	out.sojourns = soj
	return out
}

// snap records the state at time t.
func snap(lv *sim.Levels, t float64, track int) snapshot {
	m, _ := lv.Shortest()
	sn := snapshot{t: t, max: lv.Max(), min: m, queues: make([]int32, min(track, lv.N()))}
	for k := range sn.queues {
		sn.queues[k] = lv.Len(k)
	}
	return sn
}
