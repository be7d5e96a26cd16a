package sweep

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
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
	resumed := 0
	// As TestKillAndResume: 0.1 finds no chunk yet, 0.5 and 0.8 resume after one or two, 1.2 kills a finished
	// process; 0.9 is tried again if load skewed the timing so that nothing resumed.
	points := []float64{0.1, 0.5, 0.8, 1.2, 0.9, 0.9}
	for i, frac := range points {
		if i >= 4 && resumed > 0 {
			break
		}
		after := time.Duration(frac * float64(took))
		dir := t.TempDir()
		cmd := sweep(dir, true)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(after)
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		var stderr bytes.Buffer
		again := sweep(dir, false)
		again.Stderr = &stderr
		if err := again.Run(); err != nil {
			t.Fatalf("resume after kill at %v: %v\n%s", after, err, stderr.String())
		}
		if strings.Contains(stderr.String(), "resuming") {
			resumed++
		}
		t.Logf("killed at %v of %v: %s", after, took, strings.TrimSpace(stderr.String()))
		runs, series := seriesFiles(t, dir, "many")
		if !bytes.Equal(runs, wantRuns) || !bytes.Equal(series, wantSeries) {
			t.Errorf("killed at %v and resumed: dataset differs (runs equal: %v, time series equal: %v)", after, bytes.Equal(runs, wantRuns), bytes.Equal(series, wantSeries))
		}
		if ents, _ := os.ReadDir(filepath.Join(dir, "many")); len(ents) != 2 {
			t.Errorf("killed at %v: left %d entries, want %s and %s/", after, len(ents), FileName, results.SeriesDir)
		}
	}
	if resumed == 0 {
		t.Error("no kill point left finished runs to resume from: the test did not exercise resumption")
	}
}
