package supermarket

import (
	"context"
	"testing"

	"lbsweep/model"
	"lbsweep/results/schema"
)

// allocsPerEvent runs the point at horizon h and at 4h (warm-up h/10) once each under testing.AllocsPerRun and
// returns the extra allocations of the longer run per extra event, beside both counts.
func allocsPerEvent(t *testing.T, m model.Model, build func(h float64) model.Point, h float64, events int) (per, a1, a4 float64) {
	t.Helper()
	count := func(h float64) (float64, int64) {
		p := build(h)
		var ev int64
		a := testing.AllocsPerRun(1, func() {
			row, err := model.RunRow(context.Background(), m, p, model.Seed{Run: 3})
			if err != nil {
				t.Fatal(err)
			}
			ev = row[events].I
		})
		return a, ev
	}
	a1, e1 := count(h)
	a4, e4 := count(4 * h)
	return (a4 - a1) / float64(e4-e1), a1, a4
}

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
		per, a1, a4 := allocsPerEvent(t, Model{}, func(h float64) model.Point { return point(t, n, 0.9, h, h/10, c.pol, c.d, false) }, h, mEvents)
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
			per, a1, a4 := allocsPerEvent(t, BulletinBoard{}, build, h, metricIndex(t, BulletinBoard{}.Metrics(), "events"))
			t.Logf("bulletin board %d %-8s %5.0f allocations at horizon %g, %5.0f at 4×: %.2g per extra event", rule, c.pol, a1, h, a4, per)
			if per > 1e-4 {
				t.Errorf("bulletin board update %d %s: %.0f allocations at horizon %g, %.0f at 4×: %.2g per extra event", rule, c.pol, a1, h, a4, per)
			}
		}
	}
}

// metricIndex is the index of the metric column named name.
func metricIndex(t testing.TB, cols []schema.Column, name string) int {
	for i, c := range cols {
		if c.Name == name {
			return i
		}
	}
	t.Fatalf("no metric %s", name)
	return -1
}
