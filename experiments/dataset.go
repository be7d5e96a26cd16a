package experiments

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"lbsweep/model"
	"lbsweep/results"
)

// ReadResults reads the dataset of spec s from root/NAME and checks that it is this spec's: every file was written
// from exactly this spec text (lbsweep.spec_sha256), with the model's columns (names and types, in order; a file whose
// footer was altered is refused naming the column), and no run appears twice. A stale dataset (the spec changed since
// the sweep, an interrupted rerun left the old file) or a stray copy is an error naming what to do, never silently
// evaluated.
func (s *Spec) ReadResults(root string) (*results.Table, error) {
	dir := filepath.Join(root, s.Name)
	t, err := results.ReadDataset(dir)
	if err != nil {
		return nil, fmt.Errorf("%s: %w (run `sweep -o %s %s` first)", s.File, err, root, s.File)
	}
	if !s.SameRuns(t.Meta) {
		return nil, fmt.Errorf("%s: %s %s: run `sweep -o %s %s` again", s.File, dir, staleWhy(s, t.Meta), root, s.File)
	}
	if err := results.SameColumns(model.Columns(s.Model), t.Columns); err != nil {
		return nil, fmt.Errorf("%s: %s does not have model %s's columns (%w): run `sweep -force -o %s %s` to rewrite it", s.File, dir, s.Model.Name(), err, root, s.File)
	}
	if len(t.Rows) < s.Runs() {
		return nil, fmt.Errorf("%s: %s holds %d of the spec's %d runs: a shard is missing or unmerged, or the sweep was interrupted (run it again to finish)", s.File, dir, len(t.Rows), s.Runs())
	}
	pc, rc := t.Col("point"), t.Col("replication")
	if pc < 0 || rc < 0 {
		return nil, fmt.Errorf("%s: %s: no point/replication columns: not an lbsweep dataset", s.File, dir)
	}
	seen := make(map[string]bool, len(t.Rows))
	for _, row := range t.Rows {
		k := fmt.Sprintf("%s#%d", row[pc].S, row[rc].I)
		if seen[k] {
			return nil, fmt.Errorf("%s: %s: run %s replication %d appears twice: remove the duplicate file", s.File, dir, row[pc].S, row[rc].I)
		}
		seen[k] = true
	}
	return t, nil
}

// ReadSeries reads the rows of spec s's time-series table, root/NAME/_timeseries/ (results.SeriesDir, written for a
// model.SeriesModel), that match where (every row for nil: see results.ReadDatasetWhere, which holds only the
// selected rows and one row group in memory). Like ReadResults it refuses a table written from another version of the
// spec, and also one whose files are not those of the runs table beside it (runs.parquet, or the same shard parts),
// so an unmerged, partial or stale table is an error naming what to do.
func (s *Spec) ReadSeries(root string, where []results.Cond) (*results.Table, error) {
	if _, ok := s.Model.(model.SeriesModel); !ok {
		return nil, fmt.Errorf("%s: model %s has no time series", s.File, s.Model.Name())
	}
	dir := filepath.Join(root, s.Name)
	sdir := filepath.Join(dir, results.SeriesDir)
	rerun := fmt.Sprintf("run `sweep -o %s %s`", root, s.File)
	runs, seriesFiles := parquetFiles(dir), parquetFiles(sdir)
	if len(seriesFiles) == 0 {
		return nil, fmt.Errorf("%s: %s: no time-series table (%s)", s.File, sdir, rerun)
	}
	if !slices.Equal(runs, seriesFiles) {
		return nil, fmt.Errorf("%s: the time-series table %s holds %s but the runs table %s holds %s: they are not one sweep's (%s, or `sweep merge %s` for shards)",
			s.File, sdir, strings.Join(seriesFiles, ", "), dir, strings.Join(runs, ", "), rerun, dir)
	}
	t, err := results.ReadDatasetWhere(sdir, where)
	if err != nil {
		return nil, fmt.Errorf("%s: %w (%s)", s.File, err, rerun)
	}
	if !s.SameRuns(t.Meta) {
		return nil, fmt.Errorf("%s: %s %s: %s again", s.File, sdir, staleWhy(s, t.Meta), rerun)
	}
	if got := t.MetaValue(results.KeyTable); got != results.TableSeries {
		return nil, fmt.Errorf("%s: %s is not a time-series table (%s = %q)", s.File, sdir, results.KeyTable, got)
	}
	return t, nil
}

// parquetFiles names the *.parquet files directly inside dir (as results.ReadDataset reads them), sorted; none when
// dir cannot be read.
func parquetFiles(dir string) []string {
	ents, _ := os.ReadDir(dir)
	var names []string
	for _, e := range ents {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".parquet") {
			names = append(names, e.Name())
		}
	}
	return names
}

// staleWhy says why a table with metadata meta does not hold s's runs (Spec.SameRuns is false), for an error.
func staleWhy(s *Spec, meta []results.KV) string {
	if k := results.Lookup(meta, results.KeyRunsSHA256); k != "" {
		return fmt.Sprintf("holds the runs of another version of this spec: its model, grid, seed or replications differ (runs SHA-256 %.12s…, the spec's %.12s…; figures, tables, claims and text may change freely)", k, s.RunsKey())
	}
	return fmt.Sprintf("was written from another version of this spec, before datasets carried their runs' key (spec SHA-256 %.12s…, file %.12s…)", results.Lookup(meta, results.KeySpecSHA256), s.SHA256)
}
