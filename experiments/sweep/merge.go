package sweep

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"lbsweep/experiments"
	"lbsweep/results"
)

var partRE = regexp.MustCompile(`^part-(\d+)-of-(\d+)\.parquet$`)

// MergeOptions control Merge.
type MergeOptions struct {
	// MixedBuilds merges parts made by different builds of the program (another VCS revision, module version or Go
	// toolchain), which Merge otherwise refuses: their runs ran different model code. The merged file then says
	// lbsweep.vcs_revision = "mixed" and lists every part's build under results.KeyPartBuilds.
	MixedBuilds bool
}

// Merge turns the N shard files part-K-of-N.parquet in dir into dir/runs.parquet, byte-identical to the file an
// unsharded sweep of the same spec writes with the same binary, and removes the parts. It needs no spec file: each part
// carries its spec's text. Every part must be there, from one spec and one build (see MergeOptions.MixedBuilds),
// holding exactly its shard's runs; the merged file states the parts' build. For a model with a time series
// (model.SeriesModel) it merges the parts of the time-series table, dir/_timeseries/, the same way and first; each of
// its parts must be there too.
//
// Merge holds the writer's lock of runs.parquet and of every part (lock.go): it is refused, touching nothing, while a
// sweep writes one of them or another merge runs. It stops when ctx is cancelled, with an error wrapping
// ErrInterrupted, leaving the parts as they were and no output (a temporary file of a killed merge is removed by the
// next one).
func Merge(ctx context.Context, dir string, o MergeOptions) (string, error) {
	parts, n, err := findParts(dir)
	if err != nil {
		return "", err
	}
	var held locks
	defer func() { held.release() }()
	for _, sh := range append([]Shard{Whole}, shardsOf(n)...) {
		l, err := lockShard(dir, sh)
		if err != nil {
			return "", err
		}
		held = append(held, l)
	}
	out := filepath.Join(dir, FileName)
	sout := filepath.Join(dir, results.SeriesDir, FileName)
	results.RemoveTemps(out) // left by a merge (or sweep) that was killed while writing it
	results.RemoveTemps(sout)
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
	tb := tablesOf(spec)
	var sparts map[int]string
	if tb.series != nil {
		sdir := filepath.Join(dir, results.SeriesDir)
		var sn int
		if sparts, sn, err = findParts(sdir); err != nil {
			return "", fmt.Errorf("the time-series table of model %s: %w", spec.Model.Name(), err)
		}
		if sn != n {
			return "", fmt.Errorf("%s: parts of %d shards, but the time-series table %s has parts of %d", dir, n, sdir, sn)
		}
	}
	runsMeta, err := partsBuild(tb.runs.meta, parts, n, o.MixedBuilds)
	if err != nil {
		return "", err
	}
	if tb.series != nil {
		smeta, err := partsBuild(tb.series.meta, sparts, n, o.MixedBuilds)
		if err != nil {
			return "", err
		}
		if err := mergeParts(ctx, sout, &table{tb.series.cols, smeta, tb.series.rowGroup}, spec, sparts, n); err != nil {
			return "", err
		}
	}
	if err := mergeParts(ctx, out, &table{tb.runs.cols, runsMeta, tb.runs.rowGroup}, spec, parts, n); err != nil {
		if tb.series != nil {
			os.Remove(sout) // its parts stay: the merge can be run again
		}
		return "", err
	}
	for k := range n {
		os.Remove(parts[k])
		if sparts != nil {
			os.Remove(sparts[k])
		}
	}
	return out, nil
}

// shardsOf lists the n shards of an n-way split.
func shardsOf(n int) []Shard {
	shs := make([]Shard, n)
	for k := range shs {
		shs[k] = Shard{k, n}
	}
	return shs
}

