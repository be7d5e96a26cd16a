package sweep

import (
	"container/heap"

	"lbsweep/experiments"
	"lbsweep/model"
)

// DefaultRate is the rate, in a model's Cost units per CPU-second of one worker, that a plan assumes for a model that
// is not a model.Rater: the supermarket's, about 2.5·10^7 events/s on the project's machine (README, Performance).
const DefaultRate = 2.5e7

// Costs of a sweep that do not scale with a run's Cost, measured by bench/plan.sh on the project's machine (2 cores,
// 2026-12-02): starting the process and loading the spec, checking and writing the dataset (planStart), each run's
// own setup and row (planPerRun), and the writing of its time-series rows, which repeat every parameter (planSeriesBPS).
const (
	planStart     = 0.03 // seconds
	planPerRun    = 5e-5 // seconds
	planSeriesBPS = 1e8  // bytes of time-series rows (model.Bounds.SeriesRow × SeriesRows) written per second
)

// Plan is what a sweep of a spec would cost before any run: its estimated work and time and its split into shards.
type Plan struct {
	Events  float64     // estimated simulated events of all runs: Σ over points of Model.Cost × replications
	CPU     float64     // estimated CPU-seconds of all runs on one worker: Σ of the runs' seconds (Cost / rate + planPerRun)
	Time    float64     // estimated wall-clock seconds of the sweep on the plan's workers: planStart + the makespan
	Workers int         // the runs at once the Time is for: min(-j, runs)
	Shards  []ShardPlan // the split into N shards, in shard order (one, the whole sweep, for N = 1)
}

// ShardPlan is one shard of a Plan.
type ShardPlan struct {
	Shard  Shard
	Lo, Hi int     // its runs [Lo, Hi), as Run with Options.Shard = Shard runs them
	Events float64 // estimated events of those runs: Σ of their points' Model.Cost
}

// PlanOf returns the plan of spec s split into n ≥ 1 shards for `workers` ≥ 1 runs at once, as `sweep plan -shard n
// -j workers` prints it. rate, when positive, is the Cost units per CPU-second of one worker to assume for every run;
// when 0, each point's model.Rater rate (DefaultRate for a model that is not one). The events are the model's Cost
// (its own count of a run's events); a run's seconds are its Cost over the rate, plus its time-series rows' writing,
// plus, for the first replication of a point, the point's model.TheoryCoster cost; the time is the makespan of the
// runs in run order on `workers` workers, each taking the next run when it is free (as Run's pool does), plus the
// sweep's fixed costs; the split is the one Run uses.
func PlanOf(s *experiments.Spec, n, workers int, rate float64) Plan {
	var p Plan
	runs, reps := s.Runs(), s.Replications
	p.Workers = max(1, min(workers, runs))
	cost := make([]float64, s.Points())   // a run's Cost at each point
	secs := make([]float64, s.Points())   // a run's seconds at each point
	theory := make([]float64, s.Points()) // a point's theory's seconds, once per point
	for i := range secs {
		pt, _ := s.Point(i)
		cost[i] = s.Model.Cost(pt)
		p.Events += cost[i] * float64(reps)
		r := rate
		if r <= 0 {
			r = RateOf(s.Model, pt)
		}
		b := s.Model.Bounds(pt)
		secs[i] = cost[i]/r + planPerRun + b.SeriesRow*b.SeriesRows/planSeriesBPS
		if tc, ok := s.Model.(model.TheoryCoster); ok {
			theory[i] = tc.TheoryCost(pt) / r
		}
	}
	free := make(freeAt, p.Workers) // when each worker is next free, a min-heap
	for i := range runs {           // run i is replication i % reps of point i / reps (Spec.Run)
		t := secs[i/reps]
		if i%reps == 0 { // the point's theory, computed by the first of its runs to ask
			t += theory[i/reps]
		}
		p.CPU += t
		free[0] += t
		heap.Fix(&free, 0)
	}
	p.Time = planStart
	for _, f := range free {
		p.Time = max(p.Time, planStart+f)
	}
	for k := range n {
		sh := Shard{k, n}
		lo, hi := shardRange(s, sh)
		w := 0.0
		for i := lo; i < hi; i++ {
			w += cost[i/reps]
		}
		p.Shards = append(p.Shards, ShardPlan{Shard: sh, Lo: lo, Hi: hi, Events: w})
	}
	return p
}

// RateOf is the Cost units per CPU-second of one worker a plan assumes for model m at point pt: its
// model.Rater rate, or DefaultRate.
func RateOf(m model.Model, pt model.Point) float64 {
	if r, ok := m.(model.Rater); ok {
		if v := r.EventsPerSecond(pt); v > 0 {
			return v
		}
	}
	return DefaultRate
}

// freeAt is a min-heap of the times the workers are next free, in seconds from the sweep's start.
type freeAt []float64

func (h freeAt) Len() int           { return len(h) }
func (h freeAt) Less(i, j int) bool { return h[i] < h[j] }
func (h freeAt) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *freeAt) Push(x any)        { *h = append(*h, x.(float64)) }
func (h *freeAt) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
