package fleet_test

import (
	"context"
	"fmt"
	"testing"

	"lbsweep/experiments"
	"lbsweep/model"
)

// End to end through a spec: the healthy and the broken world of one grid point get the same seeds (healthy is a
// twin field, broken a twin parameter), so every outcome-blind policy's row is the same in both worlds but for
// goodput, and the columns n and broken are filled in.
func TestTwinWorldsSpec(t *testing.T) {
	s, err := experiments.Parse("twins.toml", `name = "twins"
model = "fleet"
seed = 17
replications = 2

[params]
lambda = 0.32
horizon = 3000.0
mean = 10.0

[sweep]
servers = [[{ count = 3 }, { count = 1, mean = 1.0 }], [{ count = 3 }, { count = 1, mean = 1.0, healthy = false }]]
policy = ["round_robin", "least_outstanding", { name = "ewma", observe = "dispatch" }, { name = "ewma", d = 2 }]
`)
	if err != nil {
		t.Fatal(err)
	}
	cols := map[string]int{}
	for i, c := range s.Model.Metrics() {
		cols[c.Name] = i
	}
	runs := s.Runs() / 2 // the healthy world's runs come first (servers is the first axis)
	for i := range runs {
		h, b := s.Run(i), s.Run(i+runs)
		if h.Seed != b.Seed {
			t.Fatalf("%s and %s: seeds %+v, %+v", h.Key, b.Key, h.Seed, b.Seed)
		}
		hr, err := model.RunRow(context.Background(), s.Model, h.Point, h.Seed)
		if err != nil {
			t.Fatal(err)
		}
		br, _ := model.RunRow(context.Background(), s.Model, b.Point, b.Seed)
		for name, m := range cols {
			same := fmt.Sprint(hr[m]) == fmt.Sprint(br[m])
			differs := name == "goodput" || name == "goodput_fraction" || name == "broken_share" ||
				name == "p99_success_latency" || name == "mean_success_latency" || name == "broken_samples" ||
				name == "broken_win_rate" || name == "theory_broken_share" || name == "theory_source"
			if !same && !differs {
				t.Errorf("%s vs %s: %s = %+v vs %+v", h.Key, b.Key, name, hr[m], br[m])
			}
		}
	}
	if p, _ := s.Point(s.Points() - 1); p[0].I != 4 || p[2].I != 1 {
		t.Errorf("resolved n = %d, broken = %d; want 4 and 1", p[0].I, p[2].I)
	}
}
