package policy

import (
	"testing"

	"lbsweep/model/sim"
)

// inlinePick is kind k's inline pick: Inline.Pick for a stateless kind, and for round robin the engine's cursor
// (model/supermarket/engine.go keeps it; the loop's own copies of the stateless picks are held to Pick by that
// package's TestInlinePathsArePicks).
func inlinePick(k Inline, l *sim.Levels, r *sim.Rand, cursor *int) int {
	if k != InlineRoundRobin {
		return k.Pick(l, r)
	}
	c := *cursor
	if *cursor++; *cursor == l.N() {
		*cursor = 0
	}
	return c
}

// TestInlinePicksArePicks: for each policy with an inline pick, the inline pick and the policy's Pick, from
// identically seeded streams on the same changing queue lengths, choose the same server at every arrival and leave
// the streams in the same state. For random, jsq and JSQ(2) Pick calls the same function, so what this holds is
// InlineOf's and Inline.Pick's choice of it; JSQ(2) with replacement's branch-free PickTwoSampled is held to jsq_d's
// general loop over d draws, and round robin's cursor to the policy's own.
func TestInlinePicksArePicks(t *testing.T) {
	for _, n := range []int{2, 3, 10, 1000} {
		s := Servers{N: n}
		for _, c := range []struct {
			name string
			p    Policy
			want Inline
		}{
			{"random", RandomConfig{}.New(s), InlineRandom},
			{"jsq", JSQConfig{}.New(s), InlineShortest},
			{"jsq_d d=2", jsqdOf(2, false, n), InlineTwoChoices},
			{"jsq_d d=2 replacement", jsqdOf(2, true, n), InlineTwoSampled},
			{"round_robin", RoundRobinConfig{}.New(s), InlineRoundRobin},
			{"jsq_d d=3", jsqdOf(3, false, n), InlineNone},
			{"jsq_d d=3 replacement", jsqdOf(3, true, n), InlineNone},
		} {
			k := InlineOf(c.p)
			if k != c.want {
				t.Fatalf("n=%d %s: InlineOf = %d, want %d", n, c.name, k, c.want)
			}
			if want := k != InlineNone && c.name != "round_robin"; k.Stateless() != want {
				t.Errorf("n=%d %s: Stateless() = %v, want %v", n, c.name, k.Stateless(), want)
			}
			if k == InlineNone {
				continue
			}
			l, churnR := sim.NewLevels(n), sim.NewRand(1, uint64(n))
			ra, rb := sim.NewRand(2, uint64(n)), sim.NewRand(2, uint64(n))
			cursor := 0
			for i := range 20_000 {
				a, b := inlinePick(k, l, ra, &cursor), c.p.Pick(View{Loads: l}, Request{}, rb)
				if a != b {
					t.Fatalf("n=%d %s, arrival %d: inline pick %d, Pick %d", n, c.name, i, a, b)
				}
				l.Up(a, float64(i))
				churn(l, churnR, float64(i))
			}
			if ra.Uint64() != rb.Uint64() {
				t.Errorf("n=%d %s: the streams part after 20000 picks", n, c.name)
			}
		}
	}
	// A round_robin that has picked is not inlined: its cursor has moved.
	p := RoundRobinConfig{}.New(Servers{N: 3})
	p.Pick(View{Loads: sim.NewLevels(3)}, Request{}, nil)
	if k := InlineOf(p); k != InlineNone {
		t.Errorf("round_robin after a pick: InlineOf = %d, want InlineNone", k)
	}
}

// TestShorterAndTwoChoices: the branch-free Shorter and TwoChoices' shift against their branching definitions, on
// every pair of servers of a small board with ties and empty queues.
func TestShorterAndTwoChoices(t *testing.T) {
	l := levelsOf(0, 3, 3, 1, 0, 7, 2)
	n := l.N()
	for a := range n {
		for b := range n {
			want := a
			if l.Len(b) < l.Len(a) {
				want = b
			}
			if got := Shorter(l, a, b); got != want {
				t.Errorf("Shorter(%d, %d) = %d, want %d (lengths %d, %d)", a, b, got, want, l.Len(a), l.Len(b))
			}
			if b < n-1 {
				bb := b
				if bb >= a {
					bb++
				}
				if got, want := TwoChoices(l, a, b), Shorter(l, a, bb); got != want {
					t.Errorf("TwoChoices(%d, %d) = %d, want %d", a, b, got, want)
				}
			}
		}
	}
}
