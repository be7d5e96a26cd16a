// Package sweep runs an experiment's grid: a bounded pool of goroutine workers, one run per job, rows streamed in run
// order through a bounded reorder window (memory does not grow with the grid), the first error cancelling the rest.
//
// Nothing finished is lost. Finished runs are flushed, in run order, to chunk files in the hidden directory
// DIR/NAME/.progress-K-of-N/ every chunkRows rows or chunkEvery seconds, and on interruption. Because rows leave in
// run order, the runs finished when a sweep stops (SIGINT, SIGTERM, kill -9, a lost machine) are always a prefix of
// its run list: the same command resumes after them. At the end the chunks are concatenated into the dataset file
// DIR/NAME/runs.parquet (or part-K-of-N.parquet for a shard, see Shard and Merge), written under a temporary name and
// renamed, and the progress directory is removed. The dataset's bytes depend only on the spec and the binary: not on
// the number of workers, on interruptions, or on the shard split once merged.
package sweep

import (
	"context"
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
	Path     string // the Parquet file written
	Runs     int    // runs in this sweep (or shard)
	Resumed  int    // runs found finished from an earlier, interrupted sweep
	UpToDate bool   // the dataset existed, from this spec and this clean build: nothing was run
	Events   int64  // simulated events (or the model's cost estimate) of the runs done now
	Elapsed  time.Duration
}

// maxWorkers bounds -j: the runs are CPU-bound, so more workers than this only cost memory.
const maxWorkers = 1024

// FileName is the dataset file an unsharded sweep writes inside DIR/NAME/.
const FileName = "runs.parquet"

// Chunking of finished runs: a kill -9 loses at most the runs finished in the last chunkEvery.
const (
	chunkRows  = 1000
	chunkEvery = 5 * time.Second
)

// ErrInterrupted is wrapped by the error of a sweep stopped by its context: the finished runs were kept.
var ErrInterrupted = errors.New("interrupted")

// Run executes the runs of s (those of o.Shard) that are not already finished and writes the dataset. On error the
// finished runs are kept for the next call; the error names the failing run.
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
	lo, hi := shardRange(s, o.Shard)
	sum := Summary{Path: path, Runs: hi - lo}
	results.RemoveStaleTemps(path) // a sweep killed while writing the final file left its temporary behind
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return sum, fmt.Errorf("%s is a directory: the dataset file cannot be written there", path)
	} else if err == nil {
		meta, rows, err := results.ReadMeta(path) // the footer only: the file may be large
		sha := results.Lookup(meta, results.KeySpecSHA256)
		if err == nil && sha == s.SHA256 && rows == int64(hi-lo) && !o.Force && sameBinary(meta) {
			sum.UpToDate = true
			// A sweep killed between renaming the file into place and removing its progress leaves them behind.
			return sum, os.RemoveAll(progressDir(dir, o.Shard))
		}
		switch {
		case err == nil && sha != s.SHA256:
			fmt.Fprintf(o.Log, "sweep: %s: the spec changed since %s was written: it will be replaced\n", s.Name, path)
		case err == nil && !o.Force && rows == int64(hi-lo) && results.Revision() == "unknown":
			fmt.Fprintf(o.Log, "sweep: %s: %s is complete, but this build carries no VCS revision (go run, or GOFLAGS=-buildvcs=false), so it cannot tell the dataset is its own: rerunning (build with -buildvcs=auto, as make does, to skip up-to-date datasets)\n", s.Name, path)
		}
	}
	prog := progressDir(dir, o.Shard)
	chunks, done, err := loadProgress(prog, s, lo, hi, o.Force)
	if err != nil {
		return sum, err
	}
	sum.Resumed = done - lo
	if sum.Resumed > 0 {
		fmt.Fprintf(o.Log, "sweep: %s: resuming: %d of %d runs already finished\n", s.Name, sum.Resumed, hi-lo)
	}
	cols := model.Columns(s.Model)
	meta := results.Provenance(s.Text, s.SHA256, s.Model.Name())
	evs, err := runRange(ctx, s, o, prog, cols, meta, done, hi, &chunks, start)
	sum.Events = evs
	if err != nil {
		return sum, err
	}
	if err := concat(path, cols, meta, chunks); err != nil {
		return sum, err
	}
	if err := os.RemoveAll(prog); err != nil {
		return sum, err
	}
	sum.Elapsed = time.Since(start)
	return sum, nil
}

// sameBinary reports whether the dataset with metadata meta was written by this very build: the same clean VCS revision. A dirty or
// unstamped build (go run, go test) never counts, so changed model code always reruns.
func sameBinary(meta []results.KV) bool {
	rev := results.Revision()
	return rev != "unknown" && !strings.HasSuffix(rev, "+dirty") && results.Lookup(meta, results.KeyRevision) == rev
}

// chunk is one progress file: the rows of runs [first, first+rows).
type chunk struct {
	path        string
	first, rows int
}

// chunkName names a chunk by its first run, so the names sort in run order.
func chunkName(first int) string { return fmt.Sprintf("chunk-%012d.parquet", first) }

