package fleet

import (
	"cmp"
	"context"
	"math"
	"slices"

	"lbsweep/model/sim"
)

// tickCost is what Cost counts for one tick of the tick clock, in events: an idle tick (a comparison with the next
// response, the arrival count of the tick) took 10 ns in BenchmarkIdleTicks, against 83 ns an event at the fleet's
// planned 1.2·10^7 events/s (EventsPerSecond), 2026-12-02 on the project's machine.
const tickCost = 0.12

// tickDuration is a request's service time on the tick clock, in whole ticks: the continuous draw (class.duration,
// the same single draw from the service stream) rounded to the nearest tick, halves away from zero, and at least 1.
// Constant service with a whole latency (Check requires it) is that latency exactly, as the toy's.
func tickDuration(c *class, r *sim.Rand) float64 { return max(1, math.Round(c.duration(r))) }

// due is a response popped for retirement, with its completion tick.
type due struct {
	t    float64
	resp response
}

// ticks runs seed 000's loop (§5.6) over the ticks now = 0..horizon−1:
//
//	for b in fleet: b.retire(now)           — every response due at or before now, server by server in list
//	                                          order, each server's in the order they were dispatched
//	for _ in range(poisson(rng, lam)):      — this tick's arrivals, one by one, all at time now
//	    pick, dispatch, observe
//
// Then the servers drain: the responses still pending are retired tick by tick in the same order. The Poisson count
// of a tick is the number of points of the continuous arrival stream (Exp(1)/λ gaps) in [now, now+1): a Poisson(λ)
// draw, independent between ticks, for any λ. Every duration is whole and ≥ 1, so a response is due at a tick after
// its dispatch and is retired exactly at its completion tick: its latency done − now is what the balancer was told at
// dispatch. ctx is checked every 2^16 ticks and every 2^16 events.
func (r *engine) ticks(ctx context.Context) (outcome, error) {
	return r.tickLoop(ctx, poissonCounts(r.s.Arrivals, r.c.lambda))
}

// poissonCounts returns the arrival counts of the ticks 0, 1, 2, … in turn, each call the next tick's: the points of a
// Poisson stream at rate λ per tick (gaps Exp(1)/λ from rng) in [tick, tick+1).
func poissonCounts(rng *sim.Rand, lambda float64) func() int {
	ta := rng.Exp() / lambda // the next arrival of the continuous stream; its tick is ⌊ta⌋
	next := 0.0              // the end of the tick being counted
	return func() int {
		next++
		k := 0
		for ; ta < next; ta += rng.Exp() / lambda {
			k++
		}
		return k
	}
}

// tickLoop is ticks with the arrival counts from counts (one call per tick, in order; tests give their own).
func (r *engine) tickLoop(ctx context.Context, counts func() int) (outcome, error) {
	c, out := r.c, &r.out
	horizon := int64(c.horizon)
	var retire []due
	// retireAt pops and handles every response due at or before now, in the toy's order.
	retireAt := func(now float64) error {
		if r.pending.Len() == 0 || r.pending.Next() > now {
			return nil
		}
		retire = retire[:0]
		for r.pending.Len() > 0 && r.pending.Next() <= now {
			t, resp := r.pending.Pop()
			retire = append(retire, due{t, resp})
		}
		// Pop order is time, then dispatch order; the toy retires server by server (stable: dispatch order within).
		slices.SortStableFunc(retire, func(a, b due) int { return cmp.Compare(a.resp.server, b.resp.server) })
		for _, d := range retire {
			out.events++
			if out.events&(1<<16-1) == 0 && ctx.Err() != nil {
				return ctx.Err()
			}
			r.respond(d.t, d.resp)
		}
		return nil
	}
	marked, ended := false, false
	for tick := int64(0); tick < horizon; tick++ {
		now := float64(tick)
		if tick&(1<<16-1) == 0 && ctx.Err() != nil {
			return outcome{}, ctx.Err()
		}
		if !marked && now >= c.warmup {
			r.lv.Mark(c.warmup)
			marked = true
		}
		if err := retireAt(now); err != nil {
			return outcome{}, err
		}
		for range counts() {
			out.events++
			if out.events&(1<<16-1) == 0 && ctx.Err() != nil {
				return outcome{}, ctx.Err()
			}
			r.arrive(now, tickDuration)
		}
	}
	if !marked {
		r.lv.Mark(c.warmup)
		marked = true
	}
	_, _, out.peak = r.lv.Window(c.horizon)
	ended = true
	for r.pending.Len() > 0 { // the drain: no more arrivals, the rest retired tick by tick
		if err := retireAt(r.pending.Next()); err != nil {
			return outcome{}, err
		}
	}
	return r.finish(marked, ended), nil
}
