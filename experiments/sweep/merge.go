package sweep

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"

	"lbsweep/experiments"
	"lbsweep/model"
	"lbsweep/results"
)

var partRE = regexp.MustCompile(`^part-(\d+)-of-(\d+)\.parquet$`)

// Merge turns the N shard files part-K-of-N.parquet in dir into dir/runs.parquet, byte-identical to the file an
// unsharded sweep of the same spec writes with the same binary, and removes the parts. It needs no spec file: each part
// carries its spec's text. Every part must be there, from one spec, holding exactly its shard's runs.
func Merge(dir string) (string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return "", err
	}
	parts := map[int]string{}
	n := 0
	for _, e := range ents {
		m := partRE.FindStringSubmatch(e.Name())
		if m == nil {
			continue
		}
		k, _ := strconv.Atoi(m[1])
		nn, _ := strconv.Atoi(m[2])
		if n != 0 && nn != n {
			return "", fmt.Errorf("%s: parts of %d and of %d shards: one split at a time", dir, n, nn)
		}
		n = nn
		parts[k] = filepath.Join(dir, e.Name())
	}
	if n == 0 {
		return "", fmt.Errorf("%s: no part-K-of-N.parquet files to merge", dir)
	}
	for k := range n {
		if parts[k] == "" {
			return "", fmt.Errorf("%s: part %d of %d is missing (is that shard still running?)", dir, k, n)
		}
	}
	meta, _, err := results.ReadMeta(parts[0])
	if err != nil {
		return "", err
	}
	spec, err := experiments.Parse(parts[0]+" (embedded spec)", results.Lookup(meta, results.KeySpec))
	if err != nil {
		return "", fmt.Errorf("the spec inside %s: %w", parts[0], err)
	}
	if spec.SHA256 != results.Lookup(meta, results.KeySpecSHA256) {
		return "", fmt.Errorf("%s: its spec text does not match its spec hash", parts[0])
	}
	cols := model.Columns(spec.Model)
	out := filepath.Join(dir, FileName)
	w, err := results.Create(out, cols, results.Provenance(spec.Text, spec.SHA256, spec.Model.Name()), 0)
	if err != nil {
		return "", err
	}
	defer w.Abort()
	for k := range n {
		lo, hi := shardRange(spec, Shard{k, n})
		i := lo
		err := results.Scan(parts[k], func(meta []results.KV, cols []results.Column, rows []results.Row) error {
			t := &results.Table{Columns: cols}
			if results.Lookup(meta, results.KeySpecSHA256) != spec.SHA256 {
				return fmt.Errorf("it comes from another spec than %s", parts[0])
			}
			pc, rc := t.Col("point"), t.Col("replication")
			for _, row := range rows {
				if i >= hi {
					return fmt.Errorf("more runs than its shard's %d", hi-lo)
				}
				r := spec.Run(i)
				if row[pc].S != r.Key || row[rc].I != int64(r.Replication) {
					return fmt.Errorf("row %d is not run %d of its spec", i-lo, i)
				}
				if err := w.Write(row); err != nil {
					return err
				}
				i++
			}
			return nil
		})
		if err == nil && i != hi {
			err = fmt.Errorf("holds %d runs, its shard has %d", i-lo, hi-lo)
		}
		if err != nil {
			return "", fmt.Errorf("%s: %w", parts[k], err)
		}
	}
	if err := w.Close(); err != nil {
		return "", err
	}
	for k := range n {
		os.Remove(parts[k])
	}
	return out, nil
}
