package supermarket

import (
	"context"
	"slices"
	"testing"

	"lbsweep/model"
	"lbsweep/model/policy"
	"lbsweep/model/sim"
)

// viaPick is the fresh dispatcher with its inline pick turned off: every arrival goes through the policy's Pick.
type viaPick struct{ fresh }

func (viaPick) inline() policy.Inline { return policy.InlineNone }

// TestInlinePathsArePicks: the event loop's own copies of the inline picks (written out in simulate for the profile
// to inline, beside policy's functions that TestInlinePicksArePicks checks) give the run that Pick gives, statistic
// for statistic, for every inline kind, with equal and with unequal servers (the thinned departures).
func TestInlinePathsArePicks(t *testing.T) {
	cfgs := []policy.Config{policy.RandomConfig{}, policy.RoundRobinConfig{}, policy.JSQConfig{},
		policy.JSQdConfig{D: 2}, policy.JSQdConfig{D: 2, Replacement: true}}
	for _, rate := range [][]float64{nil, {2, 2, 1, 1, 1, 0.5, 0.5, 0.5, 0.5, 0.5}} {
		c := config{n: 10, lambda: 0.8, horizon: 2000, warmup: 100, mu: 1}
		if rate != nil {
			c.rate, c.mu = rate, 2
		}
		for _, pc := range cfgs {
			ps := policy.Servers{N: c.n}
			seed := model.Seed{Run: 11, Policy: 5}
			if k := policy.InlineOf(pc.New(ps)); k == policy.InlineNone {
				t.Fatalf("%T: no inline pick, nothing to test", pc)
			}
			run := func(off bool) outcome {
				s := sim.NewStreams(seed)
				f := newFresh(pc.New(ps), false, s)
				var out outcome
				var err error
				if off {
					out, err = simulate(context.Background(), c, s, func(lv *sim.Levels) viaPick { return viaPick{f(lv)} })
				} else {
					out, err = simulate(context.Background(), c, s, f)
				}
				if err != nil {
					t.Fatal(err)
				}
				return out
			}
			a, b := run(false), run(true)
			if a.events != b.events || a.sojourns.Mean() != b.sojourns.Mean() || a.sojourns.Quantile(0.99) != b.sojourns.Quantile(0.99) ||
				!slices.Equal(a.tail, b.tail) || a.meanMax != b.meanMax || a.peak != b.peak {
				t.Errorf("%T, rates %v: inline run (%d events, mean %v) differs from Pick's (%d events, mean %v)",
					pc, rate, a.events, a.sojourns.Mean(), b.events, b.sojourns.Mean())
			}
		}
	}
}

// TestBoardInlinePathsArePicks: a board of one dispatcher runs its policy's inline pick written out in board.pick
// (board.own); the run is the one the policy's pick through pick1 gives, statistic for statistic, for every inline
// kind and every update rule, and with fresh information (period 0). Boards that may not (k > 1, dispatch counts,
// round robin's state) say so.
func TestBoardInlinePathsArePicks(t *testing.T) {
	cfgs := []policy.Config{policy.RandomConfig{}, policy.RoundRobinConfig{}, policy.JSQConfig{},
		policy.JSQdConfig{D: 2}, policy.JSQdConfig{D: 2, Replacement: true}}
	c := config{n: 10, lambda: 0.9, horizon: 2000, warmup: 100, mu: 1, sample: 50, track: 3}
	ps := policy.Servers{N: c.n}
	for _, rule := range []update{periodic, individual, dispatchCounts} {
		for _, period := range []float64{0, 3} {
			for _, pc := range cfgs {
				run := func(off bool) (outcome, *board) {
					s := sim.NewStreams(model.Seed{Run: 3, Policy: 2})
					var b *board
					out, err := simulate(context.Background(), c, s, func(lv *sim.Levels) *board {
						b = newBoard(rule, period, 1, func() policy.Policy { return pc.New(ps) }, false, lv, s)
						if off {
							b.own = policy.InlineNone
						}
						return b
					})
					if err != nil {
						t.Fatal(err)
					}
					return out, b
				}
				a, b := run(false)
				want := policy.InlineOf(pc.New(ps))
				if rule == dispatchCounts && period > 0 || !want.Stateless() {
					want = policy.InlineNone // every dispatch moves the sender's copy, or the pick keeps a cursor
				}
				if b.own != want {
					t.Fatalf("update %d, T = %g, %T: own %d, want %d", rule, period, pc, b.own, want)
				}
				x, bx := run(true)
				if a.events != x.events || a.sojourns.Mean() != x.sojourns.Mean() || a.sojourns.Quantile(0.99) != x.sojourns.Quantile(0.99) ||
					!slices.Equal(a.tail, x.tail) || a.meanMax != x.meanMax || a.peak != x.peak || b.refreshes != bx.refreshes ||
					len(a.series) != len(x.series) || a.series[len(a.series)-1].max != x.series[len(x.series)-1].max {
					t.Errorf("update %d, T = %g, %T: inline run (%d events, mean %v) differs from pick's (%d events, mean %v)",
						rule, period, pc, a.events, a.sojourns.Mean(), x.events, x.sojourns.Mean())
				}
			}
		}
	}
	s := sim.NewStreams(model.Seed{Run: 3})
	if b := newBoard(periodic, 3, 2, func() policy.Policy { return policy.JSQdConfig{D: 2}.New(ps) }, false, sim.NewLevels(c.n), s); b.own != policy.InlineNone {
		t.Errorf("two dispatchers: own %d, want InlineNone (each arrival draws its dispatcher)", b.own)
	}
}
