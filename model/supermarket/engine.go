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
	ts := math.Inf(1)                   // next time-series sample
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
	// The departure clock td is Exp(busy·μ) from the moment it was drawn. By memorylessness an unfired clock's residual
	// td − t is, at any time t, still Exp(busy·μ) and independent of everything else, so it is kept while busy is
	// unchanged, and when an arrival changes busy from b ≥ 1 to b' it is rescaled by b/b' (an Exp(bμ) variable times
	// b/b' is Exp(b'μ)) rather than redrawn. A fresh Exp(1) is drawn only when the clock fires or starts from no busy
	// server; busy is kept current by the event that changes it (an arrival at an idle server, a departure).
	busy, td := 0, math.Inf(1)
	thin := c.rate != nil
	tx := min(d.next(), ts) // the next board event or sample (+Inf for the supermarket without a series)
	// gate is the earliest time at which the loop has more to do than an event: a board event or sample before the
	// horizon (tx), the horizon while arrivals run, the warm-up's end before it is marked. An event before it takes
	// one comparison; at or after it, the checks below run in their order, and gate is recomputed.
	gate := func() float64 {
		g := math.Inf(1)
		if tx < c.horizon {
			g = tx
		}
		if !ended {
			g = min(g, c.horizon)
		}
		if !marked {
			g = min(g, c.warmup)
		}
		return g
	}
	g := gate()
	for {
		next := ta // min(ta, td): the times are never NaN or −0
		if td < ta {
			next = td
		}
		if next >= g {
			// Board refreshes and samples happen before the horizon, in time order with the other events (ties:
			// first).
			if tx <= next && tx < c.horizon {
				if tx == ts {
					out.series = append(out.series, snap(lv, ts, c.track))
					ts = float64(len(out.series)) * c.sample // multiples of sample, no drift from repeated addition
				} else {
					d.fire(tx, lv)
				}
				tx = min(d.next(), ts)
				g = gate()
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
			g = gate()
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
			idle := lv.Len(k) == 0
			fifo[k].Push(t)
			lv.Up(k, t)
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
		k := lv.Busy(s.Service.IntN(busy))
		if thin && s.Service.Float64()*c.mu >= c.rate[k] {
			td = t + s.Service.Exp()*mean(busy) // thinned: no departure
			continue
		}
		out.events++
		arrived := fifo[k].Pop()
		lv.Down(k, t)
		// The clock fired: the next one is drawn afresh.
		if busy = lv.NumBusy(); busy > 0 {
			td = t + s.Service.Exp()*mean(busy)
		} else {
			td = math.Inf(1)
		}
		if observes {
			d.done(k, t-arrived, t)
		}
		if arrived >= c.warmup && arrived < c.horizon {
			soj.Add(t - arrived)
		}
		if out.events&(ctxEvents-1) == 0 && ctx.Err() != nil { // last in the loop (see ctxEvents)
			return outcome{}, ctx.Err()
		}
	}
	out.sojourns = soj
	return out, nil
}

// ctxEvents is how often simulate checks its context: at a departure whose event count is a multiple of ctxEvents
// (in expectation every 2·ctxEvents events while arrivals run, every ctxEvents in the drain), a mask test per
// departure. The test is the last statement of the loop body, so that no call in the loop moves: the PGO profile
// (cmd/sweep/default.pgo) identifies call sites by their line offset within simulate.
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
