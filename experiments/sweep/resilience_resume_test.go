package sweep

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"lbsweep/results"
)

// resilienceMany is a resilience spec of 3000 short runs with a time series (bin > 0) and a fault timeline: each run
// simulates 300 ms at 200 requests/s over 4 servers, server 1 slowed to a quarter speed from 100 to 200 ms, timeouts
// and retries on, in 6 bins of 50 ms. Chunks of 1000 rows are flushed twice before the end.
const resilienceMany = `name = "many"
model = "resilience"
seed = 11
replications = 3000
[params]
servers = [{ count = 4 }]
rate = 200.0
mean = 10.0
hop = 1.0
timeout = 60.0
retries = 2
horizon = 300.0
warmup = 50.0
bin = 50.0
timeline = [{ at = 100.0, server = 1, action = "slow", factor = 0.25 }, { at = 200.0, server = 1, action = "restore" }]
policy = "round_robin"
`

// A sweep of the resilience model, time series included, killed with SIGKILL at several moments and rerun with the
// same command, ends with the bytes of an uninterrupted sweep in both tables (TestSeriesKillAndResume's approach, on
// the real model rather than the fake SeriesModel: its series rows, per-server lists and null percentiles of empty
// bins go through the chunks too).
func TestResilienceKillAndResume(t *testing.T) {
	if testing.Short() {
		t.Skip("kills sweeps")
	}
	specPath := filepath.Join(t.TempDir(), "many.toml")
	if err := os.WriteFile(specPath, []byte(resilienceMany), 0o644); err != nil {
		t.Fatal(err)
	}
	sweep := func(dir string, quiet bool) *exec.Cmd { return helperSweep("plain", dir, specPath, quiet) }
	ref := t.TempDir()
	began := time.Now()
	if out, err := sweep(ref, true).CombinedOutput(); err != nil {
		t.Fatalf("reference sweep: %v\n%s", err, out)
	}
	took := time.Since(began) // kill points are fractions of it, so a slow or busy machine does not defeat the test
	wantRuns, wantSeries := seriesFiles(t, ref, "many")
	st, err := results.ReadFile(filepath.Join(ref, "many", results.SeriesDir, FileName))
	if err != nil {
		t.Fatal(err)
	}
	if want := 3000 * 6; len(st.Rows) != want {
		t.Fatalf("reference time series: %d rows, want 3000 runs × 6 bins = %d", len(st.Rows), want)
	}
	killAndResumeSeries(t, sweep, took, wantRuns, wantSeries)
}
