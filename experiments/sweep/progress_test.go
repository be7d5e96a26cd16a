package sweep

import (
	"context"
	"strings"
	"testing"
	"time"

	"lbsweep/experiments"
)

// TestProgressLinesWhileNoRunFinishes guards the progress lines off a terminal: one every Options.Every even while a
// single long run is in flight (they used to be printed only when a run finished, so a sweep of long runs was silent
// for minutes), with the share of the estimated events done and an ETA from them.
func TestProgressLinesWhileNoRunFinishes(t *testing.T) {
	s, err := experiments.Parse("p.toml", `name = "p"
model = "supermarket"
seed = 1
replications = 1

[params]
n = 1000
horizon = 12000.0
warmup = 100.0
policy = { name = "jsq_d", d = 2 }

[sweep]
load = [0.9, 0.5]
`)
	if err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	start := time.Now()
	if _, err := Run(context.Background(), s, Options{Dir: t.TempDir(), Workers: 1, Log: &log, Every: 50 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	el := time.Since(start)
	var before, after int
	for _, line := range strings.Split(log.String(), "\n") {
		switch {
		case strings.Contains(line, ": 0/2 runs") && strings.Contains(line, "0% of the estimated events, ETA unknown (no run finished yet)"):
			before++
		case strings.Contains(line, ": 1/2 runs") && strings.Contains(line, "% of the estimated events, ETA "):
			after++
		}
	}
	// Lines come at most every 50 ms, checked every chunkTick (250 ms): the first run alone lasts most of the sweep.
	if before < 1 || before+after < int(el/(2*chunkTick)) {
		t.Errorf("%d lines before the first run finished and %d after, in %v:\n%s", before, after, el, log.String())
	}
}
