package sweep

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"lbsweep/experiments"
)

// footprintCases are one point of every model, each sized so that its state (tens to hundreds of MB) stands well
// above the noise of a process's peak RSS (a few MB), and each run in about a second or less.
var footprintCases = []struct{ name, model, params string }{
	{"supermarket", "supermarket", "n = 1000000\nlambda = 0.9\nhorizon = 0.5\npolicy = { name = \"jsq_d\", d = 2 }"},
	{"supermarket-ewma", "supermarket", "n = 500000\nlambda = 0.9\nhorizon = 0.5\npolicy = { name = \"peak_ewma\", tau = 1.0, default_rtt = 1.0 }"},
	{"bulletin_board", "bulletin_board", "n = 100000\nlambda = 0.9\nhorizon = 1.0\nperiod = 0.5\nupdate = \"dispatch_counts\"\ndispatchers = 64\npolicy = { name = \"jsq_d\", d = 2 }"},
	{"bulletin_board-series", "bulletin_board", "n = 100\nlambda = 0.9\nhorizon = 20000.0\nperiod = 1.0\nsample = 0.4\ntrack = 64\npolicy = { name = \"jsq_d\", d = 2 }"},
	{"balls_into_bins", "balls_into_bins", "n = 100000000\nm = 1000000"},
	{"fleet", "fleet", "servers = [{ count = 1000000 }]\nlambda = 1000.0\nhorizon = 1.0\npolicy = { name = \"jsq_d\", d = 2 }"},
	{"resilience-series", "resilience", "servers = [{ count = 1000 }]\nrate = 100.0\nhorizon = 200000.0\nbin = 100.0\npolicy = \"random\""},
	{"resilience-keys", "resilience", "servers = [{ count = 20 }]\nrate = 100.0\nhorizon = 1000.0\nkeys = 1000000\ncache = 1000\npolicy = \"random\""},
	{"placement", "placement", "n = 1000\nm = 1000\nscheme = \"ring\"\nmin_ring_size = 2000000"},
	{"subsetting", "subsetting", "clients = 4000000\nbackends = 100\nscheme = \"random\"\nsubset_size = 10"},
	{"wrr_sequence", "wrr_sequence", "weights = [WEIGHTS]\ncycles = 1\npolicy = \"round_robin\""},
}

// TestFootprintWithinTwiceMeasured guards `sweep plan`'s memory and the -mem budget: for one point of every model,
// the model's estimate (model.Bounds, as Spec.Peak) lies within a factor of 2 of the peak RSS its sweep adds to a
// sweep process (this test binary re-executed as the sweep, TestSweepHelperProcess, on one run), measured by
// wait4's ru_maxrss against the same process sweeping a tiny point.
func TestFootprintWithinTwiceMeasured(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a dozen child sweeps")
	}
	dir := t.TempDir()
	weights := strings.TrimSuffix(strings.Repeat("1, ", 100000), ", ")
	peakRSS := func(name, model, params string) (float64, *experiments.Spec) {
		t.Helper()
		text := "name = \"" + strings.ReplaceAll(name, "_", "-") + "\"\nmodel = \"" + model + "\"\nseed = 1\n[params]\n" + strings.ReplaceAll(params, "WEIGHTS", weights) + "\n"
		file := filepath.Join(dir, name+".toml")
		if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		spec, err := experiments.Load(file)
		if err != nil {
			t.Fatal(err)
		}
		cmd := helperSweep("plain", filepath.Join(dir, "results"), file, true)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v: %s", name, err, out)
		}
		t.Logf("%s: %.2f s of CPU", name, (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Seconds())
		return float64(cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss) * 1024, spec
	}
	base, _ := peakRSS("baseline", "supermarket", "n = 10\nlambda = 0.5\nhorizon = 10.0\npolicy = \"random\"")
	for _, c := range footprintCases {
		rss, spec := peakRSS(c.name, c.model, c.params)
		measured, est := rss-base, spec.Peak.Bytes
		t.Logf("%-22s estimate %9s  measured %9s  ratio %.2f  (%s)", c.name, experiments.Bytes(est), experiments.Bytes(measured), est/measured, spec.Peak.What)
		if !(est <= 2*measured && measured <= 2*est) {
			t.Errorf("%s: estimate %s, measured peak RSS increase %s (%.0f MB over the baseline's %.0f MB): not within 2×",
				c.name, experiments.Bytes(est), experiments.Bytes(measured), rss/1e6, base/1e6)
		}
	}
}
