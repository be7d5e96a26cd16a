package policy

import (
	"lbsweep/model/sim"
)

// Inline names a policy whose pick an engine may run in its own event loop, as a direct call chosen once per run,
// instead of an interface call per arrival (the hot loop specialised per policy: issue "Speed", the C reference's
// per-policy loop in shared/anchors/supermarket.c). Each inline pick is the function the policy's own Pick calls on a
// view with no eligibility mask, so the two draw the same random numbers and give the same server; an engine that
// sets View.Eligible must call Pick.
type Inline uint8

const (
	// InlineNone: call the policy's Pick.
	InlineNone Inline = iota
	// InlineRandom: random, PickRandom.
	InlineRandom
	// InlineTwoChoices: jsq_d with d = 2 distinct servers, PickTwoChoices.
	InlineTwoChoices
	// InlineShortest: jsq, PickShortest.
	InlineShortest
	// InlineTwoSampled: jsq_d with d = 2 sampled with replacement, PickTwoSampled.
	InlineTwoSampled
	// InlineRoundRobin: round_robin as its Config's New returns it (cursor at server 0), without a mask: servers 0,
	// 1, …, n−1, 0, … in turn, the cursor kept by the engine (the policy's own is then never advanced, and the
	// policy must not also be picked from).
	InlineRoundRobin
)

// Stateless reports whether k is an inline pick that keeps no state of its own: every kind but InlineNone and
// InlineRoundRobin (whose cursor the engine keeps). Such a pick is a function of the view and the stream alone, so an
// engine may run it for any number of dispatchers, each with its own view.
func (k Inline) Stateless() bool { return k != InlineNone && k != InlineRoundRobin }

// Pick runs stateless kind k's pick (k.Stateless()) on l with r: the server and the draws of the policy's Pick. It
// panics for the other kinds. A bulletin board of several dispatchers, or with dispatch counts and T > 0, picks
// through it; the supermarket's loop and any other board write the picks out themselves, for the profile to inline them
// there (through this call the board's JSQ(2) took 263 instructions an event, written out 243: callgrind, n = 100,
// T = 5, each with its own profile); model/supermarket's TestInlinePathsArePicks and TestBoardInlinePathsArePicks
// hold the copies to these functions.
func (k Inline) Pick(l *sim.Levels, r *sim.Rand) int {
	switch k {
	case InlineTwoChoices:
		return PickTwoChoices(l, r)
	case InlineRandom:
		return PickRandom(l, r)
	case InlineShortest:
		return PickShortest(l, r)
	case InlineTwoSampled:
		return PickTwoSampled(l, r)
	}
	panic("policy: Pick of an inline kind that keeps state")
}

// InlineOf says how an engine may run p's pick: InlineNone unless p is one of the stateless policies with an inline
// pick, or a round_robin that has not picked yet.
func InlineOf(p Policy) Inline {
	switch p := p.(type) {
	case random:
		return InlineRandom
	case jsq:
		return InlineShortest
	case *roundRobin:
		if p.next == 0 {
			return InlineRoundRobin
		}
	case *jsqd:
		switch {
		case p.d == 2 && !p.replace:
			return InlineTwoChoices
		case p.d == 2:
			return InlineTwoSampled
		}
	}
	return InlineNone
}

// PickRandom is random's pick: a uniform server of l, one draw from r.
func PickRandom(l *sim.Levels, r *sim.Rand) int { return r.IntN(l.N()) }

// PickTwoChoices is JSQ(2)'s pick (jsq_d with d = 2, distinct servers; Mitzenmacher 2001): a uniformly random ordered
// pair of distinct servers from one 64-bit draw (sim.Rand.IntN2 over n and n − 1, the second shifted past the first),
// the second kept only when strictly shorter, so ties go to either with probability ½. Needs 2 ≤ l.N() < 2^32.
func PickTwoChoices(l *sim.Levels, r *sim.Rand) int {
	n := l.N()
	a, b := r.IntN2(n, n-1)
	return TwoChoices(l, a, b)
}

// TwoChoices is PickTwoChoices after its draw: a, b = r.IntN2(n, n−1) with n = l.N(). An engine that makes the draw
// in its own loop (so that the profile-guided build inlines it there) calls this with it and picks the same server.
// TwoChoices' shift is branch-free (a sign bit for the comparison), and so is Shorter: each is a coin toss per pick,
// and as branches they mispredicted about 0.27 and 0.25 times a pick (callgrind's branch simulation, n = 1000), more
// than all the rest of the supermarket's loop but its arrival-or-departure test (the compiler keeps both as branches
// in the loop).
func TwoChoices(l *sim.Levels, a, b int) int {
	b += int(uint64(a-b-1) >> 63) // b ≥ a: b moves past a (a − b − 1 < 0; both below 2^32)
	return Shorter(l, a, b)
}

// Shorter returns b when its queue is strictly shorter than a's, else a (ties to a), without a branch.
func Shorter(l *sim.Levels, a, b int) int {
	shorter := int((int64(l.Len(b)) - int64(l.Len(a))) >> 63) // all ones when Len(b) < Len(a), else 0
	return a ^ (a^b)&shorter
}

// PickTwoSampled is jsq_d's pick with d = 2 sampled with replacement (Envoy's least request with two choices): two
// uniform draws, a then b, the second kept only when strictly shorter, so a repeated server is simply kept.
func PickTwoSampled(l *sim.Levels, r *sim.Rand) int {
	n := l.N()
	a := r.IntN(n)
	return Shorter(l, a, r.IntN(n))
}

// PickShortest is jsq's pick: a server of minimum queue length, uniform among the ties (one draw only when there
// are ties), O(1) through the sorted levels.
func PickShortest(l *sim.Levels, r *sim.Rand) int {
	_, ties := l.Shortest()
	if ties == 1 {
		return l.Sorted(0)
	}
	return l.Sorted(r.IntN(ties))
}
