package main

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"lbsweep/experiments"
	"lbsweep/experiments/experimentstest"
	"lbsweep/experiments/sweep"
	"lbsweep/results"
)

var update = flag.Bool("update", false, "rewrite testdata/NAME.stdout and NAME.stderr from the command's output")

// Golden CLI tests: plot's stdout and stderr must be testdata/NAME.stdout and NAME.stderr byte for byte (go test
// ./cmd/plot -update rewrites them), and its exit code code. TMP in an argument is a fresh temporary directory.
func TestGolden(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
		code int
	}{
		{"help", []string{"-h"}, 0},
		{"no-spec", nil, 2},
		{"unknown-flag", []string{"-frobnicate", "a.toml"}, 2},
		{"no-dataset", []string{"-results", "testdata/none", "-o", "TMP", "../../experiments/homo.toml"}, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			args := append([]string(nil), c.args...)
			for i, a := range args {
				if a == "TMP" {
					args[i] = t.TempDir()
				}
			}
			var stdout, stderr bytes.Buffer
			if code := run(context.Background(), args, &stdout, &stderr); code != c.code {
				t.Errorf("plot %q: exit %d, want %d", c.args, code, c.code)
			}
			for _, out := range []struct {
				ext string
				got []byte
			}{{".stdout", stdout.Bytes()}, {".stderr", stderr.Bytes()}} {
				path := filepath.Join("testdata", c.name+out.ext)
				if *update {
					if err := os.WriteFile(path, out.got, 0o644); err != nil {
						t.Fatal(err)
					}
					continue
				}
				want, err := os.ReadFile(path)
				if err != nil {
					t.Fatalf("%v (go test ./cmd/plot -update writes it)", err)
				}
				if !bytes.Equal(out.got, want) {
					t.Errorf("plot %q: %s differs from %s (inspect, then go test ./cmd/plot -update):\n%s", c.args, out.ext[1:], path, out.got)
				}
			}
		})
	}
}

// plot draws a timeseries figure from the dataset's time-series table, read only for it, and names each file it
// writes on stderr.
func TestTimeseries(t *testing.T) {
	experimentstest.Register(t, experimentstest.Series{})
	dir := t.TempDir()
	specPath := filepath.Join("testdata", "ts.toml")
	s, err := experiments.Load(specPath)
	if err != nil {
		t.Fatal(err)
	}
	res := filepath.Join(dir, "results")
	if _, err := sweep.Run(context.Background(), s, sweep.Options{Dir: res, Every: -1}); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	var stderr bytes.Buffer
	if code := run(context.Background(), []string{"-results", res, "-o", out, specPath}, &bytes.Buffer{}, &stderr); code != 0 {
		t.Fatalf("plot exited %d: %s", code, stderr.String())
	}
	for _, name := range []string{"ts-extremes.svg", "ts-tracked.svg"} {
		if b, err := os.ReadFile(filepath.Join(out, name)); err != nil || !bytes.Contains(b, []byte("<svg")) {
			t.Errorf("%s: %v", name, err)
		}
		if !strings.Contains(stderr.String(), "plot: wrote "+filepath.Join(out, name)+"\n") {
			t.Errorf("stderr does not name %s:\n%s", name, stderr.String())
		}
	}
	// Without its time-series table the figure cannot be drawn: plot says which table is missing.
	os.RemoveAll(filepath.Join(res, "ts", results.SeriesDir))
	stderr.Reset()
	if code := run(context.Background(), []string{"-results", res, "-o", out, specPath}, &bytes.Buffer{}, &stderr); code != 1 || !strings.Contains(stderr.String(), "no time-series table") {
		t.Errorf("plot without the time-series table: exit %d, stderr %s", code, stderr.String())
	}
}

