package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// hostileSpec is a one-point spec of model with the [params] lines params.
func hostileSpec(model, params string) string {
	return "name = \"hostile\"\nmodel = \"" + model + "\"\nseed = 1\nreplications = 2\n[params]\n" + params + "\n"
}

// TestHostileInputsRefused guards the inputs that once crashed a sweep, ran it forever or wrote wrong data (issue
// 20): each is refused before anything runs, with exit 1 and one line naming the file, the line and the key, no
// stack trace, and no dataset directory written. (Concurrent writers: experiments/sweep's
// TestSecondSweepRefusedNamingHolder; signals: TestEveryCommandStopsOnFirstSignal.)
func TestHostileInputsRefused(t *testing.T) {
	cases := []struct {
		name, spec string
		want       string // the error line after "sweep: FILE", e.g. ":6: params.balls_per_bin: "
	}{
		{"balls_per_bin overflowing int64", hostileSpec("balls_into_bins", "n = 100\nballs_per_bin = 1e17"), ":7: params.balls_per_bin: 1e+17: balls_per_bin·n = 1e+19 balls"},
		{"balls_per_bin 1e300", hostileSpec("balls_into_bins", "n = 100\nballs_per_bin = 1e300"), ":7: params.balls_per_bin: 1e+300: balls_per_bin·n"},
		{"board copies beyond memory", hostileSpec("bulletin_board", "n = 1000000\ndispatchers = 65536\nupdate = \"dispatch_counts\"\npolicy = \"jsq\"\nlambda = 0.9\nperiod = 0.5\nhorizon = 0.001"),
			":7: params.dispatchers: a run needs an estimated 787 GB (65536 board copies"},
		{"supermarket beyond memory", hostileSpec("supermarket", "n = 20000000\nlambda = 0.5\nhorizon = 0.001\npolicy = \"random\""), ":6: params.n: a run needs an estimated"},
		{"horizon 1e308", hostileSpec("supermarket", "n = 10\nlambda = 0.5\nhorizon = 1e308\npolicy = \"random\""), ":8: params.horizon: the run would take about +Inf simulated events"},
		{"horizon beyond the work bound", hostileSpec("balls_into_bins", "n = 10\nm = 100\n[sweep]\nd = [1, 2]"), ""}, // a valid spec: the control
		{"bins work 1e11 balls", hostileSpec("balls_into_bins", "n = 10\nm = 200000000000"), ":7: params.m: 200000000000 balls: at most 1e+11"},
		{"warmup within 1e-11 of the horizon", hostileSpec("supermarket", "n = 10\nlambda = 0.5\nhorizon = 1000.0\nwarmup = 999.99999999999\npolicy = \"random\""), ":9: params.warmup: 999.99999999999: the measurement window"},
		{"resilience series beyond memory", hostileSpec("resilience", "servers = [{ count = 100000 }]\nrate = 100.0\nhorizon = 100000000.0\nbin = 100000.0\npolicy = \"random\""), ":9: params.bin: a run needs an estimated"},
	}
	nested := hostileSpec("supermarket", "n = "+strings.Repeat("{a = ", 20000)+"1"+strings.Repeat("}", 20000))
	cases = append(cases, []struct{ name, spec, want string }{
		{"20000 nested inline tables", nested, ":6: brackets and braces nested more than 32 deep"},
		{"a spec over 1 MiB", hostileSpec("supermarket", "n = 10\n#"+strings.Repeat("x", 1<<20)), ": 1048659 bytes: a spec is at most 1048576 bytes"},
		{"a name over 255 bytes", strings.Replace(hostileSpec("supermarket", "n = 10"), "hostile", strings.Repeat("a", 300), 1), ":1: name: 300 bytes: a dataset name is at most 200 bytes"},
		{"/dev/zero", "PATH=/dev/zero", ": a device, not a regular file"},
		{"a FIFO", "FIFO", ": a named pipe, not a regular file"},
		{"a directory", "DIR", ": a directory, not a regular file"},
		{"a key of 20000 dotted segments", "name = \"x\"\n" + strings.Repeat("a.", 20000) + "a = 1\n", ":2: a key or table header of more than 32 dotted segments"},
		{"a header of 20000 dotted segments", "name = \"x\"\n[" + strings.Repeat("a.", 20000) + "a]\n", ":2: a key or table header of more than 32 dotted segments"},
	}...)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			var file string
			switch {
			case strings.HasPrefix(c.spec, "PATH="):
				file = strings.TrimPrefix(c.spec, "PATH=")
			case c.spec == "FIFO":
				file = filepath.Join(dir, "fifo.toml")
				if err := syscall.Mkfifo(file, 0o644); err != nil {
					t.Fatal(err)
				}
			case c.spec == "DIR":
				file = filepath.Join(dir, "dir.toml")
				if err := os.Mkdir(file, 0o755); err != nil {
					t.Fatal(err)
				}
			default:
				file = cliWrite(t, dir, "hostile.toml", c.spec)
			}
			out := filepath.Join(dir, "results")
			code, _, stderr := cliRun(t, "-q", "-mem", "1GB", "-o", out, file)
			cliNoCrash(t, stderr)
			if c.want == "" {
				if code != 0 {
					t.Fatalf("the control spec failed: exit %d: %s", code, stderr)
				}
				return
			}
			var errs []string
			for _, l := range strings.Split(strings.TrimSpace(stderr), "\n") {
				if !strings.HasPrefix(l, "sweep: warning: ") {
					errs = append(errs, l)
				}
			}
			if code != 1 || len(errs) != 1 || !strings.HasPrefix(errs[0], "sweep: "+file+c.want) {
				t.Fatalf("exit %d, stderr:\n%s\nwant exit 1 and one line starting %q", code, stderr, "sweep: "+file+c.want)
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("%s was created (%v): a refused spec must write nothing", out, err)
			}
		})
	}
}

// TestMemoryBudgetFlag guards -mem: sizes parse in decimal and binary units, and nonsense is a usage error (2).
func TestMemoryBudgetFlag(t *testing.T) {
	for in, want := range map[string]float64{"4GB": 4e9, "512MiB": 512 << 20, "1e10": 1e10, "100000": 1e5} {
		if got, err := memoryBudget(in); err != nil || got != want {
			t.Errorf("memoryBudget(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"0", "-1", "lots", "NaN", "1e300"} {
		if _, err := memoryBudget(in); err == nil {
			t.Errorf("memoryBudget(%q) accepted", in)
		}
	}
	if got, err := memoryBudget(""); err != nil || !(got > 0) {
		t.Errorf("the default budget = %v, %v; want half of this machine's memory", got, err)
	}
	dir := t.TempDir()
	file := cliWrite(t, dir, "s.toml", hostileSpec("supermarket", "n = 10\nlambda = 0.5\nhorizon = 10.0\npolicy = \"random\""))
	if code, _, stderr := cliRun(t, "-q", "-mem", "lots", "-o", dir, file); code != 2 || !strings.Contains(stderr, "-mem") {
		t.Errorf("-mem lots: exit %d, %s", code, stderr)
	}
}
