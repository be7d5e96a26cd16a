package sweep

import (
	"sync"

	"lbsweep/experiments"
	"lbsweep/model"
	"lbsweep/results/schema"
)

// theories computes each grid point's theory once (model.Theorist) and shares it among the point's replications,
// which workers run concurrently. Runs are in point order, replications of a point consecutive, and at most a
// window of them in flight, so an entry is made by the first of its point's runs to finish and removed by the last
// of them in [from, to): the map holds at most one entry per run in flight.
type theories struct {
	m        model.Theorist
	reps     int // replications per point
	from, to int // the runs of this sweep
	mu       sync.Mutex
	points   map[int]*pointTheory
}

// pointTheory is one grid point's theory, computed under once; left counts the point's runs not yet filled.
type pointTheory struct {
	once     sync.Once
	th       model.Theory
	panicked any // what Theory panicked with, re-raised in every replication of the point
	left     int
}

// newTheories returns the theory cache of a sweep of runs [from, to) of s, or nil when s's model is no Theorist.
func newTheories(s *experiments.Spec, from, to int) *theories {
	m, ok := s.Model.(model.Theorist)
	if !ok {
		return nil
	}
	return &theories{m: m, reps: s.Replications, from: from, to: to, points: map[int]*pointTheory{}}
}

// fill sets the theory columns of run r's metric row, computing r's point's theory if no replication has yet. A
// panic in Theory propagates (runOne reports it as the run's error), to this and every other replication of the point.
func (t *theories) fill(r experiments.Run, metrics schema.Row) {
	if t == nil {
		return
	}
	t.mu.Lock()
	pt := t.points[r.PointIndex]
	if pt == nil {
		first, last := r.PointIndex*t.reps, (r.PointIndex+1)*t.reps
		pt = &pointTheory{left: min(last, t.to) - max(first, t.from)}
		t.points[r.PointIndex] = pt
	}
	t.mu.Unlock()
	defer func() {
		t.mu.Lock()
		if pt.left--; pt.left == 0 {
			delete(t.points, r.PointIndex)
		}
		t.mu.Unlock()
	}()
	pt.once.Do(func() {
		defer func() {
			if p := recover(); p != nil {
				pt.panicked = p
			}
		}()
		pt.th = t.m.Theory(r.Point)
	})
	if pt.panicked != nil {
		panic(pt.panicked)
	}
	if pt.th != nil {
		pt.th(metrics)
	}
}
