package resilience_test

import (
	"strings"
	"testing"

	"lbsweep/experiments"
)

// Through a spec: points that differ only in their timeline get the same seed (the timeline is a twin parameter),
// and a bad timeline entry (an unknown action, caught by the spec decoder; one Check refuses) is one line naming
// the file, the line and the key.
func TestSpecTimeline(t *testing.T) {
	s, err := experiments.Parse("twins.toml", `name = "twins"
model = "resilience"
seed = 3
replications = 2

[params]
servers = [{ count = 2 }]
rate = 50.0
horizon = 2000.0
policy = "round_robin"

[sweep]
timeline = [[{ at = 500.0, action = "pause", duration = 10.0 }], [{ at = 500.0, action = "kill", server = 1 }, { at = 900.0, action = "restart", server = 1 }]]
`)
	if err != nil {
		t.Fatal(err)
	}
	if s.Runs() != 4 {
		t.Fatalf("%d runs, want 2 timelines × 2 replications", s.Runs())
	}
	for i := range 2 {
		a, b := s.Run(i), s.Run(i+2)
		if a.Seed != b.Seed || a.Key == b.Key {
			t.Errorf("%s and %s: seeds %+v and %+v, want equal seeds for different keys", a.Key, b.Key, a.Seed, b.Seed)
		}
	}
	// Line 10 of each spec holds the timeline.
	for _, c := range []struct{ entry, want string }{
		{`{ at = 500.0, action = "explode" }`, `bad.toml:10: params.timeline: element 1, action: unknown action "explode"`},
		{`{ at = 500.0, action = "restore" }`, `bad.toml:10: params.timeline: element 1 (restore at 500): no server is slowed: nothing to restore`},
		{`{ at = -1.0, action = "kill" }`, `bad.toml:10: params.timeline: element 1 (kill at -1): at -1, need 0 ≤ at < horizon`},
	} {
		_, err = experiments.Parse("bad.toml", `name = "bad"
model = "resilience"
seed = 1

[params]
servers = [{ count = 2 }]
rate = 50.0
horizon = 2000.0
policy = "round_robin"
timeline = [`+c.entry+`]
`)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("timeline %s: %v; want one line starting %q", c.entry, err, c.want)
		}
	}
}
