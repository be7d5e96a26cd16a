package supermarket

import (
	"context"
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
	// done reports the job leaving server k at time t after rtt in the system; called only when observes.
	done(k int, rtt, t float64)
	// inline is how the engine may pick without calling pick (policy.InlineNone: call it), and observes whether done
	// does anything; both fixed for the run, so the loop's branches on them are always predicted.
	inline() policy.Inline
	observes() bool
}

// fresh is the supermarket's dispatcher: one policy, the true queue lengths. (Its fields are the ones the committed
// PGO profile, cmd/sweep/default.pgo, was recorded with: simulate's instantiation is named after them, and a profile
// that names another shape guides no inlining in the event loop.)
type fresh struct {
	p   policy.Policy
	obs policy.Observer // p, when it learns from responses (at completion); nil otherwise
	r   *sim.Rand
}

// newFresh returns the fresh dispatcher of policy p, which observes completions when observes is true.
func newFresh(p policy.Policy, observes bool, s sim.Streams) func(*sim.Levels) fresh {
	var obs policy.Observer
	if observes {
		obs = p.(policy.Observer)
	}
	return func(*sim.Levels) fresh { return fresh{p: p, obs: obs, r: s.Dispatch} }
}

func (f fresh) inline() policy.Inline   { return policy.InlineOf(f.p) }
func (f fresh) observes() bool          { return f.obs != nil }
func (fresh) next() float64             { return math.Inf(1) }
func (fresh) fire(float64, *sim.Levels) {}
func (f fresh) pick(lv *sim.Levels, t float64) int {
	return f.p.Pick(policy.View{Loads: lv}, policy.Request{Now: t}, f.r)
}
func (f fresh) done(k int, rtt, t float64) { f.obs.Observe(k, rtt, t, policy.OK) }

// simulate runs the exact CTMC described in the package doc, with the dispatcher dispatch builds on the true queue
// lengths. It returns ctx.Err() when ctx is done (checked about every ctxEvents events).
func simulate[D dispatcher](ctx context.Context, c config, s sim.Streams, dispatch func(lv *sim.Levels) D) (outcome, error) {
	lv := sim.NewLevels(c.n)
	d := dispatch(lv)
	fifo := make([]sim.FIFO, c.n)
	soj := sim.NewSojourns()
	inline, observes := d.inline(), d.observes()
	cursor := 0 // round robin's, when inline
	// Times are Exp(1) draws times tabulated reciprocals of the rates (a multiplication, not a division, per event):
	// the arrival rate λn, and busy·μ for busy = 1..min(n, 2^16), the rest computed when needed.
	perArrival := 1 / (c.lambda * float64(c.n))
	perDeparture := make([]float64, min(c.n, 1<<16)+1)
	for b := 1; b < len(perDeparture); b++ {
		perDeparture[b] = 1 / (float64(b) * c.mu)
	}
	mean := func(busy int) float64 { // the mean time to the next departure clock tick
		if busy < len(perDeparture) {
			return perDeparture[busy]
		}
		return 1 / (float64(busy) * c.mu)
	}

	var out outcome
	t := 0.0
	ta := s.Arrivals.Exp() * perArrival // next arrival; +Inf once arrivals have stopped
	// w holds what the loop does besides events (board events, samples, the warm-up's end, the horizon): in memory, so
	// that an event touches none of it but its gate.
	w := gates{ts: math.Inf(1)} // no time series
	if c.sample > 0 {
		w.ts = 0
	}
	if c.warmup == 0 {
		lv.Mark(0)
		w.marked = true
	}
	// Unequal rates are simulated by thinning (uniformization): the clock runs at busy·μmax, the server it picks
	// uniformly among the busy ones completes with probability μ_k/μmax, and otherwise nothing happens and the clock is
	// redrawn. Each busy server k then completes at rate exactly μ_k. With equal rates nothing is thinned and no
	// uniform is drawn, so unit-rate runs use the streams exactly as before.
	// The departure clock td is Exp(busy·μ) from the moment it was drawn. By memorylessness an unfired clock's residual
	// td − t is, at any time t, still Exp(busy·μ) and independent of everything else, so it is kept while busy is
	// unchanged, and when an arrival changes busy from b ≥ 1 to b' it is rescaled by b/b' (an Exp(bμ) variable times
	// b/b' is Exp(b'μ)) rather than redrawn. A fresh Exp(1) is drawn only when the clock fires or starts from no busy
	// server; busy is kept current by the event that changes it (an arrival at an idle server, a departure).
	busy, td := 0, math.Inf(1)
	thin := c.rate != nil
	w.tx = min(d.next(), w.ts) // the next board event or sample (+Inf for the supermarket without a series)
	w.gate(&c)
	for {
		next := ta // min(ta, td): the times are never NaN or −0
		if td < ta {
			next = td
		}
		if next >= w.g {
			var step gateStep
			if next, step = cross(&w, &c, d, lv, &out, next, td, busy); step == gateStop {
				break
			} else if step == gateAgain {
				continue
			} else if step == gateEnded {
				ta = math.Inf(1) // arrivals stop at the horizon
			}
		}
		t = next
		if ta <= td {
			out.events++
			var k int
			switch inline {
			case policy.InlineTwoChoices: // PickTwoChoices, its draw made here for the profile to inline
				a, b := s.Dispatch.IntN2(c.n, c.n-1)
				k = policy.TwoChoices(lv, a, b)
			case policy.InlineRandom: // PickRandom, its draw made here for the profile to inline
				k = s.Dispatch.IntN(c.n)
			case policy.InlineShortest: // PickShortest, its draw made here for the profile to inline
				if _, ties := lv.Shortest(); ties > 1 {
					k = lv.Sorted(s.Dispatch.IntN(ties))
				} else {
					k = lv.Sorted(0)
				}
			case policy.InlineTwoSampled: // PickTwoSampled, its draws made here for the profile to inline
				a := s.Dispatch.IntN(c.n)
				k = policy.Shorter(lv, a, s.Dispatch.IntN(c.n))
			case policy.InlineRoundRobin:
				k = cursor
				if cursor++; cursor == c.n {
					cursor = 0
				}
			default:
				k = d.pick(lv, t)
			}
			idle := lv.Up(k, t) == 0
			fifo[k].Push(t)
			ta = t + s.Arrivals.Exp()*perArrival
			if idle { // one more busy server: the clock's residual rescaled, or a first draw
				if busy > 0 {
					td = t + (td-t)*(float64(busy)*c.mu)*mean(busy+1)
				} else {
					td = t + s.Service.Exp()*mean(1)
				}
				busy++
			}
			continue
		}
		// A departure, unless thinned (unequal rates). Either way the clock is drawn afresh, at one site, after the
		// departure's bookkeeping (which draws nothing from the service stream).
		k := lv.Busy(s.Service.IntN(busy))
		if !thin || s.Service.Float64()*c.mu < c.rate[k] {
			out.events++
			arrived := fifo[k].Pop()
			if lv.Down(k, t) == 0 {
				busy-- // busy is lv.NumBusy(), kept here as a counter
			}
			if observes {
				d.done(k, t-arrived, t)
			}
			if arrived >= c.warmup && arrived < c.horizon {
				soj.Add(t - arrived)
			}
			if out.events&(ctxEvents-1) == 0 && ctx.Err() != nil { // see ctxEvents
				return outcome{}, ctx.Err()
			}
		}
		if busy > 0 {
			td = t + s.Service.Exp()*mean(busy)
		} else {
			td = math.Inf(1)
		}
	}
	out.sojourns = soj
	return out, nil
}

