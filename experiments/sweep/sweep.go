// Package sweep runs an experiment's grid: a bounded pool of goroutine workers, one run per job, rows streamed in run
// order through a bounded reorder window (memory does not grow with the grid), the first error cancelling the rest.
//
// Nothing finished is lost. Finished runs are flushed, in run order, to chunk files in the hidden directory
// DIR/NAME/.progress-K-of-N/ every chunkRows rows or chunkEvery seconds after the first of them finished, and on
// interruption, so a kill -9 loses at most the runs of the last few seconds (measured under 4.2 s). Because rows leave in
// run order, the runs finished when a sweep stops (SIGINT, SIGTERM, kill -9, a lost machine) are always a prefix of
// its run list: the same command resumes after them. At the end the chunks are concatenated into the dataset file
// DIR/NAME/runs.parquet (or part-K-of-N.parquet for a shard, see Shard and Merge), written under a temporary name and
// renamed, and the progress directory is removed. The dataset's bytes depend only on the spec and the binary: not on
// the number of workers, on interruptions, or on the shard split once merged.
//
// One process writes each shard's files at a time: Run and Merge hold the shard's writer's lock (lock.go), and a second
// writer is refused, naming the first one's process id, before it touches anything.
//
// A model that implements model.SeriesModel also gives each run time-series rows. They form a second table,
// DIR/NAME/_timeseries/runs.parquet (results.SeriesDir; part-K-of-N.parquet for a shard) with the columns
// model.SeriesColumns, rows in run order and then time order, under the same rules: each chunk of rows has a series
// chunk beside it, written first, so a run counts as finished only when both hold it; the two final files are
// assembled the same way (the time-series table first), and Merge joins both.
package sweep

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"

	"lbsweep/experiments"
	"lbsweep/model"
	"lbsweep/results"
	"lbsweep/results/schema"
)

// Options control a sweep.
type Options struct {
	Dir     string    // output root; the dataset goes to Dir/<spec name>/. Default "results".
	Workers int       // concurrent runs; ≤ 0 means runtime.GOMAXPROCS(0)
	Log     io.Writer // progress and warnings; nil discards them
	// Every is the interval between progress lines; 0 means 5 s, negative disables them.
	Every time.Duration
	Shard Shard // the part of the runs to do; the zero value is the whole sweep
	// Force reruns a dataset that is up to date, and discards the finished runs of an interrupted sweep of another
	// version of the spec instead of refusing to mix them. (A finished dataset of another version is always replaced.)
	Force bool
	// OnRow, if set, is called after each run's row is kept, with the runs done and to do in this call and the
	// simulated events so far (for a progress bar).
	OnRow func(done, total int, events int64)
}

// Summary describes a sweep. Wall-clock figures stay here (and on stderr), never in the dataset.
type Summary struct {
	Path       string // the Parquet file written
	SeriesPath string // the time-series table's file (a model.SeriesModel's), "" for other models
	Runs       int    // runs in this sweep (or shard)
	Resumed    int    // runs found finished from an earlier, interrupted sweep
	Reused     int    // runs taken from the dataset this sweep replaced (same runs, same build), not simulated
	UpToDate   bool   // the dataset existed, from this spec and this clean build: nothing was run
	Kept       bool   // the runs gave the rows the dataset already held (another revision built it): the file is unchanged
	Events     int64  // simulated events (or the model's cost estimate) of the runs done now
	Elapsed    time.Duration
}

// maxWorkers bounds -j: the runs are CPU-bound, so more workers than this only cost memory.
const maxWorkers = 1024

// FileName is the dataset file an unsharded sweep writes inside DIR/NAME/.
const FileName = "runs.parquet"

// Chunking of finished runs: a chunk is closed (made durable) once chunkRows rows are in it, or once the run that
// finished first among those in it finished chunkEvery ago, checked every chunkTick. A kill -9 therefore loses at most
// the runs that finished in the last chunkEvery + chunkTick + the time to close a chunk (milliseconds), under 5 s
// (measured: see the README), plus the runs that finished ahead of a run still in progress (at most 4 × workers: rows
// leave in run order, so a run is kept only once every run before it is).
const (
	chunkRows  = 1000
	chunkEvery = 4 * time.Second
	chunkTick  = 250 * time.Millisecond
)

// ErrInterrupted is wrapped by the error of a sweep stopped by its context: the finished runs were kept.
var ErrInterrupted = errors.New("interrupted")

