package sweep

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"time"

	"lbsweep/experiments"
	"lbsweep/model"
	"lbsweep/results"
	"lbsweep/results/schema"
)

// reused holds the runs of the dataset a sweep replaces, to be taken instead of simulated (an incremental sweep): when
// a spec's runs change (a value added to an axis, more replications) but the build is the same, every run whose point
// (all its parameters), replication and seed are in the old dataset gives the same row and time series again, since
// a run's seed depends only on its own point and replication. Runs of removed points are simply not taken. The
// result is the file a fresh sweep of the new spec writes, byte for byte.
type reused struct {
	rows    map[string]schema.Row   // by runKey
	series  map[string][]schema.Row // a run's series cells (without the identity and parameter columns), by runKey
	seedCol int
}

// runKey names a run by its point key and replication.
func runKey(point string, rep int64) string { return fmt.Sprintf("%s#%d", point, rep) }

// loadReused reads the runs of the dataset file path (and its time-series file spath for a SeriesModel) that a
// sweep of s may take: the file must be one of s's model and experiment, with s's columns, written by this build
// (meta: its footer's metadata). It returns nil when nothing can be taken, or on any error reading them (the runs
// are then simulated: reuse only saves time).
func loadReused(s *experiments.Spec, tb tables, path, spath string, meta []results.KV, sameBuild bool) *reused {
	if !sameBuild || results.Lookup(meta, results.KeyModel) != s.Model.Name() {
		return nil
	}
	t, err := results.ReadFile(path)
	if err != nil || results.SameColumns(tb.runs.cols, t.Columns) != nil {
		return nil
	}
	pc, rc, sc := t.Col("point"), t.Col("replication"), t.Col("seed")
	if pc < 0 || rc < 0 || sc < 0 {
		return nil
	}
	r := &reused{rows: make(map[string]schema.Row, len(t.Rows)), seedCol: sc}
	for _, row := range t.Rows {
		if row[0].S != s.Name {
			return nil
		}
		r.rows[runKey(row[pc].S, row[rc].I)] = row
	}
	if tb.series != nil {
		smeta, _, err := results.ReadMeta(spath)
		if err != nil || results.Lookup(smeta, results.KeyRevision) != results.Lookup(meta, results.KeyRevision) {
			return nil
		}
		st, err := results.ReadFile(spath)
		if err != nil || results.SameColumns(tb.series.cols, st.Columns) != nil {
			return nil
		}
		prefix := model.IdentityColumns + len(s.Model.Params())
		spc, src := st.Col("point"), st.Col("replication")
		r.series = make(map[string][]schema.Row, len(r.rows))
		for _, row := range st.Rows {
			k := runKey(row[spc].S, row[src].I)
			r.series[k] = append(r.series[k], row[prefix:])
		}
	}
	return r
}

// take returns run i's row and series cells from the old dataset, if it holds that run with the same seed.
func (r *reused) take(s *experiments.Spec, i int) (schema.Row, []schema.Row, bool) {
	if r == nil {
		return nil, nil, false
	}
	run := s.Run(i)
	row, ok := r.rows[runKey(run.Key, int64(run.Replication))]
	if !ok || row[r.seedCol].I != int64(run.Seed.Run) {
		return nil, nil, false
	}
	return row, r.series[runKey(run.Key, int64(run.Replication))], true
}

// newName is where a sweep writes the new version of the dataset file path before comparing it with path (keepSame):
// a hidden name not ending in .parquet, so no reader takes it for a part of the dataset.
func newName(path string) string {
	return filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".new")
}

// keepSame compares the new files newName(path) (and newName(spath), spath "" for no time series) with the files
// path and spath they are to replace. When each pair holds the same columns and rows and the same metadata but for
// the build's stamp (KeyRevision and KeyVersion: a new commit re-simulating the same runs), the new files are removed, the old
// ones kept byte for byte and their modification time set to now (make's rule then sees them fresh), and it returns
// true. Otherwise (or when an old file is missing or unreadable) it changes nothing and returns false.
func keepSame(path, spath string) bool {
	pairs := [][2]string{{path, newName(path)}}
	if spath != "" {
		pairs = append(pairs, [2]string{spath, newName(spath)})
	}
	for _, p := range pairs {
		if !sameButRevision(p[0], p[1]) {
			return false
		}
	}
	if spath != "" && !sameStamp(path, spath) {
		// The old pair's own build stamps differ (one file of it restored from elsewhere, or a kill between the
		// renames): kept, it would never count as one sweep's (seriesComplete), and every sweep would rerun it.
		return false
	}
	now := time.Now()
	for _, p := range pairs {
		os.Remove(p[1])
		os.Chtimes(p[0], now, now)
	}
	return true
}

// sameStamp reports whether the files a and b carry the same build stamp (the keys buildStamp names).
func sameStamp(a, b string) bool {
	ma, _, err := results.ReadMeta(a)
	if err != nil {
		return false
	}
	mb, _, err := results.ReadMeta(b)
	if err != nil {
		return false
	}
	for _, m := range [][2][]results.KV{{ma, mb}, {mb, ma}} {
		for _, kv := range m[0] {
			if buildStamp(kv.Key) && results.Lookup(m[1], kv.Key) != kv.Value {
				return false
			}
		}
	}
	return true
}

// buildStamp reports whether metadata key names the build that wrote a file: its VCS revision, and its module
// version, which a stamped build derives from that revision (a pseudo-version such as v0.0.0-20261202125819-a33f9f62a06f).
// A clean clone's Quick start re-simulated every committed dataset and rewrote them all while only the version
// differed, before the version was counted here.
func buildStamp(key string) bool { return key == results.KeyRevision || key == results.KeyVersion }

// sameButRevision reports whether the files a and b hold the same columns, rows and metadata but for the build's
// stamp (buildStamp).
func sameButRevision(a, b string) bool {
	ta, err := results.ReadFile(a)
	if err != nil {
		return false
	}
	tb, err := results.ReadFile(b)
	if err != nil || !slices.Equal(ta.Columns, tb.Columns) || len(ta.Rows) != len(tb.Rows) || len(ta.Meta) != len(tb.Meta) {
		return false
	}
	for i, kv := range ta.Meta {
		if kv.Key != tb.Meta[i].Key || !buildStamp(kv.Key) && kv.Value != tb.Meta[i].Value {
			return false
		}
	}
	for i, ra := range ta.Rows {
		for j, c := range ra {
			if !sameCell(c, tb.Rows[i][j]) {
				return false
			}
		}
	}
	return true
}

// sameCell reports whether two cells hold the same value bit for bit (results.Equal compares floats within a
// tolerance, for selections; here a changed last bit is a changed dataset).
func sameCell(a, b schema.Cell) bool {
	if a.Valid != b.Valid || a.I != b.I || a.B != b.B || a.S != b.S || math.Float64bits(a.F) != math.Float64bits(b.F) || len(a.L) != len(b.L) {
		return false
	}
	for k := range a.L {
		if math.Float64bits(a.L[k]) != math.Float64bits(b.L[k]) {
			return false
		}
	}
	return true
}
