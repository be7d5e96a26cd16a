package main

import (
	"bytes"
	"context"
	"regexp"
	"strconv"
	"testing"
)

// planTime runs `sweep plan ARGS` and returns its estimated time in seconds and its work line.
func planTime(t *testing.T, args ...string) (float64, string) {
	t.Helper()
	var out, errb bytes.Buffer
	if code := plan(context.Background(), args, &out, &errb); code != 0 {
		t.Fatalf("sweep plan %q: exit %d: %s", args, code, errb.String())
	}
	m := regexp.MustCompile(`(?m)^estimated time: ([0-9.]+) s on (\d+) workers`).FindStringSubmatch(out.String())
	w := regexp.MustCompile(`(?m)^estimated work: .*$`).FindString(out.String())
	if m == nil || w == "" {
		t.Fatalf("sweep plan %q: no estimated work and time in %q", args, out.String())
	}
	secs, _ := strconv.ParseFloat(m[1], 64)
	return secs, w
}

// sweep plan times each point at its model's measured rate (model.Rater: the resilience model's 7e6 events/s),
// and -rate overrides it for every point; -j divides the runs among workers.
func TestPlanModelRate(t *testing.T) {
	const spec = "../../experiments/retry-storm.toml"
	own, work := planTime(t, "-j", "1", spec)
	if want := "at the model's measured rate"; !regexp.MustCompile(regexp.QuoteMeta(want)).MatchString(work) {
		t.Errorf("plan: %q, want %q", work, want)
	}
	slow, work := planTime(t, "-j", "1", "-rate", "7e5", spec)
	if !regexp.MustCompile(`at 7e\+05 events/s per worker`).MatchString(work) {
		t.Errorf("plan -rate 7e5: %q, want the rate named", work)
	}
	if r := slow / own; r < 8 || r > 10.5 { // ten times slower runs, the same fixed costs
		t.Errorf("plan -rate 7e5 said %.3g s, at the model's 7e6 %.3g s: ratio %.3g, want about 10", slow, own, r)
	}
	two, _ := planTime(t, "-j", "2", spec)
	if r := own / two; r < 1.7 || r > 2.05 { // 40 runs of equal cost share two workers evenly
		t.Errorf("plan -j 2 said %.3g s, -j 1 %.3g s: ratio %.3g, want about 2", two, own, r)
	}
}