// partsBuild returns meta (a merged table's provenance, made by this binary) with the build of the parts put in place
// of this binary's: the parts' own revision, version and Go version, for the data is theirs. Parts of different builds
// are an error naming two of them, unless mixed: then the revision is results.MixedRevision and results.KeyPartBuilds
// lists every part's build.
func partsBuild(meta []results.KV, parts map[int]string, n int, mixed bool) ([]results.KV, error) {
	builds := make([]string, n)
	var first []results.KV
	same := true
	for k := range n {
		pm, _, err := results.ReadMeta(parts[k])
		if err != nil {
			return nil, err
		}
		if k == 0 {
			first = pm
		}
		builds[k] = results.BuildOf(pm)
		if builds[k] != builds[0] {
			if !mixed {
				return nil, fmt.Errorf("%s was made by another build (%s) than %s (%s): its runs ran other model code; -mixed-builds merges them anyway", parts[k], builds[k], filepath.Base(parts[0]), builds[0])
			}
			same = false
		}
	}
	out := append([]results.KV(nil), meta...)
	for i, kv := range out {
		switch kv.Key {
		case results.KeyRevision, results.KeyVersion, results.KeyGoVersion:
			out[i].Value = results.Lookup(first, kv.Key)
			if !same {
				out[i].Value = results.MixedRevision
			}
		}
	}
	if !same {
		lines := make([]string, n)
		for k := range n {
			lines[k] = filepath.Base(parts[k]) + ": " + builds[k]
		}
		out = append(out, results.KV{Key: results.KeyPartBuilds, Value: strings.Join(lines, "\n")})
	}
	return out, nil
}

// findParts returns the part files in dir by shard index, all of them present, and their shard count.
func findParts(dir string) (map[int]string, int, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, 0, err
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
			return nil, 0, fmt.Errorf("%s: parts of %d and of %d shards: one split at a time", dir, n, nn)
		}
		n = nn
		parts[k] = filepath.Join(dir, e.Name())
	}
	if n == 0 {
		return nil, 0, fmt.Errorf("%s: no part-K-of-N.parquet files to merge", dir)
	}
	for k := range n {
		if parts[k] == "" {
			return nil, 0, fmt.Errorf("%s: part %d of %d is missing (is that shard still running?)", dir, k, n)
		}
	}
	return parts, n, nil
}

// mergeParts writes the rows of parts[0..n-1], the shards of spec's table tb (the runs table, or the time-series table
// when tb's metadata says so), to out, checking that each part holds its shard's runs in run order and comes from spec.
func mergeParts(ctx context.Context, out string, tb *table, spec *experiments.Spec, parts map[int]string, n int) error {
	series := results.Lookup(tb.meta, results.KeyTable) == results.TableSeries
	w, err := results.Create(out, tb.cols, tb.meta, tb.rowGroup)
	if err != nil {
		return err
	}
	defer w.Abort()
	for k := range n {
		lo, hi := shardRange(spec, Shard{k, n})
		i, seen := lo, 0 // the next run (runs table), the rows read
		order := newRunOrder(spec, lo, hi)
		err := results.Scan(parts[k], func(meta []results.KV, cols []results.Column, rows []results.Row) error {
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("%w (%w)", ErrInterrupted, err)
			}
			if err := results.SameColumns(tb.cols, cols); err != nil {
				return fmt.Errorf("not model %s's columns: %w", spec.Model.Name(), err)
			}
			t := &results.Table{Columns: cols}
			if results.Lookup(meta, results.KeySpecSHA256) != spec.SHA256 {
				return fmt.Errorf("it comes from another spec than %s", parts[0])
			}
			if series && results.Lookup(meta, results.KeyTable) != results.TableSeries {
				return errors.New("it is not a time-series table")
			}
			pc, rc := t.Col("point"), t.Col("replication")
			if pc < 0 || rc < 0 {
				return errors.New("no point and replication columns")
			}
			for _, row := range rows {
				if series {
					if !order.next(row[pc].S, row[rc].I) {
						return fmt.Errorf("row %d (point %s, replication %d) is not a run of its shard in run order", seen, row[pc].S, row[rc].I)
					}
				} else {
					if i >= hi {
						return fmt.Errorf("more runs than its shard's %d", hi-lo)
					}
					r := spec.Run(i)
					if row[pc].S != r.Key || row[rc].I != int64(r.Replication) {
						return fmt.Errorf("row %d is not run %d of its spec", i-lo, i)
					}
				}
				if err := w.Write(row); err != nil {
					return err
				}
				i++
				seen++
			}
			return nil
		})
		if err == nil && !series && i != hi {
			err = fmt.Errorf("holds %d runs, its shard has %d", i-lo, hi-lo)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", parts[k], err)
		}
	}
	return w.Close()
}
