package sweep

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"lbsweep/results"
)

// TestEditOutsideTheRunsKeepsTheData guards the dataset key (Spec.RunsKey): an edit to a spec that does not change its
// runs (a figure added, a comment, a description) no longer throws the dataset away. plot and check accept the old
// dataset; sweep simulates nothing and rewrites only the metadata, giving the file a fresh sweep of the edited spec
// writes, byte for byte. (Before, the spec's SHA-256 covered the whole file, and such an edit re-simulated every
// run.) An edit of the runs (a horizon) is still refused by the readers and re-simulated by sweep.
func TestEditOutsideTheRunsKeepsTheData(t *testing.T) {
	stamped(t)
	dir, fresh := t.TempDir(), t.TempDir()
	s := mustParse(t, smallSpec)
	if _, err := Run(context.Background(), s, Options{Dir: dir, Workers: 2, Every: -1}); err != nil {
		t.Fatal(err)
	}
	edited := mustParse(t, "# a comment\n"+replaceOnce(smallSpec, "seed = 11", "seed = 11\ndescription = \"x\"")+
		"\n[[figure]]\nname = \"f\"\nkind = \"metric\"\ntitle = \"new\"\nx = \"lambda\"\ny = \"mean_sojourn\"\nseries = \"policy\"\n")
	if edited.SHA256 == s.SHA256 || edited.RunsKey() != s.RunsKey() {
		t.Fatalf("spec SHA-256 equal %v, runs key equal %v: want the text to differ and the runs not", edited.SHA256 == s.SHA256, edited.RunsKey() == s.RunsKey())
	}
	if _, err := edited.ReadResults(dir); err != nil {
		t.Errorf("the readers refuse a dataset of the same runs: %v", err)
	}
	var log strings.Builder
	sum, err := Run(context.Background(), edited, Options{Dir: dir, Workers: 2, Every: -1, Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	if !sum.UpToDate || sum.Events != 0 || !strings.Contains(log.String(), "nothing re-simulated") {
		t.Errorf("up to date %v, %d events simulated, log %q: want nothing simulated", sum.UpToDate, sum.Events, log.String())
	}
	if _, err := Run(context.Background(), edited, Options{Dir: fresh, Workers: 1, Every: -1}); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(filepath.Join(dir, "small", FileName))
	want, _ := os.ReadFile(filepath.Join(fresh, "small", FileName))
	if len(want) == 0 || !bytes.Equal(got, want) {
		t.Errorf("the kept dataset (%d bytes) differs from a fresh sweep of the edited spec (%d bytes)", len(got), len(want))
	}
	meta, _, err := results.ReadMeta(filepath.Join(dir, "small", FileName))
	if err != nil || results.Lookup(meta, results.KeySpec) != edited.Text {
		t.Errorf("the dataset's spec text is not the edited spec's (%v)", err)
	}
	// Runs that change: refused by the readers, re-simulated by sweep.
	runs := mustParse(t, replaceOnce(smallSpec, "horizon = 300.0", "horizon = 301.0"))
	if _, err := runs.ReadResults(dir); err == nil || !strings.Contains(err.Error(), "its model, grid, seed or replications differ") {
		t.Errorf("a dataset of other runs: %v", err)
	}
	if sum, err := Run(context.Background(), runs, Options{Dir: dir, Workers: 2, Every: -1}); err != nil || sum.UpToDate || sum.Events == 0 {
		t.Errorf("a spec with other runs: up to date %v, %d events, %v: want a rerun", sum.UpToDate, sum.Events, err)
	}
}

// TestDirtyBuildKnowsItsOwnDataset guards the build mark (markedBuilt): a build from a modified tree ("+dirty", as
// any checkout where a spec is being edited builds) takes a dataset as up to date when this very executable wrote
// it and it is unchanged since, so editing a figure does not re-simulate; a dataset changed since (here its
// modification time) or written by another executable reruns, as every dataset did for a dirty build before.
func TestDirtyBuildKnowsItsOwnDataset(t *testing.T) {
	old := revision
	revision = func() string { return "0123abc+dirty" }
	t.Cleanup(func() { revision = old })
	dir := t.TempDir()
	s := mustParse(t, smallSpec)
	if _, err := Run(context.Background(), s, Options{Dir: dir, Workers: 2, Every: -1}); err != nil {
		t.Fatal(err)
	}
	sum, err := Run(context.Background(), s, Options{Dir: dir, Workers: 2, Every: -1})
	if err != nil || !sum.UpToDate {
		t.Errorf("the same dirty executable reran its own dataset (up to date %v, %v)", sum.UpToDate, err)
	}
	path := filepath.Join(dir, "small", FileName)
	fi, _ := os.Stat(path)
	if err := os.Chtimes(path, fi.ModTime(), fi.ModTime().Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	if sum, err := Run(context.Background(), s, Options{Dir: dir, Workers: 2, Every: -1}); err != nil || sum.UpToDate {
		t.Errorf("a dataset changed since the mark counts as up to date (%v)", err)
	}
	if err := os.WriteFile(builtMark(path), []byte("go:another\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if sum, err := Run(context.Background(), s, Options{Dir: dir, Workers: 2, Every: -1}); err != nil || sum.UpToDate {
		t.Errorf("a dataset marked by another executable counts as up to date for a dirty build (%v)", err)
	}
}

// TestIncrementalSweepSimulatesOnlyNewRuns guards incremental sweeps (reused): a value added to an axis, or more
// replications, simulates only the new runs and takes the others from the dataset it replaces; a removed value's runs
// are dropped; the file is a fresh sweep's of the new spec byte for byte, its time series too. (Before, any change of
// the spec re-simulated every run.)
func TestIncrementalSweepSimulatesOnlyNewRuns(t *testing.T) {
	stamped(t)
	for _, c := range []struct {
		name, old, new string
		reused, runs   int
	}{
		{"a lambda added", "lambda = { from = 0.5, to = 0.9, step = 0.1 }", "lambda = [0.5, 0.6, 0.65, 0.7, 0.8, 0.9]", 75, 90},
		{"a lambda removed", "lambda = { from = 0.5, to = 0.9, step = 0.1 }", "lambda = [0.5, 0.7, 0.8, 0.9]", 60, 60},
		{"more replications", "replications = 3", "replications = 5", 75, 125},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir, fresh := t.TempDir(), t.TempDir()
			if _, err := Run(context.Background(), mustParse(t, smallSpec), Options{Dir: dir, Workers: 2, Every: -1}); err != nil {
				t.Fatal(err)
			}
			s := mustParse(t, replaceOnce(smallSpec, c.old, c.new))
			sum, err := Run(context.Background(), s, Options{Dir: dir, Workers: 2, Every: -1})
			if err != nil {
				t.Fatal(err)
			}
			if sum.Reused != c.reused || sum.Runs != c.runs {
				t.Errorf("reused %d of %d runs, want %d of %d", sum.Reused, sum.Runs, c.reused, c.runs)
			}
			if _, err := Run(context.Background(), s, Options{Dir: fresh, Workers: 1, Every: -1}); err != nil {
				t.Fatal(err)
			}
			got, _ := os.ReadFile(filepath.Join(dir, "small", FileName))
			want, _ := os.ReadFile(filepath.Join(fresh, "small", FileName))
			if len(want) == 0 || !bytes.Equal(got, want) {
				t.Errorf("the incremental dataset (%d bytes) differs from a fresh sweep (%d bytes)", len(got), len(want))
			}
		})
	}
	// A time series too: the series rows of the runs taken are the old file's.
	dir, fresh := t.TempDir(), t.TempDir()
	if _, err := Run(context.Background(), seriesParse(t, seriesSpec), Options{Dir: dir, Workers: 2, Every: -1}); err != nil {
		t.Fatal(err)
	}
	s := seriesParse(t, strings.Replace(seriesSpec, "n = [1, 2, 5]", "n = [1, 3, 5]", 1))
	sum, err := Run(context.Background(), s, Options{Dir: dir, Workers: 2, Every: -1})
	if err != nil || sum.Reused != 8 {
		t.Fatalf("series: reused %d runs (%v), want 8", sum.Reused, err)
	}
	if _, err := Run(context.Background(), s, Options{Dir: fresh, Workers: 1, Every: -1}); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{FileName, filepath.Join(results.SeriesDir, FileName)} {
		got, _ := os.ReadFile(filepath.Join(dir, "ser", f))
		want, _ := os.ReadFile(filepath.Join(fresh, "ser", f))
		if len(want) == 0 || !bytes.Equal(got, want) {
			t.Errorf("series: the incremental %s differs from a fresh sweep's", f)
		}
	}
	// A build that is not this one's (another revision, and the mark of another executable): nothing taken.
	revision = func() string { return "4567def" }
	if err := os.WriteFile(builtMark(filepath.Join(dir, "ser", FileName)), []byte("go:another\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s2 := seriesParse(t, strings.Replace(seriesSpec, "n = [1, 2, 5]", "n = [1, 3]", 1))
	if sum, err := Run(context.Background(), s2, Options{Dir: dir, Workers: 2, Every: -1}); err != nil || sum.Reused != 0 {
		t.Errorf("another build reused %d runs (%v)", sum.Reused, err)
	}
}

// TestRerunOfTheSameRowsKeepsTheFile guards keepSame: a new build (another revision) that re-simulates a dataset and
// gets the same rows leaves the file as it was, byte for byte, so a checkout whose committed datasets the Quick start
// re-simulates stays clean (before, every file changed by its revision stamp alone); that build then takes the file
// as up to date (its mark).
func TestRerunOfTheSameRowsKeepsTheFile(t *testing.T) {
	stamped(t)
	dir := t.TempDir()
	s := seriesParse(t, seriesSpec)
	if sum, err := Run(context.Background(), s, Options{Dir: dir, Workers: 2, Every: -1}); err != nil || sum.Kept {
		t.Fatalf("first sweep: kept %v, %v: want a written file", sum.Kept, err)
	}
	files := []string{filepath.Join(dir, "ser", FileName), filepath.Join(dir, "ser", results.SeriesDir, FileName)}
	var before [][]byte
	for _, f := range files {
		b, _ := os.ReadFile(f)
		before = append(before, b)
	}
	revision = func() string { return "4567def" }
	oldVersion := version // a stamped build's version names its revision too
	version = func() string { return "v0.0.0-20261202125819-4567def00000" }
	t.Cleanup(func() { version = oldVersion })
	if err := os.WriteFile(builtMark(files[0]), []byte("go:another\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	sum, err := Run(context.Background(), s, Options{Dir: dir, Workers: 2, Every: -1, Log: &log})
	if err != nil || sum.UpToDate || sum.Events == 0 || !sum.Kept {
		t.Fatalf("another build: up to date %v, kept %v, %d events, %v: want a rerun that keeps the file", sum.UpToDate, sum.Kept, sum.Events, err)
	}
	for k, f := range files {
		if b, _ := os.ReadFile(f); !bytes.Equal(b, before[k]) {
			t.Errorf("%s changed though its rows did not", f)
		}
	}
	if !strings.Contains(log.String(), "the file is kept as it was") {
		t.Errorf("log: %q", log.String())
	}
	if ents, _ := os.ReadDir(filepath.Join(dir, "ser")); len(ents) != 2 {
		t.Errorf("left %d entries beside the dataset, want 2", len(ents))
	}
	if sum, err := Run(context.Background(), s, Options{Dir: dir, Workers: 2, Every: -1}); err != nil || !sum.UpToDate {
		t.Errorf("the build that kept the file reruns it again (%v)", err)
	}
}

// A dataset whose time-series file carries another build's stamp than its runs file (one of them restored from
// elsewhere) is rerun once and then up to date: keepSame does not keep such a pair, which no sweep would take as its
// own (seriesComplete), and which before made every sweep rerun it, as a helper found.
func TestMismatchedSeriesStampConverges(t *testing.T) {
	stamped(t)
	dir := t.TempDir()
	s := seriesParse(t, seriesSpec)
	if _, err := Run(context.Background(), s, Options{Dir: dir, Workers: 2, Every: -1}); err != nil {
		t.Fatal(err)
	}
	spath := filepath.Join(dir, "ser", results.SeriesDir, FileName)
	old, _ := os.ReadFile(spath) // stamped 0123abc
	revision = func() string { return "4567def" }
	oldVersion := version
	version = func() string { return "v0.0.0-20261202125819-4567def00000" }
	t.Cleanup(func() { version = oldVersion })
	if _, err := Run(context.Background(), s, Options{Dir: dir, Workers: 2, Every: -1, Force: true}); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(dir, "ser", FileName))
	os.Remove(spath)
	if _, err := Run(context.Background(), s, Options{Dir: dir, Workers: 2, Every: -1}); err != nil { // both 4567def
		t.Fatal(err)
	}
	if err := os.WriteFile(spath, old, 0o644); err != nil { // the series back from 0123abc
		t.Fatal(err)
	}
	if sum, err := Run(context.Background(), s, Options{Dir: dir, Workers: 2, Every: -1}); err != nil || sum.UpToDate || sum.Kept {
		t.Fatalf("a pair of two builds' stamps: up to date %v, kept %v, %v: want a rerun that replaces it", sum.UpToDate, sum.Kept, err)
	}
	if sum, err := Run(context.Background(), s, Options{Dir: dir, Workers: 2, Every: -1}); err != nil || !sum.UpToDate {
		t.Errorf("the sweep after: up to date %v, %v: want up to date", sum.UpToDate, err)
	}
}
