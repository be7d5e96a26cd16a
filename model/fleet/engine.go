package fleet

import (
	"context"
	"math"

	"lbsweep/model/policy"
	"lbsweep/model/sim"
)

// config is a run's setting: the classes, λ per tick, horizon and warmup in ticks, and the clock.
type config struct {
	classes                 []class
	lambda, horizon, warmup float64
	ticks                   bool // seed 000's integer ticks (clock = "ticks"), else continuous time
}

// outcome is what a run measured.
type outcome struct {
	all, ok     *sim.Sojourns // latencies of all measured responses, and of the successes
	sent        []int64       // measured requests per server
	sentBroken  int64
	sentFastest int64 // to the servers with the lowest configured latency
	sampler     bool  // the policy reports its candidates
	samples     int64 // measured picks with a broken server among ≥ 2 candidates
	won         int64 // of those, picks of a broken server
	peak        int   // most outstanding requests at one server in the window
	events      int64
	final       policy.Policy // the policy after the run (tests read its state)
	outstanding []int32       // per server at the end (all 0 once drained; tests check it)
	wholeTicks  bool          // the tick clock: every latency is a whole number of ticks
}

// response is a pending response on the event list.
type response struct {
	server   int32
	ok       bool
	measured bool
	arrived  float64
}

// server is one server's state.
type server struct {
	class *class
	slots slotClock
}

// slotClock holds the times at which a server's slots free up: one value per slot, as a min-heap, so a FIFO
// request starts at the earliest (seed 000 §5.1's free_at, with min over the slots). Not a sim.Events: its one
// operation is replace-the-minimum (one sift-down, where Events would Pop and Push) on bare times whose ties need no
// order, so a sequence number and payload would be dead weight.
type slotClock []float64

// start books a request arriving at now that needs dur on the earliest-free slot and returns its completion time.
func (s slotClock) start(now, dur float64) float64 {
	done := max(now, s[0]) + dur
	s[0] = done
	for i := 0; ; {
		c := 2*i + 1
		if c >= len(s) {
			break
		}
		if c+1 < len(s) && s[c+1] < s[c] {
			c++
		}
		if !(s[c] < s[i]) {
			break
		}
		s[i], s[c] = s[c], s[i]
		i = c
	}
	return done
}

// outcomeOf is a response's outcome: a success, or a broken server's failure (an error answer, seed 000 §5.1).
func outcomeOf(ok bool) policy.Outcome {
	if ok {
		return policy.OK
	}
	return policy.Error
}

// duration draws a request's service time at a server of class c: a unit-mean draw from the class's distribution
// (constant 1; Exp(1); lognormal e^(σZ − σ²/2), σ² = ln(1 + cv²)) times the mean, or for a broken server times the
// error latency (the same draw: failing takes what succeeding would, scaled).
func (c *class) duration(r *sim.Rand) float64 {
	x := 1.0
	switch c.service {
	case Exponential:
		x = r.Exp()
	case Lognormal:
		x = math.Exp(c.sigma*r.Norm() + c.offset)
	}
	return x * c.latency()
}

// engine is one simulation's state, shared by the two clocks' loops.
type engine struct {
	c                        config
	s                        sim.Streams
	pol                      policy.Policy
	servers                  []server
	broken, fastest          []bool
	lv                       *sim.Levels
	view                     policy.View
	pending                  sim.Events[response]
	obs                      policy.Observer
	atCompletion, atDispatch bool
	sampler                  policy.Sampler
	out                      outcome
}

// newEngine builds the servers, in class order, and an empty outcome.
func newEngine(c config, s sim.Streams, pol policy.Policy, observe policy.When) *engine {
	r := &engine{c: c, s: s, pol: pol}
	quickest := math.Inf(1)
	for _, cl := range c.classes {
		quickest = min(quickest, cl.latency())
	}
	for i := range c.classes {
		cl := &c.classes[i]
		for range cl.count {
			r.servers = append(r.servers, server{class: cl, slots: make(slotClock, cl.slots)})
			r.broken = append(r.broken, !cl.healthy)
			r.fastest = append(r.fastest, cl.latency() == quickest)
		}
	}
	n := len(r.servers)
	r.lv = sim.NewLevels(n)
	r.view = policy.View{Loads: r.lv}
	if observe != policy.Never {
		r.obs = pol.(policy.Observer)
	}
	r.atCompletion, r.atDispatch = observe == policy.AtCompletion, observe == policy.AtDispatch
	r.sampler, _ = pol.(policy.Sampler)
	r.out = outcome{all: sim.NewSojourns(), ok: sim.NewSojourns(), sent: make([]int64, n), sampler: r.sampler != nil,
		final: pol, wholeTicks: c.ticks}
	anyBroken := false
	for _, b := range r.broken {
		anyBroken = anyBroken || b
	}
	if !anyBroken {
		r.out.sampler = false
	}
	return r
}

