package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// sweep plan assumes the model's own typical event rate where it declares one (model.Rater: the resilience model's
// 5e6), and -rate overrides it.
func TestPlanModelRate(t *testing.T) {
	var out, errb bytes.Buffer
	if code := plan(context.Background(), []string{"../../experiments/retry-storm.toml"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "at 5e+06 events/s per worker") {
		t.Errorf("plan of a resilience spec: %q, want the model's 5e+06 events/s", out.String())
	}
	out.Reset()
	if code := plan(context.Background(), []string{"-rate", "1e6", "../../experiments/retry-storm.toml"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "at 1e+06 events/s per worker") {
		t.Errorf("plan -rate 1e6: %q, want 1e+06 events/s", out.String())
	}
}