// gates is the event loop's state besides the events: the next board event or sample tx (+Inf when none), the
// next sample ts, whether the measurement window has opened (marked) and closed (ended), and g, the earliest time
// at which the loop has more to do than an event (see gate).
type gates struct {
	g, tx, ts     float64
	marked, ended bool
}

// gate sets g: a board event or sample before the horizon (tx), the horizon while arrivals run, the warm-up's end
// before it is marked. An event before g takes one comparison; at or after it, cross runs.
func (w *gates) gate(c *config) {
	g := math.Inf(1)
	if w.tx < c.horizon {
		g = w.tx
	}
	if !w.ended {
		g = min(g, c.horizon)
	}
	if !w.marked {
		g = min(g, c.warmup)
	}
	w.g = g
}

// gateStep is what the event loop does after cross.
type gateStep uint8

const (
	gateEvent gateStep = iota // simulate the event at the time cross returned
	gateEnded                 // the same, and arrivals have stopped: the next arrival is +Inf
	gateAgain                 // a board event or sample was handled: choose the next event again
	gateStop                  // no event is left: the run is over
)

// cross handles what comes due at or before the next event, at time next (the departure clock td, busy servers
// busy): board refreshes and samples before the horizon, in time order with the events (ties: first); the close of
// the measurement window at the horizon, where arrivals stop (the next event is then the departure at td); the
// warm-up's end. It returns the time of the event to simulate and what to do. Kept out of the event loop (it runs a
// few times a run, and board refreshes every period), so that the loop's registers are the events' alone.
//
//go:noinline
func cross[D dispatcher](w *gates, c *config, d D, lv *sim.Levels, out *outcome, next, td float64, busy int) (float64, gateStep) {
	if w.tx <= next && w.tx < c.horizon {
		if w.tx == w.ts {
			out.series = append(out.series, snap(lv, w.ts, c.track))
			w.ts = float64(len(out.series)) * c.sample // multiples of sample, no drift from repeated addition
		} else {
			d.fire(w.tx, lv)
		}
		w.tx = min(d.next(), w.ts)
		w.gate(c)
		return next, gateAgain
	}
	step := gateEvent
	if !w.ended && next >= c.horizon {
		// The measurement window closes before this event.
		if !w.marked {
			lv.Mark(c.warmup)
			w.marked = true
		}
		out.tail, out.meanMax, out.peak = lv.Window(c.horizon)
		w.ended = true
		if busy == 0 {
			return next, gateStop
		}
		next, step = td, gateEnded
	}
	if next == math.Inf(1) {
		return next, gateStop
	}
	if !w.marked && next >= c.warmup {
		lv.Mark(c.warmup)
		w.marked = true
	}
	w.gate(c)
	return next, step
}

// ctxEvents is how often simulate checks its context: at a departure whose event count is a multiple of ctxEvents
// (in expectation every 2·ctxEvents events while arrivals run, every ctxEvents in the drain), a mask test per
// departure, the last statement of a departure's bookkeeping. (The PGO profile, cmd/sweep/default.pgo, identifies
// call sites by their line offset within simulate: a line added or removed above a call in the loop leaves the
// profile guiding nothing there until bench/pgo.sh is run again.)
const ctxEvents = 1 << 16

// snap records the state at time t.
func snap(lv *sim.Levels, t float64, track int) snapshot {
	m, _ := lv.Shortest()
	sn := snapshot{t: t, max: lv.Max(), min: m, queues: make([]int32, min(track, lv.N()))}
	for k := range sn.queues {
		sn.queues[k] = lv.Len(k)
	}
	return sn
}
