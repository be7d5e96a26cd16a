package experiments

import (
	"fmt"
	"path/filepath"

	"lbsweep/results"
)

// ReadResults reads the dataset of spec s from root/NAME and checks that it is this spec's: every file was written
// from exactly this spec text (lbsweep.spec_sha256), and no run appears twice. A stale dataset (the spec changed since
// the sweep, an interrupted rerun left the old file) or a stray copy is an error naming what to do, never silently
// evaluated.
func (s *Spec) ReadResults(root string) (*results.Table, error) {
	dir := filepath.Join(root, s.Name)
	t, err := results.ReadDataset(dir)
	if err != nil {
		return nil, fmt.Errorf("%s: %w (run `sweep -o %s %s` first)", s.File, err, root, s.File)
	}
	if got := t.MetaValue(results.KeySpecSHA256); got != s.SHA256 {
		return nil, fmt.Errorf("%s: %s was written from another version of this spec (dataset spec SHA-256 %.12s…, file %.12s…): run `sweep -o %s %s` again", s.File, dir, got, s.SHA256, root, s.File)
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
