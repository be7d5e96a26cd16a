package resilience

import (
	"testing"

	"lbsweep/model/policy"
	"lbsweep/model/sim"
)

// TestErrorsActiveHold checks the SRE book's fix exactly on one guard: a 500 from server k adds one to k's
// outstanding count at once and takes it off exactly errors_active ms later; successes, 503s, timeouts and
// cancellations hold nothing; two 500s hold two.
func TestErrorsActiveHold(t *testing.T) {
	e := &engine{c: config{n: 2, horizon: 1e9}, lv: sim.NewLevels(2)}
	g := &errorsActive{hold: 50, idx: 0, held: make([]int, 2)}
	e.guards = []guard{g}
	e.now = 10
	for _, o := range []policy.Outcome{policy.OK, policy.Rejected, policy.Timeout, policy.Cancelled} {
		g.result(e, 1, 0, o, 1)
	}
	if e.lv.Len(1) != 0 || e.ev.Len() != 0 {
		t.Fatalf("a %v held a count (%d) or set a timer", "non-500", e.lv.Len(1))
	}
	g.result(e, 1, 0, policy.Error, 1)
	e.now = 30
	g.result(e, 1, 0, policy.Error, 1)
	if e.lv.Len(1) != 2 || e.lv.Len(0) != 0 || g.held[1] != 2 {
		t.Fatalf("after two 500s from server 1: counts %d, %d (held %v), want 0, 2", e.lv.Len(0), e.lv.Len(1), g.held)
	}
	for _, want := range []struct {
		at    float64
		count int32
	}{{60, 1}, {80, 0}} {
		at, x := e.ev.Pop()
		e.now = at
		e.handle(x)
		if at != want.at || e.lv.Len(1) != want.count {
			t.Errorf("release at %v (want %v): server 1's count %d, want %d", at, want.at, e.lv.Len(1), want.count)
		}
	}
	if e.ev.Len() != 0 || g.held[1] != 0 {
		t.Errorf("%d timers left, %d held", e.ev.Len(), g.held[1])
	}
}
