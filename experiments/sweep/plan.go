package sweep

import "lbsweep/experiments"

// Plan is what a sweep of a spec would cost before any run: its estimated work and its split into shards.
type Plan struct {
	Events float64     // estimated simulated events of all runs: Σ over points of Model.Cost × replications
	Shards []ShardPlan // the split into N shards, in shard order (one, the whole sweep, for N = 1)
}

// ShardPlan is one shard of a Plan.
type ShardPlan struct {
	Shard  Shard
	Lo, Hi int     // its runs [Lo, Hi), as Run with Options.Shard = Shard runs them
	Events float64 // estimated events of those runs: Σ of their points' Model.Cost
}

// PlanOf returns the plan of spec s split into n ≥ 1 shards, as `sweep plan -shard n` prints it. The estimates are
// the model's Cost (events per run, a model's own rough count); the split is the one Run uses.
func PlanOf(s *experiments.Spec, n int) Plan {
	var p Plan
	for i := range s.Points() {
		pt, _ := s.Point(i)
		p.Events += s.Model.Cost(pt) * float64(s.Replications)
	}
	for k := range n {
		sh := Shard{k, n}
		lo, hi := shardRange(s, sh)
		w := 0.0
		for i := lo; i < hi; i++ {
			w += s.Model.Cost(s.Run(i).Point)
		}
		p.Shards = append(p.Shards, ShardPlan{Shard: sh, Lo: lo, Hi: hi, Events: w})
	}
	return p
}
