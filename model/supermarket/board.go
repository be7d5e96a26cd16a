package supermarket

import (
	"math"

	"lbsweep/model/policy"
	"lbsweep/model/sim"
)

// update is how a bulletin board learns the true queue lengths.
type update uint8

// Board update rules, in the order of the bulletin_board model's `update` choices.
const (
	// periodic: every entry is set to the true queue length at times T, 2T, 3T, … (Mitzenmacher's bulletin board).
	periodic update = iota
	// individual: each entry is refreshed at the epochs of its own Poisson process of rate 1/T (his continuous-update
	// variant): entries are of exponentially distributed age, mean T.
	individual
	// dispatchCounts: the periodic board, plus every dispatch immediately adds one to its target's entry in the
	// sending dispatcher's own copy; completions are learned only at a refresh (TranSend's fix, seed 002 §6; seed
	// 004's herd cure: fresh local counts, stale global ones).
	dispatchCounts
)

// board is the bulletin board's dispatcher: k dispatchers share the Poisson arrival stream (each arrival goes to a
// uniformly random one, so each sees Poisson arrivals at λn/k), each runs its own policy instance, and the policies
// read a board instead of the true queue lengths: one shared board, or with dispatchCounts one private copy per
// dispatcher. The boards are sim.Levels, so every policy reads them (as its policy.View's loads) as it reads the true
// lengths. Period 0 is fresh
// information: every dispatcher reads the true lengths (and dispatch counts add nothing).
type board struct {
	rule      update
	period    float64
	n         int
	views     []*sim.Levels // one shared board, or one per dispatcher (dispatchCounts)
	policies  []policy.Policy
	observers []policy.Observer // per dispatcher; nil when the policy does not observe
	anyObs    bool
	r, br     *sim.Rand  // the policies' stream; the board's (dispatcher choice, individual refresh epochs)
	from      []sim.FIFO // per server, the dispatcher of each job in it (k > 1 with observers only)
	at        float64    // next refresh
	phase     int        // periodic: refreshes done
	refreshes int64
	last      int // individual: the entry refreshed last
	// pick1 is how every dispatcher picks (its policies are instances of one configuration): a stateless policy's
	// inline pick on its view (policy.InlineOf; the same draws and server as its Pick), or InlineNone for Pick.
	pick1 policy.Inline
	// own is the inline pick pick runs itself on own0 (views[0]), or InlineNone (see newBoard).
	own  policy.Inline
	own0 *sim.Levels
}

// newBoard returns the board of k dispatchers, each with a policy from newPolicy, which observe completions when
// observes is true.
func newBoard(rule update, period float64, k int, newPolicy func() policy.Policy, observes bool, lv *sim.Levels, s sim.Streams) *board {
	b := &board{rule: rule, period: period, n: lv.N(), r: s.Dispatch, br: s.Board, at: math.Inf(1), anyObs: observes}
	for range k {
		p := newPolicy()
		var obs policy.Observer
		if observes {
			obs = p.(policy.Observer)
		}
		b.policies = append(b.policies, p)
		b.observers = append(b.observers, obs)
	}
	switch {
	case period == 0:
		b.views = []*sim.Levels{lv}
	case rule == dispatchCounts:
		for range k {
			b.views = append(b.views, sim.NewLevels(b.n))
		}
	default:
		b.views = []*sim.Levels{sim.NewLevels(b.n)}
	}
	if period > 0 {
		b.at = period
		if rule == individual {
			b.at = b.br.Exp() * period / float64(b.n)
		}
	}
	if k > 1 && b.anyObs {
		b.from = make([]sim.FIFO, b.n)
	}
	if in := policy.InlineOf(b.policies[0]); in.Stateless() {
		b.pick1 = in // one kind for every dispatcher's instance
	}
	if k == 1 && (rule != dispatchCounts || period == 0) && b.pick1 != policy.InlineNone {
		// One dispatcher whose pick has no side effect on the board: pick draws nothing of its own and picks as
		// policies[0] on views[0], so it may run that policy's inline pick, written out in pick for the profile to
		// inline there.
		b.own, b.own0 = b.pick1, b.views[0]
	}
	return b
}

func (b *board) next() float64         { return b.at }
func (b *board) inline() policy.Inline { return policy.InlineNone }
func (b *board) observes() bool        { return b.anyObs }

func (b *board) fire(t float64, lv *sim.Levels) {
	b.refreshes++
	if b.rule == individual {
		k := b.br.IntN(b.n)
		b.views[0].Set(k, lv.Len(k), t)
		b.last = k
		b.at = t + b.br.Exp()*b.period/float64(b.n)
		return
	}
	for _, v := range b.views {
		v.CopyFrom(lv) // O(n + levels), where one Set per entry cost one level move per event since the last refresh
	}
	b.phase++
	b.at = float64(b.phase+1) * b.period // no drift from repeated addition
}

// pick sends the job arriving at t to a server. The engine's loop calls it through its instantiation's dictionary
// (an indirect call): the common board, one dispatcher (b.own), then takes one call, its inline pick written out
// here, where through pick1.Pick it took three (Pick, PickTwoChoices, IntN2: 35 instructions an event more than the
// supermarket's loop, callgrind, JSQ(2) at n = 100).
func (b *board) pick(_ *sim.Levels, t float64) int {
	switch v := b.own0; b.own {
	case policy.InlineTwoChoices:
		a, c := b.r.IntN2(b.n, b.n-1)
		return policy.TwoChoices(v, a, c)
	case policy.InlineShortest:
		if _, ties := v.Shortest(); ties > 1 {
			return v.Sorted(b.r.IntN(ties))
		}
		return v.Sorted(0)
	case policy.InlineTwoSampled:
		a := b.r.IntN(b.n)
		return policy.Shorter(v, a, b.r.IntN(b.n))
	case policy.InlineRandom:
		return b.r.IntN(b.n)
	}
	j := 0
	if len(b.policies) > 1 {
		j = b.br.IntN(len(b.policies))
	}
	v := b.views[0]
	if len(b.views) > 1 {
		v = b.views[j]
	}
	var k int
	if b.pick1 != policy.InlineNone {
		k = b.pick1.Pick(v, b.r)
	} else {
		k = b.policies[j].Pick(policy.View{Loads: v}, policy.Request{Now: t}, b.r)
	}
	if b.rule == dispatchCounts && b.period > 0 {
		v.Up(k, t)
	}
	if b.from != nil {
		b.from[k].Push(float64(j))
	}
	return k
}

func (b *board) done(k int, rtt, t float64) {
	j := 0
	if b.from != nil {
		j = int(b.from[k].Pop())
	}
	if o := b.observers[j]; o != nil {
		o.Observe(k, rtt, t, policy.OK)
	}
}
