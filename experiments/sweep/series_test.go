package sweep

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"lbsweep/experiments"
	"lbsweep/experiments/experimentstest"
	"lbsweep/model"
	"lbsweep/results"
)

// seriesSpec sweeps the fake SeriesModel: 3 points × 4 replications, 801 samples a run (9612 series rows: three row
// groups).
const seriesSpec = `name = "ser"
model = "fake_series"
seed = 3
replications = 4
[params]
horizon = 400.0
interval = 0.5
[sweep]
n = [1, 2, 5]
`

// seriesParse registers the fake SeriesModel for the test and parses text.
func seriesParse(t *testing.T, text string) *experiments.Spec {
	t.Helper()
	if _, ok := experiments.Models[experimentstest.SeriesName]; !ok {
		experimentstest.Register(t, experimentstest.Series{})
	}
	return mustParse(t, text)
}

// seriesFiles returns the bytes of the runs table and the time-series table of dataset dir/name.
func seriesFiles(t *testing.T, dir, name string) (runs, series []byte) {
	t.Helper()
	runs, err := os.ReadFile(filepath.Join(dir, name, FileName))
	if err != nil {
		t.Fatal(err)
	}
	series, err = os.ReadFile(filepath.Join(dir, name, results.SeriesDir, FileName))
	if err != nil {
		t.Fatal(err)
	}
	return runs, series
}

