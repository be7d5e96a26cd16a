package experiments_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"lbsweep/experiments"
)

// timelineSpec is a resilience spec whose timeline's second element (line 13) each case below replaces. Its line
// numbers are asserted: 10 timeline =, 12 the first element, 13 the second, 14 the third.
const timelineSpec = `name = "tl"
model = "resilience"
seed = 1
replications = 2

[params]
servers = [{ count = 4 }]
rate = 100.0
horizon = 2000.0
timeline = [
  # server 1 at half speed from 100 ms to 1000 ms (a brace in a comment is no element: {)
  { at = 100.0, server = 1, action = "slow", factor = 0.5 },
  SECOND,
  { at = 1000.0, server = 1, action = "restore" },
]
policy = "round_robin"
`

// A bad timeline entry in a spec file is one line naming the file, the line of the entry and the key, and saying
// what is wrong: an unknown action (caught as the file is decoded), a negative time, a server out of range, and a
// restore, restart or recover with nothing to undo (caught when the model checks the point).
func TestTimelineErrors(t *testing.T) {
	cases := []struct {
		name, second string
		want         string // a fragment of the message
	}{
		{"unknown action", `{ at = 200.0, server = 2, action = "explode" }`, `element 2, action: unknown action "explode" (valid: kill, restart, slow, restore, pause, fail, recover, add, rate)`},
		{"negative time", `{ at = -5.0, server = 2, action = "kill" }`, "element 2 (kill at -5): at -5, need 0 ≤ at < horizon (2000)"},
		{"time past the horizon", `{ at = 2000.0, server = 2, action = "kill" }`, "element 2 (kill at 2000): at 2000, need 0 ≤ at < horizon (2000)"},
		{"server out of range", `{ at = 200.0, server = 4, action = "kill" }`, "element 2 (kill at 200): server 4, need 0 ≤ server < n (4)"},
		{"negative server", `{ at = 200.0, server = -1, action = "kill" }`, "element 2 (kill at 200): server -1, need 0 ≤ server < n (4)"},
		{"restore with nothing slowed", `{ at = 200.0, server = 2, action = "restore" }`, "element 2 (restore at 200): server 2 is not slowed: nothing to restore"},
		{"restore before the slow-down", `{ at = 50.0, server = 1, action = "restore" }`, "element 2 (restore at 50): server 1 is not slowed: nothing to restore"},
		{"restart of a running server", `{ at = 200.0, server = 3, action = "restart" }`, "element 2 (restart at 200): server 3 is not down: nothing to restart"},
		{"recover with no fail", `{ at = 200.0, action = "recover" }`, "element 2 (recover at 200): no server is failing: nothing to recover"},
		{"unknown key", `{ at = 200.0, server = 2, action = "slow", speed = 0.5 }`, `element 2: unknown key "speed"`},
	}
	dir := t.TempDir()
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(dir, fmt.Sprintf("tl-%d.toml", i))
			if err := os.WriteFile(path, []byte(strings.Replace(timelineSpec, "SECOND", c.second, 1)), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := experiments.Load(path)
			var e *experiments.Error
			if !errors.As(err, &e) {
				t.Fatalf("Load = %v, want an *experiments.Error", err)
			}
			msg := err.Error()
			if strings.Contains(msg, "\n") {
				t.Errorf("error is not one line: %q", msg)
			}
			if prefix := path + ":13: params.timeline: "; !strings.HasPrefix(msg, prefix) {
				t.Errorf("error %q does not begin %q (file, the entry's line, key)", msg, prefix)
			}
			if !strings.Contains(e.Msg, c.want) {
				t.Errorf("message %q does not contain %q", e.Msg, c.want)
			}
		})
	}
	// The valid timeline loads: the cases above fail for their second entry alone.
	path := filepath.Join(dir, "ok.toml")
	os.WriteFile(path, []byte(strings.Replace(timelineSpec, "SECOND", `{ at = 200.0, server = 2, action = "kill" }`, 1)), 0o644)
	if _, err := experiments.Load(path); err != nil {
		t.Fatalf("valid timeline: %v", err)
	}
	// In [sweep] each value is a whole timeline and the message names the entry within it: the line is the axis key's.
	sweep := strings.Replace(timelineSpec, "timeline = [", "[sweep]\ntimeline = [[", 1)
	sweep = strings.Replace(sweep, "]\npolicy", "]]\n[params.x]\npolicy", 1)
	sweep = strings.Replace(sweep, "SECOND", `{ at = 200.0, server = 9, action = "kill" }`, 1)
	sweep = strings.Replace(sweep, "[params.x]\n", "", 1)
	sweep = strings.Replace(sweep, "policy = \"round_robin\"\n", "", 1)
	sweep = strings.Replace(sweep, "horizon = 2000.0\n", "horizon = 2000.0\npolicy = \"round_robin\"\n", 1)
	path = filepath.Join(dir, "sweep.toml")
	os.WriteFile(path, []byte(sweep), 0o644)
	_, err := experiments.Load(path)
	if err == nil || !strings.HasPrefix(err.Error(), path+":12: sweep.timeline: ") || !strings.Contains(err.Error(), "element 2 (kill at 200): server 9, need 0 ≤ server < n (4)") {
		t.Errorf("bad entry in a swept timeline: %v, want %s:12: sweep.timeline: element 2 ...\n%s", err, path, sweep)
	}
}
