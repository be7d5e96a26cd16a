package fleet

import (
	"context"
	"math"

	"lbsweep/model/policy"
	"lbsweep/model/sim"
)

type config struct {
	classes                 []class
	lambda, horizon, warmup float64
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

// simulate runs the event-driven simulation described in the package doc, with policy pol observing responses when
// observe says (policy.Traits.Observe). It returns ctx.Err() when ctx is done, checked every 2^16 events (a mask test
// per event).
func simulate(ctx context.Context, c config, s sim.Streams, pol policy.Policy, observe policy.When) (outcome, error) {
	var servers []server
	var broken, fastest []bool
	quickest := math.Inf(1)
	for _, cl := range c.classes {
		quickest = min(quickest, cl.latency())
	}
	for i := range c.classes {
		cl := &c.classes[i]
		for range cl.count {
			servers = append(servers, server{class: cl, slots: make(slotClock, cl.slots)})
			broken = append(broken, !cl.healthy)
			fastest = append(fastest, cl.latency() == quickest)
		}
	}
	n := len(servers)
	lv := sim.NewLevels(n)
	view := policy.View{Loads: lv}
	var pending sim.Events[response]
	var obs policy.Observer
	if observe != policy.Never {
		obs = pol.(policy.Observer)
	}
	atCompletion, atDispatch := observe == policy.AtCompletion, observe == policy.AtDispatch
	sampler, _ := pol.(policy.Sampler)
	out := outcome{all: sim.NewSojourns(), ok: sim.NewSojourns(), sent: make([]int64, n), sampler: sampler != nil,
		final: pol}
	anyBroken := false
	for _, b := range broken {
		anyBroken = anyBroken || b
	}
	if !anyBroken {
		out.sampler = false
	}

	ta := s.Arrivals.Exp() / c.lambda // next arrival; +Inf once arrivals have stopped
	if ta >= c.horizon {
		ta = math.Inf(1)
	}
	marked, ended := false, false
	for {
		// A response at the same instant as an arrival goes first (the toy retires before it routes).
		respond := pending.Len() > 0 && pending.Next() <= ta
		if !respond && ta == math.Inf(1) {
			break
		}
		t := ta
		if respond {
			t = pending.Next()
		}
		if !marked && t >= c.warmup {
			lv.Mark(c.warmup)
			marked = true
		}
		if !ended && t >= c.horizon {
			_, _, out.peak = lv.Window(c.horizon)
			ended = true
		}
		out.events++
		if out.events&(1<<16-1) == 0 && ctx.Err() != nil {
			return outcome{}, ctx.Err()
		}
		if respond {
			_, r := pending.Pop()
			k := int(r.server)
			lv.Down(k, t)
			latency := t - r.arrived
			if r.measured {
				out.all.Add(latency)
				if r.ok {
					out.ok.Add(latency)
				}
			}
			if atCompletion {
				obs.Observe(k, latency, t, outcomeOf(r.ok))
			}
			continue
		}
		measured := t >= c.warmup
		k := pol.Pick(view, policy.Request{Now: t}, s.Dispatch)
		if measured {
			out.sent[k]++
			if broken[k] {
				out.sentBroken++
			}
			if fastest[k] {
				out.sentFastest++
			}
			if out.sampler {
				if cand := sampler.Candidates(); len(cand) >= 2 && brokenIn(cand, broken) {
					out.samples++
					if broken[k] {
						out.won++
					}
				}
			}
		}
		srv := &servers[k]
		done := srv.slots.start(t, srv.class.duration(s.Service))
		lv.Up(k, t)
		ok := srv.class.healthy
		pending.Push(done, response{server: int32(k), ok: ok, measured: measured, arrived: t})
		if atDispatch {
			obs.Observe(k, done-t, t, outcomeOf(ok))
		}
		ta = t + s.Arrivals.Exp()/c.lambda
		if ta >= c.horizon {
			ta = math.Inf(1)
		}
	}
	if !marked {
		lv.Mark(c.warmup)
	}
	if !ended {
		_, _, out.peak = lv.Window(c.horizon)
	}
	out.outstanding = make([]int32, n)
	for k := range n {
		out.outstanding[k] = lv.Len(k)
	}
	return out, nil
}