// respond handles the response of r (popped from the pending events) at time t.
func (r *engine) respond(t float64, resp response) {
	k := int(resp.server)
	r.lv.Down(k, t)
	latency := t - resp.arrived
	if resp.measured {
		r.out.all.Add(latency)
		if resp.ok {
			r.out.ok.Add(latency)
		}
	}
	if r.atCompletion {
		r.obs.Observe(k, latency, t, outcomeOf(resp.ok))
	}
}

// arrive routes a request arriving at t: the policy picks, the request is booked on the server's earliest-free slot
// for the duration dur draws, its response pushed on the pending events, and a policy observing at dispatch told.
func (r *engine) arrive(t float64, dur func(*class, *sim.Rand) float64) {
	out := &r.out
	measured := t >= r.c.warmup
	k := r.pol.Pick(r.view, policy.Request{Now: t}, r.s.Dispatch)
	if measured {
		out.sent[k]++
		if r.broken[k] {
			out.sentBroken++
		}
		if r.fastest[k] {
			out.sentFastest++
		}
		if out.sampler {
			if cand := r.sampler.Candidates(); len(cand) >= 2 && brokenIn(cand, r.broken) {
				out.samples++
				if r.broken[k] {
					out.won++
				}
			}
		}
	}
	srv := &r.servers[k]
	done := srv.slots.start(t, dur(srv.class, r.s.Service))
	r.lv.Up(k, t)
	ok := srv.class.healthy
	r.pending.Push(done, response{server: int32(k), ok: ok, measured: measured, arrived: t})
	if r.atDispatch {
		r.obs.Observe(k, done-t, t, outcomeOf(ok))
	}
}

// finish closes the measurement window if no event did and records the final outstanding counts.
func (r *engine) finish(marked, ended bool) outcome {
	if !marked {
		r.lv.Mark(r.c.warmup)
	}
	if !ended {
		_, _, r.out.peak = r.lv.Window(r.c.horizon)
	}
	n := len(r.servers)
	r.out.outstanding = make([]int32, n)
	for k := range n {
		r.out.outstanding[k] = r.lv.Len(k)
	}
	return r.out
}

// simulate runs the simulation described in the package doc on the clock c.ticks says, with policy pol observing
// responses when observe says (policy.Traits.Observe). It returns ctx.Err() when ctx is done, checked every 2^16
// events (a mask test per event; on the tick clock also every 2^16 ticks).
func simulate(ctx context.Context, c config, s sim.Streams, pol policy.Policy, observe policy.When) (outcome, error) {
	r := newEngine(c, s, pol, observe)
	if c.ticks {
		return r.ticks(ctx)
	}
	out := &r.out
	ta := s.Arrivals.Exp() / c.lambda // next arrival; +Inf once arrivals have stopped
	if ta >= c.horizon {
		ta = math.Inf(1)
	}
	marked, ended := false, false
	for {
		// A response at the same instant as an arrival goes first (the toy retires before it routes).
		respond := r.pending.Len() > 0 && r.pending.Next() <= ta
		if !respond && ta == math.Inf(1) {
			break
		}
		t := ta
		if respond {
			t = r.pending.Next()
		}
		if !marked && t >= c.warmup {
			r.lv.Mark(c.warmup)
			marked = true
		}
		if !ended && t >= c.horizon {
			_, _, out.peak = r.lv.Window(c.horizon)
			ended = true
		}
		out.events++
		if out.events&(1<<16-1) == 0 && ctx.Err() != nil {
			return outcome{}, ctx.Err()
		}
		if respond {
			_, resp := r.pending.Pop()
			r.respond(t, resp)
			continue
		}
		r.arrive(t, (*class).duration)
		ta = t + s.Arrivals.Exp()/c.lambda
		if ta >= c.horizon {
			ta = math.Inf(1)
		}
	}
	return r.finish(marked, ended), nil
}
