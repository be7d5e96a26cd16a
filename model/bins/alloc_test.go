package bins

import (
	"context"
	"testing"

	"lbsweep/model"
)

// No allocation per ball: placing four times as many balls in the same bins allocates no more (the bins are reused
// between runs, as the registry's model does; the histogram depends on the loads, not the balls), for every scheme.
// The run without its theory columns, which are computed once per point (for d = 1 their work grows with m: the
// exact law of the max load).
func TestNoAllocationPerBall(t *testing.T) {
	const n = 100_000
	m := New()
	for _, c := range []struct {
		name string
		d    int64
		sch  scheme
		repl bool
	}{{"greedy d=1", 1, greedy, true}, {"greedy d=2", 2, greedy, true}, {"greedy d=3 distinct", 3, greedy, false}, {"go_left d=2", 2, goLeft, true}} {
		allocs := func(balls int64) float64 {
			p := pt(n, balls, c.d, c.sch, c.repl, tieFirst)
			return testing.AllocsPerRun(2, func() {
				if _, err := m.Run(context.Background(), p, model.Seed{Run: 1}); err != nil {
					t.Fatal(err)
				}
			})
		}
		a1, a4 := allocs(n), allocs(4*n)
		t.Logf("%-20s %4.0f allocations at m = n = %d, %4.0f at m = 4n", c.name, a1, n, a4)
		if a4 > a1 {
			t.Errorf("%s: %.0f allocations at m = %d balls, %.0f at m = %d", c.name, a1, n, a4, 4*n)
		}
	}
}
