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