// A write that fails leaves no temporary file behind (before, a visible NAME.md.tmp stayed), a temporary file of a plot
// killed with SIGKILL (a dead process id) is removed by the next plot, and a plot whose context is cancelled (the first
// signal) exits 130 with one line.
func TestFailedWriteLeavesNoTemp(t *testing.T) {
	experimentstest.Register(t, experimentstest.Series{})
	dir := t.TempDir()
	specPath := filepath.Join("testdata", "ts.toml")
	s, err := experiments.Load(specPath)
	if err != nil {
		t.Fatal(err)
	}
	res := filepath.Join(dir, "results")
	if _, err := sweep.Run(context.Background(), s, sweep.Options{Dir: res, Every: -1}); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	os.MkdirAll(filepath.Join(out, "REPORT.md"), 0o755) // renaming onto a directory fails
	stale := filepath.Join(out, ".ts-extremes.svg.999999999.tmp")
	os.WriteFile(stale, []byte("<sv"), 0o644)
	var stderr bytes.Buffer
	if code := run(context.Background(), []string{"-results", res, "-o", out, specPath}, &bytes.Buffer{}, &stderr); code != 1 {
		t.Fatalf("plot with REPORT.md unwritable: exit %d, want 1: %s", code, stderr.String())
	}
	if m, _ := filepath.Glob(filepath.Join(out, "*tmp")); len(m) != 0 {
		t.Errorf("temporary files left: %v", m)
	}
	if m, _ := filepath.Glob(filepath.Join(out, ".*tmp")); len(m) != 0 {
		t.Errorf("temporary files left: %v", m)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	stderr.Reset()
	if code := run(ctx, []string{"-results", res, "-o", out, specPath}, &bytes.Buffer{}, &stderr); code != 130 || strings.Count(stderr.String(), "\n") != 1 {
		t.Errorf("plot with a cancelled context: exit %d, stderr %q; want 130 and one line", code, stderr.String())
	}
}

// TestReportCoversEverySpecPlottedIntoOut guards the accumulating report: plotting two specs into one directory by
// two calls gives one REPORT.md and one index.html with both (before, the second call's report dropped the first spec), in name order,
// whichever spec is plotted last; a spec that can no longer be read is dropped from it with a line on stderr.
func TestReportCoversEverySpecPlottedIntoOut(t *testing.T) {
	experimentstest.Register(t, experimentstest.Series{})
	dir := t.TempDir()
	text, err := os.ReadFile(filepath.Join("testdata", "ts.toml"))
	if err != nil {
		t.Fatal(err)
	}
	res, out := filepath.Join(dir, "results"), filepath.Join(dir, "out")
	var paths []string
	for _, name := range []string{"zeta", "alpha"} {
		path := filepath.Join(dir, name+".toml")
		if err := os.WriteFile(path, bytes.Replace(text, []byte(`name = "ts"`), []byte(`name = "`+name+`"`), 1), 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := experiments.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := sweep.Run(context.Background(), s, sweep.Options{Dir: res, Every: -1}); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, path)
	}
	plot := func(spec string) string {
		t.Helper()
		var stderr bytes.Buffer
		if code := run(context.Background(), []string{"-results", res, "-o", out, spec}, &bytes.Buffer{}, &stderr); code != 0 {
			t.Fatalf("plot %s exited %d: %s", spec, code, stderr.String())
		}
		b, err := os.ReadFile(filepath.Join(out, "REPORT.md"))
		if err != nil {
			t.Fatal(err)
		}
		return string(b) + "\n--- stderr\n" + stderr.String()
	}
	page := func() string {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(out, "index.html"))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	plot(paths[0])
	first := page()
	for _, spec := range []string{paths[1], paths[0]} {
		r := plot(spec)
		a, z := strings.Index(r, "\n## alpha\n"), strings.Index(r, "\n## zeta\n")
		if a < 0 || z < 0 || a > z || !strings.Contains(r, "![zeta-extremes.svg](zeta-extremes.svg)") {
			t.Errorf("after plotting %s, REPORT.md does not hold alpha then zeta:\n%s", spec, r)
		}
		// index.html covers the same specs, in the same order, each linked to its spec and dataset relative to OUT.
		p := page()
		a, z = strings.Index(p, `<section id="alpha">`), strings.Index(p, `<section id="zeta">`)
		if a < 0 || z < 0 || a > z {
			t.Errorf("after plotting %s, index.html does not hold alpha then zeta", spec)
		}
		for _, link := range []string{`href="../alpha.toml"`, `href="../zeta.toml"`, `href="../results/alpha/runs.parquet"`, `href="../results/zeta/runs.parquet"`} {
			if !strings.Contains(p, link) {
				t.Errorf("after plotting %s, index.html has no %s", spec, link)
			}
		}
	}
	second := page()
	if second == first {
		t.Error("index.html did not change when a spec was added")
	}
	plot(paths[0])
	if page() != second {
		t.Error("index.html changed on a rerun with the same inputs")
	}
	if err := os.Remove(paths[1]); err != nil {
		t.Fatal(err)
	}
	if r := plot(paths[0]); strings.Contains(r, "\n## alpha\n") || !strings.Contains(r, "plot: REPORT.md and index.html no longer cover alpha, plotted here before:") {
		t.Errorf("a spec that no longer exists is still reported, or silently dropped:\n%s", r)
	}
}
