package experiments

import (
	"context"
	"fmt"
	"math"

	"github.com/dustin/go-humanize"

	"lbsweep/model"
	"lbsweep/results"
)

// Peak is the grid point whose run needs the most memory by its model's estimate (model.Bounds), found when the spec
// is loaded: what a memory budget is checked against (Spec.CheckMemory) and what `sweep plan` prints.
type Peak struct {
	Bytes float64 // the estimate of one run, in bytes (model.Bounds.Bytes)
	What  string  // its dominant term in words
	Point string  // the point's key
	// table and key set the parameter the memory grows with: located (a scan of the text) only for a refusal, not
	// at every point that raises the peak
	table, key string
	found      bool
	// SeriesRow is the largest bytes of a time-series row as the sweep's writer holds it (model.Bounds.SeriesRow).
	SeriesRow float64
}

// checkBounds checks point p's work (Model.Cost: finite and ≤ model.MaxEvents) and records its memory estimate in
// s.Peak when it is the largest yet. where names the table and key that set a parameter (index into the model's
// Params; -1: none).
func (d *decoder) checkBounds(s *Spec, p model.Point, where func(param int) (string, string)) error {
	ps := s.Model.Params()
	b := s.Model.Bounds(p)
	locate := func(param string) (string, string) {
		t, key := where(model.Index(ps, param))
		if key == "" && model.Index(ps, param) >= 0 {
			key = param
		}
		return t, key
	}
	if c := s.Model.Cost(p); !(c <= model.MaxEvents) { // NaN and +Inf too
		t, key := locate(b.WorkBy)
		return d.errf(t, -1, key, "the run would take about %.3g simulated events, more than %.0g (about three days of one worker): shorten it (at point %s)", c, float64(model.MaxEvents), shorten(Key(ps, p)))
	}
	if math.IsNaN(b.Bytes) || b.Bytes < 0 {
		b.Bytes = math.Inf(1)
	}
	s.Peak.SeriesRow = max(s.Peak.SeriesRow, b.SeriesRow)
	if !s.Peak.found || b.Bytes > s.Peak.Bytes {
		t, key := locate(b.MemoryBy)
		s.Peak = Peak{Bytes: b.Bytes, What: b.MemoryWhat, Point: Key(ps, p), table: t, key: key, found: true, SeriesRow: s.Peak.SeriesRow}
	}
	return nil
}

// SeriesGroupBytes bounds the bytes of one row group of a time-series table (Peak.SeriesRow times its rows): a
// resilience row names every parameter, so 4096 of them (results.DefaultRowGroup) held 20 MB in each of the
// writer's builders, its dictionary pages and, while the final file is assembled, the reader's row group and its
// rows, and the sweep of the 4-server breaker spec peaked at 154 MB resident; at 4 MiB a group it peaks at 95 MB
// (measured 2026-12-02).
const SeriesGroupBytes = 4 << 20

// SeriesRowGroup is the rows per row group of s's time-series table: SeriesGroupBytes over the widest row
// (Peak.SeriesRow), within [64, results.DefaultRowGroup]; results.DefaultRowGroup for a spec without one. It depends
// on the spec alone (its grid's widest row), so every shard and the merge group their rows alike and the table's
// bytes stay the same whatever the split.
func (s *Spec) SeriesRowGroup() int {
	if !(s.Peak.SeriesRow > 0) {
		return results.DefaultRowGroup
	}
	return int(min(max(math.Floor(SeriesGroupBytes/s.Peak.SeriesRow), 64), results.DefaultRowGroup))
}

// seriesCopies is how many times a row group of time-series rows is held at once at the peak: in the writer's
// builders and in its encoded pages and dictionaries, and (while the final file is assembled from the chunks) in the
// reader's row group.
const seriesCopies = 3

// seriesBytes is the time-series rows held at once (seriesCopies row groups), 0 for a spec without a series.
func (s *Spec) seriesBytes() float64 {
	return seriesCopies * float64(s.SeriesRowGroup()) * s.Peak.SeriesRow
}

// Memory estimates the peak resident memory of a sweep of s with workers runs at once: the process's Baseline,
// workers times the largest run (Peak.Bytes), and the time-series rows the writer and the reader hold (seriesCopies
// row groups of SeriesRowGroup rows).
func (s *Spec) Memory(workers int) float64 {
	w := float64(min(workers, s.Runs()))
	return Baseline + w*s.Peak.Bytes + s.seriesBytes()
}

// Baseline is the resident memory of a sweep process beside its runs: the Go runtime, the models' tables, the spec,
// the chunk's rows, and the collector's slack over the garbage that many runs leave (GOGC = 100 lets the heap reach
// twice the live bytes): 37 MB for one tiny run, 37 to 72 MB for the committed experiments whose runs are small
// (measured 2026-12-02 with -j 2). What CheckMemory and `sweep plan` add to the runs' estimates.
const Baseline = 60e6

// CheckMemory refuses a spec whose largest run (s.Peak) does not fit in budget bytes beside the process's baseline:
// the error names the file, line and key of the parameter the memory grows with, the estimate and the budget. It
// returns how many runs fit in the budget at once (≥ 1), which bounds the sweep's workers.
func (s *Spec) CheckMemory(budget float64) (fit int, err error) {
	if !s.Peak.found || s.Peak.Bytes <= 0 {
		return math.MaxInt32, nil
	}
	room := budget - Baseline - s.seriesBytes()
	if !(s.Peak.Bytes <= room) {
		d := &decoder{file: s.File, text: s.Text}
		return 0, d.errf(s.Peak.table, -1, s.Peak.key, "a run needs an estimated %s (%s), more than the memory budget of %s (the sweep's -mem; %s is the process's own): make it smaller or raise -mem (at point %s)",
			Bytes(s.Peak.Bytes), s.Peak.What, Bytes(budget), Bytes(Baseline), shorten(s.Peak.Point))
	}
	return int(min(room/max(s.Peak.Bytes, 1), math.MaxInt32)), nil
}

// Bytes formats a byte count for messages in decimal units ("3.4 MB", humanize.Bytes), "unbounded memory" for +Inf.
func Bytes(b float64) string {
	if !(b < math.MaxUint64) {
		return "unbounded memory"
	}
	return humanize.Bytes(uint64(max(b, 0)))
}

// Await returns f's result, or an error wrapping interrupted and ctx's cause as soon as ctx is cancelled (a
// command's first signal), if that comes first. f runs in its own goroutine, left behind on cancellation (the
// command then returns and the process exits), so it must be work that leaves nothing to clean up: reading a spec or
// a dataset, planning, checking, rendering into memory. This is how the commands' phases that take no context (a
// grid of millions of points to validate) stop at once.
func Await[T any](ctx context.Context, interrupted error, f func() (T, error)) (T, error) {
	type result struct {
		v   T
		err error
	}
	ch := make(chan result, 1)
	go func() {
		v, err := f()
		ch <- result{v, err}
	}()
	select {
	case r := <-ch:
		return r.v, r.err
	case <-ctx.Done():
		var zero T
		return zero, fmt.Errorf("%w (%w)", interrupted, context.Cause(ctx))
	}
}
