package fleet

import (
	"fmt"
	"testing"

	"lbsweep/model"
	"lbsweep/model/modeltest"
)

// No allocation per request: a run four times as long allocates at most one more time per 10^3 extra events, for
// every policy the twin-worlds test drives, with the broken backend (the latencies kept for exact percentiles grow
// by doubling: a logarithmic count).
func TestNoAllocationPerRequest(t *testing.T) {
	for _, c := range []struct {
		name string
		set  []string
	}{
		{"round_robin", nil}, {"random", nil}, {"smooth_wrr", nil}, {"jsq", nil}, {"jsq_d", []string{"d=2"}},
		{"least_request", nil}, {"peak_ewma", []string{"tau=10"}}, {"least_outstanding", []string{"d=2"}},
		{"ewma", []string{"observe=completion"}}, {"ewma_success", []string{"observe=completion"}},
	} {
		const h = 20000.0
		build := func(h float64) model.Point {
			return point(t, sinkhole(true), 0.32, h, c.name, append([]string{"mean=10"}, c.set...)...)
		}
		per, a1, a4, e1, e4 := modeltest.AllocsPerWork(t, Model{}, build, h, model.Seed{Run: 5}, "events")
		name := fmt.Sprintf("%s %v", c.name, c.set)
		t.Logf("%-32s %4.0f allocations over %d events, %4.0f over %d: %.2g per extra event", name, a1, e1, a4, e4, per)
		if per > 1e-3 {
			t.Errorf("%s: %.0f allocations over %d events, %.0f over %d: %.2g per extra event", name, a1, e1, a4, e4, per)
		}
	}
}
