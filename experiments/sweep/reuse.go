package sweep

import (
	"fmt"

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
