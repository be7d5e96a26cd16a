package resilience

import (
	"testing"

	"lbsweep/experiments/claims"
	"lbsweep/model"
)

// Little's law in the statistical sense, on stable scenarios: the time-average number in the system L over the
// window against the nominal arrival rate λ times the mean time W of the requests answered in it, L/(λ·W) with a
// Student-t interval over replications at alpha that must cover 1. (The run's own book is the exact identity with
// the requests' clipped times; this one uses the configured λ and the answered requests' mean latency, so it fails
// when the integrated count, the latencies or the arrival rate are wrong. Its bias, the requests pending at the
// horizon left out of W, is of relative order W/window ≈ 0.5%, far inside the intervals.) A closed loop has no
// nominal λ; there the thinking users obey Little's law too: users − L = X·think, X the measured throughput.
func TestLittleStatistical(t *testing.T) {
	const reps = 12
	for _, s := range []scenario{
		{"open retries", []model.Record{srvClass(t, 4)}, nil, "least_outstanding",
			[]string{"rate=120", "timeout=150", "retries=2", "error_rate=0.02"}},
		{"open gc lifo bounded", []model.Record{srvClass(t, 3), srvClass(t, 1, "gc_every=2000", "gc_pause=300")}, nil, "round_robin",
			[]string{"rate=100", "queue=20", "discipline=lifo", "timeout=400", "retries=1"}},
		{"open lognormal workers", []model.Record{srvClass(t, 2, "workers=3")}, nil, "random",
			[]string{"rate=200", "service=lognormal", "cv=1.5", "hop_law=exponential"}},
		{"closed loop", []model.Record{srvClass(t, 4)}, nil, "peak_ewma", []string{"users=12", "think=100", "tau=100"}},
	} {
		p := point(t, s.classes, s.timeline, s.pol, append(s.set, "horizon=20000", "warmup=2000")...)
		c := configOf(p)
		window := c.horizon - c.warmup
		var ratios, thinking []float64
		for rep := range reps {
			out := run(t, p, uint64(100+rep))
			L := out.area / window
			X := float64(out.offered) / window // per ms
			if c.rate > 0 {
				ratios = append(ratios, L/(c.rate*out.all.Mean()))
			} else {
				ratios = append(ratios, L/(X*out.all.Mean()))
				thinking = append(thinking, (float64(c.users)-L)/(X*c.think))
			}
		}
		for _, x := range []struct {
			what string
			xs   []float64
		}{{"L/(λW)", ratios}, {"(users − L)/(X·think)", thinking}} {
			if x.xs == nil {
				continue
			}
			e := claims.MeanCI(x.xs, alpha)
			t.Logf("%s: %s = %.4f ± %.4f", s.name, x.what, e.Mean, e.Half)
			if e.Mean-e.Half > 1 || e.Mean+e.Half < 1 {
				t.Errorf("%s: %s = %.4f ± %.4f does not cover 1", s.name, x.what, e.Mean, e.Half)
			}
		}
	}
}