// loadProgress reads the chunks an interrupted sweep left in prog and returns them with the first run still to do.
// The chunks must continue each other from lo and come from this spec (else an error, unless force discards them).
func loadProgress(prog string, s *experiments.Spec, lo, hi int, force bool) ([]chunk, int, error) {
	ents, err := os.ReadDir(prog)
	if errors.Is(err, os.ErrNotExist) {
		return nil, lo, os.MkdirAll(prog, 0o755)
	} else if err != nil {
		return nil, lo, err
	}
	var chunks []chunk
	next := lo
	for _, e := range ents {
		name := e.Name()
		if !strings.HasPrefix(name, "chunk-") || !strings.HasSuffix(name, ".parquet") {
			os.Remove(filepath.Join(prog, name)) // an unfinished chunk of a killed sweep: its runs are redone
			continue
		}
		p := filepath.Join(prog, name)
		t, err := results.ReadFile(p)
		if err == nil && t.MetaValue(results.KeySpecSHA256) != s.SHA256 {
			err = fmt.Errorf("finished runs in %s come from another version of %s", prog, s.File)
		}
		if rev := results.Revision(); err == nil && t.MetaValue(results.KeyRevision) != rev {
			err = fmt.Errorf("finished runs in %s were made by another build (revision %s, this one %s): mixing them would mix model code", prog, t.MetaValue(results.KeyRevision), rev)
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
		if err != nil {
			if !force {
				return nil, lo, fmt.Errorf("%w: -force discards them", err)
			}
			return nil, lo, errors.Join(os.RemoveAll(prog), os.MkdirAll(prog, 0o755))
		}
		chunks = append(chunks, chunk{p, next, len(t.Rows)})
		next += len(t.Rows)
	}
	return chunks, next, nil
}

// runRange runs [from, to) on the worker pool and appends their rows, in order, to new chunks in prog.
func runRange(ctx context.Context, s *experiments.Spec, o Options, prog string, cols []results.Column, meta []results.KV, from, to int, chunks *[]chunk, start time.Time) (int64, error) {
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

	window := 4 * workers // runs in flight or waiting to be written, at most
	type done struct {
		i   int
		row results.Row
		ev  int64
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
	evCol := colIndex(cols, "events")
	for range workers {
		go func() {
			for i := range jobs {
				row, err := runOne(s, i, cols)
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
				case out <- done{i, row, ev}:
				case <-ctx.Done():
					return
				}
			}
		}()
	}

	// The current chunk: opened at its first row, closed (made durable) when full, old, or at the end.
	var w *results.Writer
	var cur chunk
	var opened time.Time
	closeChunk := func() error {
		if w == nil {
			return nil
		}
		err := w.Close()
		w = nil
		if err != nil {
			return err
		}
		*chunks = append(*chunks, cur)
		return nil
	}
	defer func() {
		if w != nil {
			w.Abort()
		}
	}()

	pending := make(map[int]done, window)
	next := from
	var events int64
	last := time.Now()
	tick := time.NewTicker(chunkEvery)
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
			if time.Since(opened) >= chunkEvery {
				if err := closeChunk(); err != nil {
					return events, err
				}
			}
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
				cur, opened = chunk{filepath.Join(prog, chunkName(next)), next, 0}, time.Now()
				var err error
				if w, err = results.Create(cur.path, cols, meta, 0); err != nil {
					return events, err
				}
			}
			if err := w.Write(d.row); err != nil {
				return events, err
			}
			cur.rows++
			events += d.ev
			next++
			<-slots
			if o.OnRow != nil {
				o.OnRow(next-from, total, events)
			}
			if cur.rows >= chunkRows {
				if err := closeChunk(); err != nil {
					return events, err
				}
			}
		}
		if o.Every > 0 && time.Since(last) >= o.Every {
			last = time.Now()
			el := time.Since(start)
			eta := time.Duration(float64(el) * float64(to-next) / float64(max(next-from, 1)))
			fmt.Fprintf(o.Log, "sweep: %s: %d/%d runs, %.3g events, %.3g events/s, ETA %s\n",
				s.Name, next-from, total, float64(events), float64(events)/el.Seconds(), eta.Round(time.Second))
		}
	}
	return events, closeChunk()
}

// concat writes the chunks' rows, in order, to path (through a temporary name), one chunk in memory at a time.
func concat(path string, cols []results.Column, meta []results.KV, chunks []chunk) error {
	sort.Slice(chunks, func(i, j int) bool { return chunks[i].first < chunks[j].first })
	w, err := results.Create(path, cols, meta, 0)
	if err != nil {
		return err
	}
	defer w.Abort()
	for _, c := range chunks {
		err := results.Scan(c.path, func(_ []results.KV, _ []results.Column, rows []results.Row) error {
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

// runOne simulates run i and assembles its row; a panic inside the model becomes an error naming the run.
func runOne(s *experiments.Spec, i int, cols []results.Column) (row results.Row, err error) {
	r := s.Run(i)
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("run %d (point %s, replication %d) panicked: %v", i, r.Key, r.Replication, p)
		}
	}()
	metrics, err := s.Model.Run(r.Point, r.Seed)
	if err != nil {
		return nil, fmt.Errorf("run %d (point %s, replication %d): %w", i, r.Key, r.Replication, err)
	}
	row = make(results.Row, 0, len(cols))
	row = append(row, results.Str(s.Name), results.Str(r.Key), results.Int(int64(r.Replication)), results.Int(int64(r.Seed.Run)))
	for k, p := range s.Model.Params() {
		row = append(row, p.Cell(r.Point[k]))
	}
	row = append(row, metrics...)
	if len(row) != len(cols) {
		return nil, errors.New("sweep: model " + s.Model.Name() + " returned the wrong number of metrics")
	}
	return row, nil
}

func colIndex(cols []results.Column, name string) int {
	for i, c := range cols {
		if c.Name == name {
			return i
		}
	}
	return -1
}