// Run executes the runs of s (those of o.Shard) that are not already finished and writes the dataset. On error the
// finished runs are kept for the next call; the error names the failing run. While another process writes the same
// shard of the dataset, Run is refused at once with an error wrapping ErrLocked, having touched nothing. A dataset
// that is up to date needs no write at all, so it is reported up to date even in a read-only directory or while
// another process holds the lock. Cancelling ctx stops it at any phase, the final write included, with an error
// wrapping ErrInterrupted.
func Run(ctx context.Context, s *experiments.Spec, o Options) (Summary, error) {
	if o.Dir == "" {
		o.Dir = "results"
	}
	if o.Shard.N == 0 {
		o.Shard = Whole
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	if o.Every == 0 {
		o.Every = 5 * time.Second
	}
	start := time.Now()
	dir := filepath.Join(o.Dir, s.Name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return Summary{}, err
	}
	path := filepath.Join(dir, fileName(o.Shard))
	spath := filepath.Join(dir, results.SeriesDir, fileName(o.Shard))
	tb := tablesOf(s)
	lo, hi := shardRange(s, o.Shard)
	sum := Summary{Path: path, Runs: hi - lo}
	if tb.series != nil {
		sum.SeriesPath = spath
	}
	// One writer per shard of a dataset (lock.go). A dataset that cannot be locked, because its directory is
	// read-only or because another sweep holds the lock, may still be up to date: that needs no write (the dataset
	// files are only ever renamed into place, so what is read is one whole file), so the lock's error waits until
	// something must be written. Before, of six sweeps of an up-to-date dataset started at once, three failed.
	lk, lockErr := lockShard(dir, o.Shard)
	defer lk.release()
	if lockErr == nil {
		results.RemoveTemps(path) // a sweep killed while writing the final file left its temporary behind
		results.RemoveTemps(spath)
		for _, p := range []string{newName(path), newName(spath)} { // or its new files, not yet compared
			os.Remove(p)
			results.RemoveTemps(p)
		}
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return sum, fmt.Errorf("%s is a directory: the dataset file cannot be written there", path)
	}
	// A named pipe, a device or a link to one where a table belongs is no dataset, and reading it would block or never
	// end (a link to /dev/zero spun at full CPU, deaf to SIGTERM, as a helper found): it is replaced.
	for _, p := range []string{path, spath} {
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && !fi.Mode().IsRegular() {
			if lockErr != nil {
				return sum, lockErr
			}
			fmt.Fprintf(o.Log, "sweep: %s: %s is not a regular file (%v): it will be replaced\n", s.Name, p, fi.Mode().Type())
			if err := os.Remove(p); err != nil {
				return sum, err
			}
		}
	}
	sp := "" // the time-series file, "" for a model without one
	if tb.series != nil {
		sp = spath
	}
	var ru *reused
	if fi, err := os.Stat(path); err == nil && !fi.IsDir() {
		// This very executable wrote or checked these bytes (builtMark), and found them a complete dataset of the
		// spec whose SHA-256 is markSpec: for this spec, the verdict stands without reading a footer.
		markSpec, marked := markedBuilt(path, sp)
		if marked && markSpec == s.SHA256 && !o.Force && revision() != "unknown" {
			sum.UpToDate = true
			return sum, removeProgress(dir, o.Shard, lockErr)
		}
		meta, rows, err := results.ReadMeta(path) // the footer first; the data is read only if the footer says complete
		sha := results.Lookup(meta, results.KeySpecSHA256)
		sameRuns := err == nil && s.SameRuns(meta)
		complete := sameRuns && rows == int64(hi-lo)
		seriesOK := tb.series == nil || seriesComplete(spath, s, meta)
		// this build wrote it: the same clean revision, or (a modified tree's build) the very same executable
		ownBuild := sameBinary(meta, revision()) || revision() != "unknown" && marked
		if complete && seriesOK && !o.Force && ownBuild {
			// Up to date by its footer. Its data must also read back, with the model's columns: a damaged page or a
			// renamed column would otherwise be "up to date" here and refused by every reader. Files whose bytes
			// are those this executable wrote or already checked (marked: their SHA-256) need no decoding.
			if bad := specIntact(meta); bad != nil {
				fmt.Fprintf(o.Log, "sweep: %s: %s is damaged (%v): rerunning\n", s.Name, path, bad)
			} else if marked {
				sum.UpToDate = true
			} else if bad := readBack(path, tb.runs.cols); bad != nil {
				fmt.Fprintf(o.Log, "sweep: %s: %s is damaged (%v): rerunning\n", s.Name, path, bad)
			} else if bad := seriesReadBack(spath, tb.series); bad != nil {
				fmt.Fprintf(o.Log, "sweep: %s: %s is damaged (%v): rerunning\n", s.Name, spath, bad)
			} else {
				sum.UpToDate = true
			}
			if sum.UpToDate {
				if sha != s.SHA256 {
					if lockErr != nil { // its metadata must be brought up to this spec: a write, which the lock refuses
						sum.UpToDate = false
						return sum, lockErr
					}
					// Only what does not determine the runs changed (figures, tables, claims, text): the rows stay,
					// and the metadata is brought up to this spec, so the dataset is what a fresh sweep would write.
					fmt.Fprintf(o.Log, "sweep: %s: the spec changed only in what does not determine its runs (figures, tables, claims, text): %s keeps its rows and takes the new spec's metadata, nothing re-simulated\n", s.Name, path)
					one := []chunk{{path: path, spath: spath}}
					if tb.series != nil {
						if err := concat(ctx, spath, tb.series, one, func(c chunk) string { return c.spath }); err != nil {
							return sum, err
						}
					}
					if err := concat(ctx, path, tb.runs, one, func(c chunk) string { return c.path }); err != nil {
						return sum, err
					}
				}
				// Checked (or brought up to this spec): the next sweep by this executable need not read them again.
				// Only under the writer's lock: a writer renaming another dataset into place between this check and
				// the mark's hashing would otherwise pair this verdict with its bytes (a helper's race of two builds
				// sharing a cache did).
				if lockErr == nil {
					markBuilt(path, sp, s.SHA256)
				}
				return sum, removeProgress(dir, o.Shard, lockErr)
			}
		}
		switch {
		case err == nil && !sameRuns:
			fmt.Fprintf(o.Log, "sweep: %s: the spec's runs changed since %s was written (its model, grid, seed or replications): it will be replaced\n", s.Name, path)
		case complete && !seriesOK:
			fmt.Fprintf(o.Log, "sweep: %s: %s is complete, but its time-series table %s is missing or not from the same sweep: rerunning\n", s.Name, path, spath)
		case complete && !o.Force && revision() == "unknown":
			fmt.Fprintf(o.Log, "sweep: %s: %s is complete, but this build carries no VCS revision (go run, or GOFLAGS=-buildvcs=false), so it cannot tell the dataset is its own: rerunning (build with -buildvcs=auto, as make does, to skip up-to-date datasets)\n", s.Name, path)
		}
		if err == nil && !sameRuns && !o.Force && lockErr == nil {
			ru = loadReused(s, tb, path, spath, meta, ownBuild)
		}
	}
	if lockErr != nil {
		return sum, lockErr
	}
	prog := progressDir(dir, o.Shard)
	chunks, done, err := loadProgress(prog, s, tb.runs.cols, lo, hi, o.Force, tb.series != nil)
	if err != nil {
		return sum, err
	}
	sum.Resumed = done - lo
	if sum.Resumed > 0 {
		fmt.Fprintf(o.Log, "sweep: %s: resuming: %d of %d runs already finished\n", s.Name, sum.Resumed, hi-lo)
	}
	evs, err := runRange(ctx, s, o, prog, tb, done, hi, &chunks, start, ru, &sum.Reused)
	if sum.Reused > 0 {
		fmt.Fprintf(o.Log, "sweep: %s: %d of %d runs taken from the dataset it replaces (the same runs by the same build), %d simulated\n", s.Name, sum.Reused, hi-done, hi-done-sum.Reused)
	}
	sum.Events = evs
	if err != nil {
		return sum, err
	}
	sort.Slice(chunks, func(i, j int) bool { return chunks[i].first < chunks[j].first })
	// Both files are written beside the dataset first (newName), then compared with the files they replace: a rerun
	// that gives the same rows and metadata but for the revision that built it keeps the old files as they are
	// (keepSame), so a checkout whose committed datasets are re-simulated by a new build stays clean.
	if tb.series != nil { // first, as its chunks were: a dataset file without its series is never up to date
		if err := os.MkdirAll(filepath.Dir(spath), 0o755); err != nil {
			return sum, err
		}
		if err := concat(ctx, newName(spath), tb.series, chunks, func(c chunk) string { return c.spath }); err != nil {
			return sum, err
		}
	} else if err := os.Remove(spath); err == nil { // left by a spec of the same name whose model had a series
		fmt.Fprintf(o.Log, "sweep: %s: removed %s: model %s has no time series\n", s.Name, spath, s.Model.Name())
		os.Remove(filepath.Dir(spath)) // if empty
	}
	if err := concat(ctx, newName(path), tb.runs, chunks, func(c chunk) string { return c.path }); err != nil {
		os.Remove(newName(spath))
		return sum, err
	}
	if keepSame(path, sp) {
		sum.Kept = true
		fmt.Fprintf(o.Log, "sweep: %s: the runs gave the rows %s already holds (it differs only in the revision that built it): the file is kept as it was\n", s.Name, path)
	} else {
		if sp != "" {
			if err := os.Rename(newName(sp), sp); err != nil {
				return sum, err
			}
		}
		if err := os.Rename(newName(path), path); err != nil {
			return sum, err
		}
	}
	markBuilt(path, sp, s.SHA256)
	if err := os.RemoveAll(prog); err != nil {
		return sum, err
	}
	sum.Elapsed = time.Since(start)
	return sum, nil
}

// removeProgress removes the progress directory of shard sh of the dataset in dir that a sweep killed between renaming
// its files into place and removing its progress left behind, when this sweep holds the writer's lock (lockErr is
// nil); an up-to-date dataset's sweep ends with it.
func removeProgress(dir string, sh Shard, lockErr error) error {
	if prog := progressDir(dir, sh); lockErr == nil && exists(prog) {
		return os.RemoveAll(prog)
	}
	return nil
}

// specIntact reports whether the spec text a dataset's footer carries (metadata meta) still hashes to the SHA-256
// beside it, or why not: the pages' checksums do not cover the footer, so damage there that leaves it readable
// (found by a helper at a byte inside the text) would otherwise leave a dataset "up to date" whose spec, the
// record of what was run, is not the one that ran.
func specIntact(meta []results.KV) error {
	sum := sha256.Sum256([]byte(results.Lookup(meta, results.KeySpec)))
	if hex.EncodeToString(sum[:]) != results.Lookup(meta, results.KeySpecSHA256) {
		return errors.New("the spec text in its footer does not hash to the SHA-256 beside it")
	}
	return nil
}

// readBack decodes every page of the dataset file path (results.Verify: no rows are built) and reports why it is not a
// file of columns cols (a page that does not decode, a column renamed or retyped), or nil.
func readBack(path string, cols []schema.Column) error {
	return results.Verify(path, cols)
}

// seriesReadBack is readBack for the time-series table tb at spath (nil when tb is nil: no series).
func seriesReadBack(spath string, tb *table) error {
	if tb == nil {
		return nil
	}
	return readBack(spath, tb.cols)
}

// exists reports whether path exists.
func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// table is the schema and file metadata of one of a sweep's tables.
type table struct {
	cols     []schema.Column
	meta     []results.KV
	rowGroup int // rows per row group (results.Create; the time-series table's is Spec.SeriesRowGroup)
}

// tables are what a sweep of s writes: the runs table, and the time-series table of a model.SeriesModel (nil for other
// models).
type tables struct {
	runs   *table
	series *table
}

func tablesOf(s *experiments.Spec) tables {
	runsKey := results.KV{Key: results.KeyRunsSHA256, Value: s.RunsKey()}
	tb := tables{runs: &table{model.Columns(s.Model), append(withRevision(results.Provenance(s.Text, s.SHA256, s.Model.Name())), runsKey), results.DefaultRowGroup}}
	if sm, ok := s.Model.(model.SeriesModel); ok {
		tb.series = &table{model.SeriesColumns(sm), append(withRevision(results.SeriesProvenance(s.Text, s.SHA256, s.Model.Name())), runsKey), s.SeriesRowGroup()}
	}
	return tb
}

// revision is results.Revision, the build's VCS revision that the datasets it writes carry and that makes a dataset
// up to date. It is a variable for the tests alone: a test binary is never stamped, and the up-to-date paths (a
// read-only directory, a damaged file) need a build that is.
var revision = results.Revision

// version is the module version the datasets carry (results.Provenance's KeyVersion), "" for the build's own. It is a
// variable for the tests alone, as revision is: a stamped build's version names its revision.
var version = func() string { return "" }

// withRevision sets meta's KeyRevision to revision() and, when version() is not "", its KeyVersion to version()
// (results.Provenance wrote the build's own).
func withRevision(meta []results.KV) []results.KV {
	for i := range meta {
		switch meta[i].Key {
		case results.KeyRevision:
			meta[i].Value = revision()
		case results.KeyVersion:
			if v := version(); v != "" {
				meta[i].Value = v
			}
		}
	}
	return meta
}

// seriesComplete reports whether spath is a time-series table of s's runs, written from the same spec text by the same
// build as the runs table whose metadata is meta.
func seriesComplete(spath string, s *experiments.Spec, meta []results.KV) bool {
	smeta, _, err := results.ReadMeta(spath)
	return err == nil && s.SameRuns(smeta) && results.Lookup(smeta, results.KeySpecSHA256) == results.Lookup(meta, results.KeySpecSHA256) &&
		results.Lookup(smeta, results.KeyTable) == results.TableSeries &&
		results.Lookup(smeta, results.KeyRevision) == results.Lookup(meta, results.KeyRevision)
}

// sameBinary reports whether the dataset with metadata meta was written by the build of revision rev (this one's,
// revision()): the same clean VCS revision. A dirty or unstamped build (go run, go test) never counts by it, so
// changed model code always reruns; a dirty build counts only for a dataset that the very same executable wrote
// (markedBuilt, its build ID).
func sameBinary(meta []results.KV, rev string) bool {
	return rev != "unknown" && !strings.HasSuffix(rev, "+dirty") && results.Lookup(meta, results.KeyRevision) == rev
}

// chunk is one progress file, the rows of runs [first, first+rows), and for a SeriesModel the series chunk beside it
// holding the same runs' time-series rows (spath; "" for other models).
type chunk struct {
	path, spath string
	first, rows int
}

// chunkName names a chunk by its first run, so the names sort in run order; seriesChunkName names its series chunk.
func chunkName(first int) string       { return fmt.Sprintf("chunk-%012d.parquet", first) }
func seriesChunkName(first int) string { return "series-" + chunkName(first) }

// loadProgress reads the chunks an interrupted sweep left in prog and returns them with the first run still to do.
// The chunks must continue each other from lo, come from this spec and have the model's columns cols (else an error,
// unless force discards them).
// With series (a SeriesModel), a chunk counts only with its series chunk: the first chunk without one is removed with
// every chunk after it, and so are series chunks left without a chunk (a kill between writing the two), so those
// runs are redone.
func loadProgress(prog string, s *experiments.Spec, cols []schema.Column, lo, hi int, force, series bool) ([]chunk, int, error) {
	ents, err := os.ReadDir(prog)
	if errors.Is(err, os.ErrNotExist) {
		if err := os.MkdirAll(prog, 0o755); err != nil {
			return nil, lo, err
		}
		return nil, lo, os.WriteFile(filepath.Join(prog, buildFile), []byte(buildID()), 0o644)
	} else if err != nil {
		return nil, lo, err
	}
	// Two dirty or unstamped builds of one commit share a revision string: the executable's own hash tells them apart.
	if b, err := os.ReadFile(filepath.Join(prog, buildFile)); err == nil && string(b) != buildID() {
		if !force {
			return nil, lo, fmt.Errorf("finished runs in %s were made by another build of this program (its executable differs): mixing them would mix model code; -force discards them", prog)
		}
		return nil, lo, errors.Join(os.RemoveAll(prog), os.MkdirAll(prog, 0o755), os.WriteFile(filepath.Join(prog, buildFile), []byte(buildID()), 0o644))
	}
	isChunk := func(name, prefix string) bool {
		return strings.HasPrefix(name, prefix) && strings.HasSuffix(name, ".parquet")
	}
	var names []string               // chunks, in name (= run) order
	seriesNames := map[string]bool{} // series chunks, until kept
	for _, e := range ents {
		name := e.Name()
		switch {
		case isChunk(name, "chunk-"):
			names = append(names, name)
		case series && isChunk(name, "series-chunk-"):
			seriesNames[name] = true
		case name == buildFile:
		default:
			os.Remove(filepath.Join(prog, name)) // an unfinished chunk of a killed sweep: its runs are redone
		}
	}
	var chunks []chunk
	next := lo
	for idx, name := range names {
		p, sp := filepath.Join(prog, name), ""
		if series {
			if sname := "series-" + name; seriesNames[sname] {
				sp = filepath.Join(prog, sname)
			} else {
				for _, later := range names[idx:] {
					os.Remove(filepath.Join(prog, later))
				}
				break
			}
		}
		t, err := results.ReadFile(p)
		if err == nil && !s.SameRuns(t.Meta) {
			err = fmt.Errorf("finished runs in %s come from a version of %s with other runs (another model, grid, seed or replications)", prog, s.File)
		}
		if rev := revision(); err == nil && t.MetaValue(results.KeyRevision) != rev {
			err = fmt.Errorf("finished runs in %s were made by another build (revision %s, this one %s): mixing them would mix model code", prog, t.MetaValue(results.KeyRevision), rev)
		}
		if err == nil {
			if cerr := results.SameColumns(cols, t.Columns); cerr != nil {
				err = fmt.Errorf("%s: not model %s's columns: %w", p, s.Model.Name(), cerr)
			}
		}
		if err == nil && name != chunkName(next) {
			err = fmt.Errorf("%s: expected %s next: the progress directory is not one sweep's", prog, chunkName(next))
		}
		if err == nil {
			pc, rc := t.Col("point"), t.Col("replication")
			for k, row := range t.Rows {
				r := s.Run(next + k)
				if next+k >= hi || row[pc].S != r.Key || row[rc].I != int64(r.Replication) {
					err = fmt.Errorf("%s: row %d is not run %d of this spec and shard", p, k, next+k)
					break
				}
			}
		}
		if err == nil && sp != "" {
			err = checkSeries(sp, s, next, next+len(t.Rows), t.MetaValue(results.KeyRevision))
		}
		if err != nil {
			if !force {
				return nil, lo, fmt.Errorf("%w: -force discards them", err)
			}
			return nil, lo, errors.Join(os.RemoveAll(prog), os.MkdirAll(prog, 0o755), os.WriteFile(filepath.Join(prog, buildFile), []byte(buildID()), 0o644))
		}
		delete(seriesNames, filepath.Base(sp))
		chunks = append(chunks, chunk{p, sp, next, len(t.Rows)})
		next += len(t.Rows)
	}
	for name := range seriesNames { // not kept: past the last chunk, or from a chunk that lacked its own
		os.Remove(filepath.Join(prog, name))
	}
	return chunks, next, nil
}

// checkSeries checks that the time-series file path holds rows of the runs [lo, hi) of s, in run order, written from
// s by the build of revision rev. It reads one row group at a time.
func checkSeries(path string, s *experiments.Spec, lo, hi int, rev string) error {
	order := newRunOrder(s, lo, hi)
	row := 0
	return results.Scan(path, func(meta []results.KV, cols []schema.Column, rows []schema.Row) error {
		switch {
		case results.Lookup(meta, results.KeyTable) != results.TableSeries:
			return fmt.Errorf("not a time-series table (%s = %q)", results.KeyTable, results.Lookup(meta, results.KeyTable))
		case !s.SameRuns(meta):
			return fmt.Errorf("it comes from a version of %s with other runs", s.File)
		case results.Lookup(meta, results.KeyRevision) != rev:
			return fmt.Errorf("it was made by another build (revision %s, want %s)", results.Lookup(meta, results.KeyRevision), rev)
		}
		t := &results.Table{Columns: cols}
		pc, rc := t.Col("point"), t.Col("replication")
		if pc < 0 || rc < 0 {
			return errors.New("no point and replication columns")
		}
		for _, r := range rows {
			if !order.next(r[pc].S, r[rc].I) {
				return fmt.Errorf("row %d (point %s, replication %d) is not a run of runs %d..%d in run order", row, r[pc].S, r[rc].I, lo, hi-1)
			}
			row++
		}
		return nil
	})
}

// runOrder follows time-series rows through the runs [lo, hi) of a spec: each row must belong to the run of the row
// before it or to a later one (a run may have any number of rows, none included).
type runOrder struct {
	s     *experiments.Spec
	i, hi int
	key   string
	rep   int64
}

func newRunOrder(s *experiments.Spec, lo, hi int) *runOrder {
	o := &runOrder{s: s, i: lo, hi: hi}
	if lo < hi {
		r := s.Run(lo)
		o.key, o.rep = r.Key, int64(r.Replication)
	}
	return o
}

// next reports whether a row of run (key, rep) may come next, and moves to that run.
func (o *runOrder) next(key string, rep int64) bool {
	for o.i < o.hi {
		if o.rep == rep && o.key == key {
			return true
		}
		if o.i++; o.i < o.hi {
			r := o.s.Run(o.i)
			o.key, o.rep = r.Key, int64(r.Replication)
		}
	}
	return false
}

// runRange runs [from, to) on the worker pool and appends their rows, in order, to new chunks in prog (and their
// time-series rows to the series chunks beside them).
func runRange(ctx context.Context, s *experiments.Spec, o Options, prog string, tb tables, from, to int, chunks *[]chunk, start time.Time, ru *reused, nReused *int) (int64, error) {
	total := to - from
	if total == 0 {
		return 0, nil
	}
	workers := o.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, total, maxWorkers) // no idle workers; a huge -j allocates nothing
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)

	// Runs in flight or waiting to be written, at most; a waiting run holds its row and its time series.
	window := 4 * workers
	type done struct {
		i      int
		row    schema.Row
		series []schema.Row // the model's series cells, without the identity and parameter columns
		ev     int64
		at     time.Time // when the run finished
		reused bool      // taken from the dataset replaced (reused), not simulated
	}
	jobs := make(chan int)
	out := make(chan done, window)
	slots := make(chan struct{}, window)
	go func() { // producer: hands out run indices, at most `window` ahead of the writer
		defer close(jobs)
		for i := from; i < to; i++ {
			select {
			case slots <- struct{}{}:
			case <-ctx.Done():
				return
			}
			select {
			case jobs <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	evCol := colIndex(tb.runs.cols, "events")
	th := newTheories(s, from, to)
	for range workers {
		go func() {
			for i := range jobs {
				if row, series, ok := ru.take(s, i); ok {
					select {
					case out <- done{i, row, series, 0, time.Now(), true}:
					case <-ctx.Done():
						return
					}
					continue
				}
				row, series, err := runOne(ctx, s, i, tb, th)
				if err != nil {
					cancel(err)
					return
				}
				var ev int64
				if evCol >= 0 {
					ev = row[evCol].I
				} else { // models without an events column: their cost estimate
					ev = int64(s.Model.Cost(s.Run(i).Point))
				}
				select {
				case out <- done{i, row, series, ev, time.Now(), false}:
				case <-ctx.Done():
					return
				}
			}
		}()
	}

	// The current chunk: opened at its first row, closed (made durable) when full, old, or at the end. Its series
	// chunk (sw, for a SeriesModel) is opened and closed with it, and closed first: a kill between the two leaves
	// runs with series and no row, which loadProgress discards, never a run with a row and no series.
	var w, sw *results.Writer
	var cur chunk
	var oldest time.Time // when the run that finished first among those in the current chunk finished
	var srow schema.Row  // one time-series row, reused: identity and parameters, then the model's cells
	prefix := model.IdentityColumns + len(s.Model.Params())
	if tb.series != nil {
		srow = make(schema.Row, len(tb.series.cols))
	}
	closeChunk := func() error {
		if w == nil {
			return nil
		}
		var err error
		if sw != nil {
			err = sw.Close()
			sw = nil
		}
		if err != nil {
			w.Abort()
		} else {
			err = w.Close()
		}
		w = nil
		if err != nil {
			return err
		}
		*chunks = append(*chunks, cur)
		return nil
	}
	defer func() {
		if sw != nil {
			sw.Abort()
		}
		if w != nil {
			w.Abort()
		}
	}()

	pending := make(map[int]done, window)
	next := from
	var events int64
	last := time.Now()
	// The ETA is from the runs' estimated cost (Model.Cost, events), not their count: the estimated events of the
	// runs written so far against those of all the runs of this call, at the rate seen so far.
	pointCost := make(map[int]float64)
	costOf := func(i int) float64 {
		pi := i / s.Replications
		c, ok := pointCost[pi]
		if !ok {
			pt, _ := s.Point(pi)
			c = max(s.Model.Cost(pt), 1)
			pointCost[pi] = c
		}
		return c
	}
	var costAll, costDone float64
	if o.Every > 0 {
		for pi := from / s.Replications; pi*s.Replications < to; pi++ {
			lo, hi := max(pi*s.Replications, from), min((pi+1)*s.Replications, to)
			costAll += float64(hi-lo) * costOf(pi*s.Replications)
		}
	}
	progress := func() {
		if o.Every <= 0 || time.Since(last) < o.Every {
			return
		}
		last = time.Now()
		el := time.Since(start)
		eta := "unknown (no run finished yet)"
		if costDone > 0 {
			eta = time.Duration(float64(el) * max(costAll-costDone, 0) / costDone).Round(time.Second).String()
		}
		fmt.Fprintf(o.Log, "sweep: %s: %d/%d runs, %.3g events, %.3g events/s, %.0f%% of the estimated events, ETA %s\n",
			s.Name, next-from, total, float64(events), float64(events)/el.Seconds(), 100*costDone/max(costAll, 1), eta)
	}
	tick := time.NewTicker(chunkTick)
	defer tick.Stop()
	for next < to {
		select {
		case <-ctx.Done():
			err := context.Cause(ctx)
			if cerr := closeChunk(); cerr != nil {
				err = errors.Join(err, cerr)
			}
			if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
				err = fmt.Errorf("%w (%w)", ErrInterrupted, err)
			}
			return events, fmt.Errorf("%s: stopped after %d of %d runs of this sweep, which are kept; run the same command to resume: %w", s.Name, next-from, total, err)
		case <-tick.C:
			if w != nil && time.Since(oldest) >= chunkEvery {
				if err := closeChunk(); err != nil {
					return events, err
				}
			}
			progress() // also while no run finishes: a line every o.Every whatever the runs' length
			continue
		case d := <-out:
			pending[d.i] = d
		}
		for {
			d, ok := pending[next]
			if !ok {
				break
			}
			delete(pending, next)
			if w == nil {
				cur, oldest = chunk{path: filepath.Join(prog, chunkName(next)), first: next}, d.at
				var err error
				if tb.series != nil {
					cur.spath = filepath.Join(prog, seriesChunkName(next))
					if sw, err = results.Create(cur.spath, tb.series.cols, tb.series.meta, tb.series.rowGroup); err != nil {
						return events, err
					}
				}
				if w, err = results.Create(cur.path, tb.runs.cols, tb.runs.meta, tb.runs.rowGroup); err != nil {
					return events, err
				}
			}
			if sw != nil {
				copy(srow, d.row[:prefix])
				for _, cells := range d.series {
					copy(srow[prefix:], cells)
					if err := sw.Write(srow); err != nil {
						return events, err
					}
				}
			}
			if err := w.Write(d.row); err != nil {
				return events, err
			}
			cur.rows++
			if d.at.Before(oldest) {
				oldest = d.at
			}
			events += d.ev
			if d.reused {
				*nReused++
			}
			switch {
			case o.Every <= 0:
			case d.reused: // no time spent: not part of the work the ETA measures
				costAll -= costOf(next)
			default:
				costDone += costOf(next)
			}
			next++
			<-slots
			if o.OnRow != nil {
				o.OnRow(next-from, total, events)
			}
			if cur.rows >= chunkRows || time.Since(oldest) >= chunkEvery {
				if err := closeChunk(); err != nil {
					return events, err
				}
			}
		}
		progress()
	}
	return events, closeChunk()
}

// concat writes the rows of the chunk files file(c) of chunks (in run order), in order, to path (through a temporary
// name) with the schema and metadata of tb, one row group in memory at a time. It stops when ctx is cancelled (an error
// wrapping ErrInterrupted), leaving no file: the chunks stay, so the next sweep only writes the file again.
func concat(ctx context.Context, path string, tb *table, chunks []chunk, file func(chunk) string) error {
	w, err := results.Create(path, tb.cols, tb.meta, tb.rowGroup)
	if err != nil {
		return err
	}
	defer w.Abort()
	for _, c := range chunks {
		err := results.Scan(file(c), func(_ []results.KV, _ []schema.Column, rows []schema.Row) error {
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("%w while writing %s, whose runs are all kept: run the same command to write it (%w)", ErrInterrupted, path, err)
			}
			for _, row := range rows {
				if err := w.Write(row); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return w.Close()
}

// runOne simulates run i under ctx, fills its theory columns from its point's theory (th, nil for a model that is no
// model.Theorist) and assembles its row, and for a SeriesModel returns its series rows (each aligned with the model's
// SeriesColumns). A cell of the wrong type for its column is an error naming the column, and a panic inside the
// model becomes an error naming the run.
func runOne(ctx context.Context, s *experiments.Spec, i int, tb tables, th *theories) (row schema.Row, series []schema.Row, err error) {
	r := s.Run(i)
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("run %d (point %s, replication %d) panicked: %v", i, r.Key, r.Replication, p)
		}
	}()
	var metrics schema.Row
	if sm, ok := s.Model.(model.SeriesModel); ok && tb.series != nil {
		metrics, series, err = sm.RunSeries(ctx, r.Point, r.Seed)
	} else {
		metrics, err = s.Model.Run(ctx, r.Point, r.Seed)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("run %d (point %s, replication %d): %w", i, r.Key, r.Replication, err)
	}
	bad := func(err error) error {
		return fmt.Errorf("sweep: model %s: run %d (point %s, replication %d): %w", s.Model.Name(), i, r.Key, r.Replication, err)
	}
	mcols := s.Model.Metrics()
	if len(metrics) != len(mcols) {
		return nil, nil, bad(fmt.Errorf("%d metric cells, want %d", len(metrics), len(mcols)))
	}
	th.fill(r, metrics)
	cols := tb.runs.cols
	row = make(schema.Row, 0, len(cols))
	row = append(row, schema.Str(s.Name), schema.Str(r.Key), schema.Int(int64(r.Replication)), schema.Int(int64(r.Seed.Run)))
	for k, p := range s.Model.Params() {
		row = append(row, p.Cell(r.Point[k]))
	}
	row = append(row, metrics...)
	if err := schema.CheckRow(cols, row); err != nil {
		return nil, nil, bad(err)
	}
	if tb.series != nil {
		scols := tb.series.cols[model.IdentityColumns+len(s.Model.Params()):]
		for k, cells := range series {
			if err := schema.CheckRow(scols, cells); err != nil {
				return nil, nil, bad(fmt.Errorf("series row %d: %w", k, err))
			}
		}
	}
	return row, series, nil
}

func colIndex(cols []schema.Column, name string) int {
	for i, c := range cols {
		if c.Name == name {
			return i
		}
	}
	return -1
}