// The time-series table: model.SeriesColumns, rows in run order then time order with the run's identity and
// parameters, the runs table's provenance and the timeseries mark; byte-identical for any worker count; and
// ReadDataset of the dataset directory still reads the runs table alone.
func TestSeriesTable(t *testing.T) {
	s := seriesParse(t, seriesSpec)
	var runs, series [][]byte
	var dir string
	for _, j := range []int{1, 2, 7} {
		dir = t.TempDir()
		sum, err := Run(context.Background(), s, Options{Dir: dir, Workers: j, Every: -1})
		if err != nil {
			t.Fatal(err)
		}
		if want := filepath.Join(dir, "ser", results.SeriesDir, FileName); sum.SeriesPath != want {
			t.Errorf("SeriesPath = %q, want %q", sum.SeriesPath, want)
		}
		r, ser := seriesFiles(t, dir, "ser")
		runs, series = append(runs, r), append(series, ser)
	}
	for i := 1; i < len(runs); i++ {
		if !bytes.Equal(runs[0], runs[i]) || !bytes.Equal(series[0], series[i]) {
			t.Errorf("-j 1 and run %d differ (runs table equal: %v, time-series table equal: %v)", i, bytes.Equal(runs[0], runs[i]), bytes.Equal(series[0], series[i]))
		}
	}

	tab, err := results.ReadDataset(filepath.Join(dir, "ser"))
	if err != nil {
		t.Fatal(err)
	}
	if len(tab.Rows) != s.Runs() || len(tab.Columns) != len(model.Columns(s.Model)) {
		t.Errorf("ReadDataset: %d rows, %d columns; want the runs table's %d and %d", len(tab.Rows), len(tab.Columns), s.Runs(), len(model.Columns(s.Model)))
	}
	if _, err := s.ReadResults(dir); err != nil {
		t.Errorf("ReadResults: %v", err)
	}
	st, err := results.ReadFile(filepath.Join(dir, "ser", results.SeriesDir, FileName))
	if err != nil {
		t.Fatal(err)
	}
	want := model.SeriesColumns(s.Model.(model.SeriesModel))
	if len(st.Columns) != len(want) {
		t.Fatalf("time-series columns %v, want %v", st.Columns, want)
	}
	for i, c := range want {
		if st.Columns[i].Name != c.Name || st.Columns[i].Type != c.Type {
			t.Errorf("time-series column %d is %s %s, want %s %s", i, st.Columns[i].Name, st.Columns[i].Type, c.Name, c.Type)
		}
	}
	for _, kv := range tab.Meta {
		if got := st.MetaValue(kv.Key); got != kv.Value {
			t.Errorf("time-series metadata %s = %q, want the runs table's %q", kv.Key, got, kv.Value)
		}
	}
	if st.MetaValue(results.KeyTable) != results.TableSeries {
		t.Errorf("time-series metadata %s = %q, want %q", results.KeyTable, st.MetaValue(results.KeyTable), results.TableSeries)
	}
	if tab.MetaValue(results.KeyTable) != "" {
		t.Errorf("runs table carries %s", results.KeyTable)
	}
	// Row by row: each run's samples (its samples metric says how many), in time order, with its identity and
	// parameters.
	samples, tc, qc := tab.Col("samples"), st.Col("time"), st.Col("queues")
	k := 0
	for i, row := range tab.Rows {
		for j := range int(row[samples].I) {
			srow := st.Rows[k]
			for c := range model.IdentityColumns + len(s.Model.Params()) {
				if !results.Equal(st.Columns[c].Type, srow[c], row[c]) {
					t.Fatalf("series row %d (run %d): %s = %+v, want the run's %+v", k, i, st.Columns[c].Name, srow[c], row[c])
				}
			}
			n := row[tab.Col("n")].I
			if srow[tc].F != float64(j)*0.5 || len(srow[qc].L) != int(min(n, 3)) {
				t.Fatalf("series row %d (run %d, sample %d): time %v, %d queues", k, i, j, srow[tc].F, len(srow[qc].L))
			}
			k++
		}
	}
	if k != len(st.Rows) {
		t.Errorf("%d series rows, the runs' samples add up to %d", len(st.Rows), k)
	}
	// A parameter selects a run's series as it selects its row.
	one := st.Where([]results.Cond{{Column: "n", Value: results.Int(5)}, {Column: "replication", Value: results.Int(2)}})
	if len(one) != 801 {
		t.Errorf("n = 5, replication = 2 selects %d series rows, want 801", len(one))
	}

	// A rerun finds the time-series table missing: it says so and writes both again, the same bytes.
	os.Remove(filepath.Join(dir, "ser", results.SeriesDir, FileName))
	var log bytes.Buffer
	if _, err := Run(context.Background(), s, Options{Dir: dir, Workers: 2, Every: -1, Log: &log}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "time-series table") {
		t.Errorf("rerun without the time-series table: log does not say why:\n%s", log.String())
	}
	if r, ser := seriesFiles(t, dir, "ser"); !bytes.Equal(r, runs[0]) || !bytes.Equal(ser, series[0]) {
		t.Error("rerun after losing the time-series table: bytes differ")
	}

	// Another spec of the same name whose model has no series: the stale time-series table goes.
	other := mustParse(t, strings.Replace(smallSpec, `name = "small"`, `name = "ser"`, 1))
	if _, err := Run(context.Background(), other, Options{Dir: dir, Workers: 2, Every: -1}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "ser", results.SeriesDir)); !os.IsNotExist(err) {
		t.Errorf("time-series table of the previous spec left behind (%v)", err)
	}
}

// seriesComplete is what makes a dataset of a SeriesModel up to date besides its runs table.
func TestSeriesComplete(t *testing.T) {
	s := seriesParse(t, seriesSpec)
	dir := t.TempDir()
	if _, err := Run(context.Background(), s, Options{Dir: dir, Workers: 2, Every: -1}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "ser", FileName)
	spath := filepath.Join(dir, "ser", results.SeriesDir, FileName)
	meta, _, err := results.ReadMeta(path)
	if err != nil {
		t.Fatal(err)
	}
	if !seriesComplete(spath, s, meta) {
		t.Error("a finished sweep's time-series table is not complete")
	}
	if seriesComplete(spath, seriesParse(t, strings.Replace(seriesSpec, "seed = 3", "seed = 4", 1)), meta) {
		t.Error("a time-series table of a spec with other runs counts")
	}
	other := append([]results.KV(nil), meta...)
	for i := range other {
		if other[i].Key == results.KeyRevision {
			other[i].Value = "0123abc"
		}
	}
	if seriesComplete(spath, s, other) {
		t.Error("a time-series table of another build than its runs table counts")
	}
	if seriesComplete(path, s, meta) {
		t.Error("the runs table counts as a time-series table")
	}
	os.Remove(spath)
	if seriesComplete(spath, s, meta) {
		t.Error("a missing time-series table counts")
	}
	// The other half of "up to date": the build. Only a clean, stamped build of the same revision counts.
	for rev, want := range map[string]bool{"0123abc": true, "4567def": false, "unknown": false} {
		if got := sameBinary(other, rev); got != want {
			t.Errorf("sameBinary(dataset of revision 0123abc, this build %s) = %v, want %v", rev, got, want)
		}
	}
	for _, rev := range []string{"0123abc+dirty", "unknown"} {
		if sameBinary([]results.KV{{Key: results.KeyRevision, Value: rev}}, rev) {
			t.Errorf("sameBinary: a dataset of build %s counts as this build's", rev)
		}
	}
}

