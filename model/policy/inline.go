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
)

// InlineOf says how an engine may run p's pick: InlineNone unless p is one of the stateless policies with an inline
// pick.
func InlineOf(p Policy) Inline {
	switch p := p.(type) {
	case random:
		return InlineRandom
	case jsq:
		return InlineShortest
	case *jsqd:
		if p.d == 2 && !p.replace {
			return InlineTwoChoices
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
func TwoChoices(l *sim.Levels, a, b int) int {
	if b >= a {
		b++
	}
	if l.Len(b) < l.Len(a) {
		return b
	}
	return a
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
