package supermarket

import (
	"testing"

	"lbsweep/model"
	"lbsweep/model/modeltest"
)

// No allocation per event, in the supermarket (every inline policy, the weighted and the scored ones) and the
// bulletin board (each update rule): a run four times as long allocates at most one more time per 10^4 extra events
// (the sojourn ring's and the sketch's amortised growth are logarithmic in the run's length; about 10^6 more events
// here).
func TestNoAllocationPerEvent(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 36 simulations of up to 1.4·10^6 events")
	}
	const n, h = 100, 2000.0
	for _, c := range []struct {
		pol string
		d   int
	}{{"random", 0}, {"round_robin", 0}, {"jsq_d", 2}, {"jsq", 0}, {"smooth_wrr", 0}, {"least_request", 0}, {"peak_ewma", 0}, {"least_outstanding", 2}} {
		build := func(h float64) model.Point { return point(t, n, 0.9, h, h/10, c.pol, c.d, false) }
		per, a1, a4, _, _ := modeltest.AllocsPerWork(t, Model{}, build, h, model.Seed{Run: 3}, "events")
		t.Logf("supermarket %-18s %5.0f allocations at horizon %g, %5.0f at 4×: %.2g per extra event", c.pol, a1, h, a4, per)
		if per > 1e-4 {
			t.Errorf("supermarket %s: %.0f allocations at horizon %g, %.0f at 4×: %.2g per extra event", c.pol, a1, h, a4, per)
		}
	}
	for _, rule := range []update{periodic, individual, dispatchCounts} {
		for _, c := range []struct {
			pol string
			d   int
		}{{"jsq_d", 2}, {"jsq", 0}} {
			build := func(h float64) model.Point { return boardPoint(t, n, 0.9, h, h/10, 5, rule, 1, c.pol, c.d) }
			per, a1, a4, _, _ := modeltest.AllocsPerWork(t, BulletinBoard{}, build, h, model.Seed{Run: 3}, "events")
			t.Logf("bulletin board %d %-8s %5.0f allocations at horizon %g, %5.0f at 4×: %.2g per extra event", rule, c.pol, a1, h, a4, per)
			if per > 1e-4 {
				t.Errorf("bulletin board update %d %s: %.0f allocations at horizon %g, %.0f at 4×: %.2g per extra event", rule, c.pol, a1, h, a4, per)
			}
		}
	}
}