// Shards, merged, are the unsharded dataset byte for byte: both tables.
func TestSeriesShardsMerge(t *testing.T) {
	s := seriesParse(t, seriesSpec)
	whole := t.TempDir()
	if _, err := Run(context.Background(), s, Options{Dir: whole, Workers: 2, Every: -1}); err != nil {
		t.Fatal(err)
	}
	wantRuns, wantSeries := seriesFiles(t, whole, "ser")
	for _, n := range []int{2, 3, 7} {
		dir := t.TempDir()
		for k := n - 1; k >= 0; k-- {
			if _, err := Run(context.Background(), s, Options{Dir: dir, Workers: 1, Every: -1, Shard: Shard{k, n}}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := Merge(context.Background(), filepath.Join(dir, "ser"), MergeOptions{}); err != nil {
			t.Fatal(err)
		}
		runs, series := seriesFiles(t, dir, "ser")
		if !bytes.Equal(runs, wantRuns) || !bytes.Equal(series, wantSeries) {
			t.Errorf("%d shards merged differ from the unsharded dataset (runs equal: %v, time series equal: %v)", n, bytes.Equal(runs, wantRuns), bytes.Equal(series, wantSeries))
		}
		for _, sub := range []string{"", results.SeriesDir} {
			if ents, _ := filepath.Glob(filepath.Join(dir, "ser", sub, "part-*")); len(ents) != 0 {
				t.Errorf("parts left after merge: %v", ents)
			}
		}
	}
	// A time-series part missing: an error, and every part stays for the next attempt.
	dir := t.TempDir()
	for k := range 2 {
		if _, err := Run(context.Background(), s, Options{Dir: dir, Workers: 1, Every: -1, Shard: Shard{k, 2}}); err != nil {
			t.Fatal(err)
		}
	}
	lost := filepath.Join(dir, "ser", results.SeriesDir, "part-1-of-2.parquet")
	kept, _ := os.ReadFile(lost)
	os.Remove(lost)
	if _, err := Merge(context.Background(), filepath.Join(dir, "ser"), MergeOptions{}); err == nil || !strings.Contains(err.Error(), "missing") || !strings.Contains(err.Error(), "time-series") {
		t.Errorf("merge without a time-series part: %v", err)
	}
	if parts, _ := filepath.Glob(filepath.Join(dir, "ser", "*.parquet")); len(parts) != 2 {
		t.Errorf("a failed merge changed the runs table's parts: %v", parts)
	}
	// Back in place, but from another shard (its rows are not this shard's runs): the merge refuses, leaves no file.
	os.WriteFile(lost, kept, 0o644)
	p0, _ := os.ReadFile(filepath.Join(dir, "ser", results.SeriesDir, "part-0-of-2.parquet"))
	os.WriteFile(lost, p0, 0o644)
	if _, err := Merge(context.Background(), filepath.Join(dir, "ser"), MergeOptions{}); err == nil || !strings.Contains(err.Error(), "not a run of its shard") {
		t.Errorf("merge with a time-series part of the wrong shard: %v", err)
	}
	for _, f := range []string{FileName, filepath.Join(results.SeriesDir, FileName)} {
		if _, err := os.Stat(filepath.Join(dir, "ser", f)); !os.IsNotExist(err) {
			t.Errorf("failed merge left %s", f)
		}
	}
	os.WriteFile(lost, kept, 0o644)
	if _, err := Merge(context.Background(), filepath.Join(dir, "ser"), MergeOptions{}); err != nil {
		t.Errorf("merge with every part back: %v", err)
	}
}

// manySeries has 2500 runs: progress chunks of 1000 rows are flushed before the end.
const manySeries = `name = "many"
model = "fake_series"
seed = 9
replications = 2500
[params]
n = 4
horizon = 30.0
`

// An interrupted sweep keeps a run only when its row chunk and its series chunk both hold it: whatever a kill left
// (the last row chunk lost after its series chunk was written, or a series chunk missing), the rerun ends with the
// bytes of an uninterrupted sweep.
func TestSeriesResume(t *testing.T) {
	s := seriesParse(t, manySeries)
	ref := t.TempDir()
	if _, err := Run(context.Background(), s, Options{Dir: ref, Every: -1}); err != nil {
		t.Fatal(err)
	}
	wantRuns, wantSeries := seriesFiles(t, ref, "many")
	prog := progressDir(filepath.Join("DIR", "many"), Whole)
	// interrupted stops a sweep after 1500 runs; the progress directory then holds chunks [0, 1000) and [1000, ≥1500).
	interrupted := func(dir string) string {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		_, err := Run(ctx, s, Options{Dir: dir, Workers: 2, Every: -1, OnRow: func(done, _ int, _ int64) {
			if done == 1500 {
				cancel()
			}
		}})
		if err == nil {
			t.Fatal("the sweep was not interrupted")
		}
		p := filepath.Join(dir, strings.TrimPrefix(prog, "DIR"+string(filepath.Separator)))
		for _, name := range []string{chunkName(0), seriesChunkName(0), chunkName(1000), seriesChunkName(1000)} {
			if _, err := os.Stat(filepath.Join(p, name)); err != nil {
				t.Fatalf("interrupted sweep: %v", err)
			}
		}
		return p
	}
	for _, tc := range []struct {
		name    string
		damage  func(prog string)
		resumed int // -1: at least 1500
	}{
		{"as left", func(string) {}, -1},
		{"killed between the last series chunk and its row chunk", func(p string) { os.Remove(filepath.Join(p, chunkName(1000))) }, 1000},
		{"first series chunk missing", func(p string) { os.Remove(filepath.Join(p, seriesChunkName(0))) }, 0},
		{"last series chunk missing", func(p string) { os.Remove(filepath.Join(p, seriesChunkName(1000))) }, 1000},
		{"a dead writer's series chunk", func(p string) {
			os.WriteFile(filepath.Join(p, ".series-"+chunkName(2000)+".999999999.tmp"), []byte("partial"), 0o644)
		}, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			tc.damage(interrupted(dir))
			sum, err := Run(context.Background(), s, Options{Dir: dir, Workers: 3, Every: -1})
			if err != nil {
				t.Fatal(err)
			}
			if tc.resumed >= 0 && sum.Resumed != tc.resumed || tc.resumed < 0 && sum.Resumed < 1500 {
				t.Errorf("resumed %d runs, want %d (-1: ≥ 1500)", sum.Resumed, tc.resumed)
			}
			runs, series := seriesFiles(t, dir, "many")
			if !bytes.Equal(runs, wantRuns) || !bytes.Equal(series, wantSeries) {
				t.Errorf("resumed dataset differs (runs equal: %v, time series equal: %v)", bytes.Equal(runs, wantRuns), bytes.Equal(series, wantSeries))
			}
			if ents, _ := os.ReadDir(filepath.Join(dir, "many")); len(ents) != 2 {
				t.Errorf("left %d entries, want %s and %s/", len(ents), FileName, results.SeriesDir)
			}
		})
	}
	// A series chunk of another spec version: refused, and -force discards the progress.
	dir := t.TempDir()
	p := interrupted(dir)
	other := seriesParse(t, strings.Replace(manySeries, "seed = 9", "seed = 10", 1))
	otherDir := t.TempDir()
	if _, err := Run(context.Background(), other, Options{Dir: otherDir, Every: -1}); err != nil {
		t.Fatal(err)
	}
	// Its series chunk 0 is made from the other spec's table: rows of other runs, other metadata.
	b, _ := os.ReadFile(filepath.Join(otherDir, "many", results.SeriesDir, FileName))
	os.WriteFile(filepath.Join(p, seriesChunkName(0)), b, 0o644)
	if _, err := Run(context.Background(), s, Options{Dir: dir, Every: -1}); err == nil || !strings.Contains(err.Error(), "with other runs") {
		t.Errorf("series chunk of another spec: %v", err)
	}
	if _, err := os.Stat(filepath.Join(p, chunkName(1000))); err != nil {
		t.Errorf("a refused resume removed finished runs: %v", err)
	}
	if _, err := Run(context.Background(), s, Options{Dir: dir, Every: -1, Force: true}); err != nil {
		t.Fatal(err)
	}
	if runs, series := seriesFiles(t, dir, "many"); !bytes.Equal(runs, wantRuns) || !bytes.Equal(series, wantSeries) {
		t.Error("-force after a foreign series chunk: dataset differs")
	}
}

// A sweep of a SeriesModel killed with SIGKILL at several moments, then rerun with the same command, ends with the
// bytes of an uninterrupted sweep, both tables (TestKillAndResume's approach).
func TestSeriesKillAndResume(t *testing.T) {
	if testing.Short() {
		t.Skip("kills sweeps")
	}
	specPath := filepath.Join(t.TempDir(), "many.toml")
	// 3000 runs of 51 samples: chunks of 1000 rows are flushed twice before the end.
	os.WriteFile(specPath, []byte(strings.Replace(strings.Replace(manySeries, "2500", "3000", 1), "30.0", "50.0", 1)), 0o644)
	sweep := func(dir string, quiet bool) *exec.Cmd { return helperSweep("series", dir, specPath, quiet) }
	ref := t.TempDir()
	began := time.Now()
	if out, err := sweep(ref, true).CombinedOutput(); err != nil {
		t.Fatalf("reference sweep: %v\n%s", err, out)
	}
	took := time.Since(began)
	wantRuns, wantSeries := seriesFiles(t, ref, "many")
	killAndResumeSeries(t, sweep, took, wantRuns, wantSeries)
}

// killAndResumeSeries kills the sweep of dataset "many" (sweep(dir, quiet) runs it in dir) at fractions of took, the
// uninterrupted run's time, resumes it, and checks both tables byte-identical to wantRuns and wantSeries: as
// TestKillAndResume, 0.1 finds no chunk yet, 0.5 and 0.8 resume after one or two, 1.2 kills a finished process, and
// the last point kills as soon as the first chunk is on disk (killPoints).
func killAndResumeSeries(t *testing.T, sweep func(dir string, quiet bool) *exec.Cmd, took time.Duration, wantRuns, wantSeries []byte) {
	t.Helper()
	resumed := 0
	for _, frac := range killPoints {
		dir := t.TempDir()
		cmd := sweep(dir, true)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		after := killAt(dir, frac, took)
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

// Spec.ReadSeries takes a selection out of the time-series table, and refuses one that is not the sweep's beside the
// runs table.
func TestReadSeries(t *testing.T) {
	s := seriesParse(t, seriesSpec)
	dir := t.TempDir()
	for k := range 2 {
		if _, err := Run(context.Background(), s, Options{Dir: dir, Workers: 2, Every: -1, Shard: Shard{k, 2}}); err != nil {
			t.Fatal(err)
		}
	}
	where := []results.Cond{{Column: "n", Value: results.Int(5)}, {Column: "replication", Value: results.Int(2)}}
	check := func(what string) {
		t.Helper()
		st, err := s.ReadSeries(dir, where)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if len(st.Rows) != 801 || st.Rows[0][st.Col("n")].I != 5 || st.Rows[800][st.Col("time")].F != 400 {
			t.Errorf("%s: %d rows", what, len(st.Rows))
		}
	}
	check("unmerged shards")
	if _, err := Merge(context.Background(), filepath.Join(dir, "ser"), MergeOptions{}); err != nil {
		t.Fatal(err)
	}
	check("merged")
	if all, err := s.ReadSeries(dir, nil); err != nil || len(all.Rows) != s.Runs()*801 {
		t.Errorf("whole table: %v", err)
	}

	edited := seriesParse(t, strings.Replace(seriesSpec, "seed = 3", "seed = 4", 1))
	if _, err := edited.ReadSeries(dir, where); err == nil || !strings.Contains(err.Error(), "another version") {
		t.Errorf("edited spec: %v", err)
	}
	if _, err := mustParse(t, smallSpec).ReadSeries(dir, nil); err == nil || !strings.Contains(err.Error(), "no time series") {
		t.Errorf("model without a time series: %v", err)
	}
	// The runs table rerun as shards while the time-series table stays merged: not one sweep's.
	os.Rename(filepath.Join(dir, "ser", FileName), filepath.Join(dir, "ser", "part-0-of-1.parquet"))
	if _, err := s.ReadSeries(dir, where); err == nil || !strings.Contains(err.Error(), "not one sweep's") {
		t.Errorf("files differ: %v", err)
	}
	os.RemoveAll(filepath.Join(dir, "ser", results.SeriesDir))
	if _, err := s.ReadSeries(dir, where); err == nil || !strings.Contains(err.Error(), "no time-series table") {
		t.Errorf("no time-series table: %v", err)
	}
}

// Progress made by another executable (a dirty rebuild of the same commit has the same revision string) is refused,
// and -force discards it.
func TestResumeRefusesAnotherExecutable(t *testing.T) {
	s := mustParse(t, smallSpec)
	prog := filepath.Join(t.TempDir(), ".progress-0-of-1")
	if _, _, err := loadProgress(prog, s, tablesOf(s).runs.cols, 0, s.Runs(), false, false); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(prog, buildFile)); string(b) != buildID() {
		t.Fatalf("BUILD = %q, want this executable's %q", b, buildID())
	}
	if err := os.WriteFile(filepath.Join(prog, buildFile), []byte("another"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := loadProgress(prog, s, tablesOf(s).runs.cols, 0, s.Runs(), false, false); err == nil || !strings.Contains(err.Error(), "another build") {
		t.Errorf("progress of another executable: err = %v", err)
	}
	if _, _, err := loadProgress(prog, s, tablesOf(s).runs.cols, 0, s.Runs(), true, false); err != nil {
		t.Errorf("-force: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(prog, buildFile)); string(b) != buildID() {
		t.Errorf("after -force BUILD = %q", b)
	}
}

// The build mark covers the time-series table too: a sweep whose mark matches reads neither table, so a series file
// changed after the mark (a damaged page) voids the mark, and the next sweep finds the damage and reruns.
func TestBuildMarkCoversSeries(t *testing.T) {
	stamped(t)
	s := seriesParse(t, seriesSpec)
	dir := t.TempDir()
	if _, err := Run(context.Background(), s, Options{Dir: dir, Every: -1}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "ser", FileName)
	spath := filepath.Join(dir, "ser", results.SeriesDir, FileName)
	if builtMark(path) == "" {
		t.Skip("no user cache directory: no build mark")
	}
	if spec, ok := markedBuilt(path, spath); !ok || spec != s.SHA256 {
		t.Fatalf("after the sweep that wrote them, the mark gives spec %q, %v; want %s, true", spec, ok, s.SHA256)
	}
	want, _ := os.ReadFile(spath)
	damagePage(t, spath)
	if _, ok := markedBuilt(path, spath); ok {
		t.Fatal("the mark still holds for a changed time-series file")
	}
	var log bytes.Buffer
	sum, err := Run(context.Background(), s, Options{Dir: dir, Every: -1, Log: &log})
	if err != nil || sum.UpToDate || !strings.Contains(log.String(), spath+" is damaged") {
		t.Fatalf("a damaged time-series file: UpToDate %v, %v, log %q; want a rerun saying it is damaged", sum.UpToDate, err, log.String())
	}
	if got, _ := os.ReadFile(spath); !bytes.Equal(got, want) {
		t.Error("the rerun did not restore the time-series file")
	}
}
