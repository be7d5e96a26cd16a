// Package sweep runs an experiment's grid: a bounded pool of goroutine workers, one run per job, rows streamed to
// Parquet in run order through a bounded reorder window (memory does not grow with the grid), the first error
// cancelling the rest, and the output written under a temporary name and renamed only when complete.
//
// The dataset is DIR/NAME/runs.parquet. Its bytes depend only on the spec and the binary, not on the number of
// workers or the order in which runs finish.
package sweep

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
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
}

// Summary describes a finished sweep. Wall-clock figures stay here (and on stderr), never in the dataset.
type Summary struct {
	Path    string // the Parquet file written
	Runs    int
	Events  int64
	Elapsed time.Duration
}

// maxWorkers bounds -j: the runs are CPU-bound, so more workers than this only cost memory.
const maxWorkers = 1024

// FileName is the dataset file a sweep writes inside DIR/NAME/.
const FileName = "runs.parquet"

// Run executes every run of s and writes the dataset. On error or cancellation nothing that looks complete is left
// behind (the temporary file is removed) and the error names the failing run.
func Run(ctx context.Context, s *experiments.Spec, o Options) (Summary, error) {
	if o.Dir == "" {
		o.Dir = "results"
	}
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	o.Workers = min(o.Workers, max(s.Runs(), 1), maxWorkers) // no idle workers; a huge -j allocates nothing
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
	path := filepath.Join(dir, FileName)
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return Summary{}, fmt.Errorf("%s is a directory: the dataset file cannot be written there", path)
	}
	cols := model.Columns(s.Model)
	w, err := results.Create(path, cols, results.Provenance(s.Text, s.SHA256, s.Model.Name()), 0)
	if err != nil {
		return Summary{}, err
	}
	defer w.Abort()

	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)

	total := s.Runs()
	window := 4 * o.Workers // runs in flight or waiting to be written, at most
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
		for i := range total {
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
	for range o.Workers {
		go func() {
			for i := range jobs {
				row, err := runOne(s, i, cols)
				if err != nil {
					cancel(err)
					return
				}
				ev := int64(s.Model.Cost(s.Run(i).Point)) // models without an events column: their cost estimate
				if evCol >= 0 {
					ev = row[evCol].I
				}
				select {
				case out <- done{i, row, ev}:
				case <-ctx.Done():
					return
				}
			}
		}()
	}

	pending := make(map[int]done, window)
	next := 0
	var events int64
	last := time.Now()
	for next < total {
		select {
		case <-ctx.Done():
			err := context.Cause(ctx)
			return Summary{}, fmt.Errorf("%s: stopped after %d of %d runs, nothing written: %w", s.Name, next, total, err)
		case d := <-out:
			pending[d.i] = d
		}
		for {
			d, ok := pending[next]
			if !ok {
				break
			}
			delete(pending, next)
			if err := w.Write(d.row); err != nil {
				return Summary{}, err
			}
			events += d.ev
			next++
			<-slots
		}
		if o.Every > 0 && time.Since(last) >= o.Every {
			last = time.Now()
			el := time.Since(start)
			eta := time.Duration(float64(el) * float64(total-next) / float64(max(next, 1)))
			fmt.Fprintf(o.Log, "sweep: %s: %d/%d runs, %.3g events, %.3g events/s, ETA %s\n",
				s.Name, next, total, float64(events), float64(events)/el.Seconds(), eta.Round(time.Second))
		}
	}
	if err := w.Close(); err != nil {
		return Summary{}, err
	}
	return Summary{Path: path, Runs: total, Events: events, Elapsed: time.Since(start)}, nil
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
