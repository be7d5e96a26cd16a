// Package wrrseq is the wrr_sequence model: the pick sequence itself of a dispatch policy over n servers with static
// weights, with no clock and no queues (seed 002 §3, "平滑加权轮询": nginx's smooth weighted round robin against the
// expanded list). The servers stay idle: the policy sees an empty sim.Levels that never changes, and pick number t
// (0-based) happens at time now = t, every server eligible. So load-aware policies (jsq, least_request, peak_ewma) see n identical idle
// servers; the load-blind ones (smooth_wrr, wrr_expanded, round_robin, random) are exactly what they are in a
// queueing model.
//
// # Smoothness
//
// With integer weights w_i (the configured weights scaled by policy.IntegerWeights to the smallest integers with the
// same ratios, so [50, 30, 20] is 5:3:2) and W = Σ w_i, server i's ideal share of the first t picks is t·w_i/W. The
// run makes picks = cycles·W picks and reports seed 002's two measures of smoothness: the largest deviation
// max over t = 1..picks and i of |count_i(t) − t·w_i/W|, and the longest run of one server. Policies that ignore
// weights (random, round_robin, ...) are measured against the same weighted shares, so with unequal weights their
// deviation grows linearly with t; with equal weights random's grows like √t.
//
// The deviation is computed exactly, in O(1) per pick plus O(n) at the end, whatever n: between two picks of server i
// its deviation d_i(t) = count_i(t) − t·w_i/W only decreases (by w_i/W per pick), and a pick of i raises it by 1.
// So the largest d_i is reached at some prefix that ends with a pick of i, and the largest −d_i at the prefix just
// before a pick of i or at the last prefix. Each pick checks those two candidates for the server it picks, and the
// last prefix is checked for every server at the end. The arithmetic is in integers scaled by W (count·W − t·w_i,
// below 2^53 for picks ≤ 10^8 and W ≤ 2^24), with one division at the end, so 10/7 is the double nearest 10/7.
//
// # Theory
//
// The expanded list (wrr_expanded; and round_robin and smooth_wrr when all weights are equal, which give the same
// sequence as the expanded list of n ones) has a closed form. Server i's block of w_i consecutive picks starts after
// S_i = Σ_{j<i} w_j picks and is followed by R_i = W − S_i − w_i picks of the others; its deviation is largest at the
// end of its block, w_i·R_i/W, and at its start, −w_i·S_i/W, and the sequence repeats every W picks, so
//
//	max deviation = max_i w_i·max(S_i, R_i) / W,   longest run = max_i w_i (n ≥ 2; picks when n = 1).
//
// For 5:1:1 that is 10/7 and 5. For two servers w:1 it is w/(w+1): below 1 however bursty the list.
package wrrseq

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"

	"lbsweep/model"
	"lbsweep/model/policy"
	"lbsweep/model/sim"
	"lbsweep/results/schema"
)

// Model is the wrr_sequence model; its zero value is ready to use.
type Model struct{}

// Parameter indices into Params() and a Point.
const (
	pWeights = iota
	pCycles
	pPolicy // the policy arguments, policy.Params in order, follow
)

// Bounds on a point.
const (
	// MaxServers bounds n = len(weights).
	MaxServers = 100_000
	// MaxPicks bounds picks = cycles·W (about a second per 10^7 picks of an O(1) policy).
	MaxPicks = 100_000_000
	// MaxWork bounds picks × the policy's cost per pick (n for smooth_wrr, which scans every server): about four
	// minutes at 2.5 ns a server read.
	MaxWork = 1e11
	// SequenceCap is the most picks the sequence column shows.
	SequenceCap = 1000
)

var params = append([]model.Param{
	pWeights: {Name: "weights", Kind: model.List, Doc: "the servers' static weights in list order, e.g. [5, 1, 1]: each finite and > 0, with an integer ratio (scaled to the smallest integers with the same ratios: [0.5, 1] is 1:2, [50, 30, 20] is 5:3:2); n = the list's length, 1 ≤ n ≤ 100000"},
	pCycles:  {Name: "cycles", Kind: model.Int, Default: model.IntValue(1), Doc: "cycles of W picks, W = the sum of the integer weights (picks = cycles·W ≤ 10^8), ≥ 1"},
	pPolicy:  {Name: "policy", Kind: model.Enum, Choices: policy.Names(), Policy: true, Doc: "dispatch policy name (sweep -list); weighted policies get the integer weights, load-aware ones see idle servers"},
}, policy.Params...)

// The metric columns, in the order of metrics.
var (
	colSequence           = schema.Column{Name: "sequence", Type: schema.String, Doc: "the first min(picks, 1000) picks, space-separated: letters a, b, c, … for n ≤ 26 (5:1:1 smooth_wrr: \"a a b a c a a\"), 0-based server indices otherwise"}
	colPicks              = schema.Column{Name: "picks", Type: schema.Int64, Unit: "requests", Doc: "picks made: cycles·W"}
	colMaxDeviation       = schema.Column{Name: "max_deviation", Type: schema.Float64, Unit: "requests", Doc: "max over prefixes t = 1..picks and servers i of |count_i(t) − t·w_i/W| (exact; seed 002 §3's smoothness)"}
	colLongestRun         = schema.Column{Name: "longest_run", Type: schema.Int64, Unit: "requests", Doc: "the longest run of consecutive picks of one server"}
	colCounts             = schema.Column{Name: "counts", Type: schema.Float64List, Unit: "requests", Doc: "element i: picks of server i over the whole sequence"}
	colExactShares        = schema.Column{Name: "exact_shares", Type: schema.Bool, Doc: "every server i got exactly cycles·w_i picks (w_i: the integer weights)"}
	colTheoryMaxDeviation = schema.Column{Name: "theory_max_deviation", Type: schema.Float64, Unit: "requests", Doc: "the expanded list's max_i w_i·max(S_i, W − S_i − w_i)/W, S_i = Σ_{j<i} w_j: wrr_expanded, and round_robin and smooth_wrr with equal weights; null elsewhere"}
	colTheoryLongestRun   = schema.Column{Name: "theory_longest_run", Type: schema.Int64, Unit: "requests", Doc: "the expanded list's max_i w_i (picks when n = 1), where theory_max_deviation applies; null elsewhere"}
	colTheorySource       = schema.Column{Name: "theory_source", Type: schema.String, Doc: "the formula behind the theory columns; null where none applies"}
)

// metrics is the metric schema: Run fills the measured columns, Theory the theory ones.
var metrics = schema.New(colSequence, colPicks, colMaxDeviation, colLongestRun, colCounts, colExactShares, colTheoryMaxDeviation, colTheoryLongestRun, colTheorySource)

// SourceExpanded is the theory_source of the expanded list's closed form.
const SourceExpanded = "expanded list: max_i w_i max(S_i, W - S_i - w_i) / W (exact)"

// Name implements model.Model.
func (Model) Name() string { return "wrr_sequence" }

// Doc implements model.Model.
func (Model) Doc() string {
	return "the pick sequence of a dispatch policy over static weights, servers idle, no clock: max prefix deviation from the weighted shares, longest run (seed 002 §3)"
}

// Params implements model.Model.
func (Model) Params() []model.Param { return params }

// Metrics implements model.Model.
func (Model) Metrics() []schema.Column { return metrics.Columns() }

// setup is a checked point, expanded.
type setup struct {
	n      int
	ints   []int     // the integer weights
	total  int64     // W
	picks  int64     // cycles·W
	weight []float64 // the integer weights as the policy sees them; nil when all are equal
}

// setupOf validates the weights and cycles of p; the error is an Issue naming the parameter.
func setupOf(p model.Point) (setup, error) {
	w, cycles := p[pWeights].L, p[pCycles].I
	bad := func(param, format string, v ...any) error {
		return model.Issue{Param: param, Message: fmt.Sprintf(format, v...)}
	}
	switch {
	case len(w) < 1 || len(w) > MaxServers:
		return setup{}, bad("weights", "%d weights: need 1 to %d servers", len(w), MaxServers)
	case cycles < 1:
		return setup{}, bad("cycles", "%d: need cycles ≥ 1", cycles)
	}
	for i, x := range w {
		if !(x > 0) || math.IsInf(x, 0) {
			return setup{}, bad("weights", "element %d: weight %v, need a finite weight > 0", i+1, x)
		}
	}
	ints, err := policy.IntegerWeights(w)
	if err != nil {
		return setup{}, bad("weights", "%v", err)
	}
	s := setup{n: len(w), ints: ints}
	equal := true
	for _, x := range ints {
		s.total += int64(x)
		equal = equal && x == ints[0]
	}
	if cycles > MaxPicks/s.total {
		return setup{}, bad("cycles", "%d cycles of W = %d picks: more than %d picks", cycles, s.total, MaxPicks)
	}
	s.picks = cycles * s.total
	if !equal {
		s.weight = make([]float64, s.n)
		for i, x := range ints {
			s.weight[i] = float64(x)
		}
	}
	return s, nil
}

// policyOf returns point p's policy configuration and the servers as the policy knows them (s's weights).
func policyOf(p model.Point, s setup) (policy.Config, policy.Servers) {
	return policy.Registry[p[pPolicy].I].Configure(params, p), policy.Servers{N: s.n, Weight: s.weight}
}

// perPick is the policy's work per pick, in server reads (policy.Traits.Reads, at least 1: smooth_wrr and the
// scoring policies without d read every server).
func perPick(tr policy.Traits) float64 { return float64(max(tr.Reads, 1)) }

// Check implements model.Model: weights valid (see the parameter), 1 ≤ cycles, picks ≤ MaxPicks, work ≤ MaxWork, and
// the policy's arguments valid.
func (Model) Check(p model.Point, _ model.CheckOptions) ([]string, error) {
	s, err := setupOf(p)
	if err != nil {
		return nil, err
	}
	cfg, ps := policyOf(p, s)
	tr := cfg.Traits(ps)
	if work := float64(s.picks) * perPick(tr); work > MaxWork {
		param := "weights"
		if p[pCycles].I > 1 {
			param = "cycles"
		}
		reads := fmt.Sprintf("%d servers", tr.Reads)
		if tr.Reads >= s.n {
			reads = "every server"
		}
		return nil, model.Issue{Param: param, Message: fmt.Sprintf("%d picks over %d servers: %s reads %s per pick, %.3g reads in all (at most %.0g)", s.picks, s.n, policy.Registry[p[pPolicy].I].Name, reads, work, float64(MaxWork))}
	}
	// The Issue names "weights" when a weighted policy cannot use them, which is this model's parameter too.
	if err := cfg.Check(ps); err != nil {
		return nil, err
	}
	return nil, policy.CheckUnkeyed(tr, policy.Registry[p[pPolicy].I].Name)
}

// Cost implements model.Model: the policy's work over all picks, plus a pass over the servers.
func (Model) Cost(p model.Point) float64 {
	s, err := setupOf(p)
	if err != nil {
		return 0
	}
	cfg, ps := policyOf(p, s)
	return float64(s.picks)*perPick(cfg.Traits(ps)) + float64(s.n)
}

// EventsPerSecond implements model.Rater: 1.3·10^8 pick events per CPU-second (smooth WRR 1.1–1.2·10^8, the expanded
// list 6.8–8.1·10^7 measured on the project's machine while it was loaded, 2026-12-02, about 1.5× faster when it was
// quiet; experiments/sweep TestPlanRates -calibrate).
func (Model) EventsPerSecond(model.Point) float64 { return 1.3e8 }

// Run implements model.Model: the measured columns; the theory columns are Theory's.
func (Model) Run(ctx context.Context, p model.Point, seed model.Seed) (schema.Row, error) {
	s, err := setupOf(p)
	if err != nil {
		return nil, err
	}
	cfg, ps := policyOf(p, s)
	st, err := measure(ctx, cfg.New(ps), s, sim.NewLevels(s.n), sim.NewStreams(seed).Dispatch)
	if err != nil {
		return nil, err
	}

	counts := make([]float64, s.n)
	exact := true
	cycles := s.picks / s.total
	for i, c := range st.counts {
		counts[i] = float64(c)
		exact = exact && c == cycles*int64(s.ints[i])
	}
	row := metrics.NewRow()
	row.Set(colSequence, schema.Str(st.sequence))
	row.Set(colPicks, schema.Int(s.picks))
	row.Set(colMaxDeviation, schema.Float(float64(st.maxDev)/float64(s.total)))
	row.Set(colLongestRun, schema.Int(st.longestRun))
	row.Set(colCounts, schema.List(counts))
	row.Set(colExactShares, schema.Boolean(exact))
	return row.Row(), nil
}

// Theory implements model.Theorist: the expanded list's closed form where it applies (nil elsewhere).
func (Model) Theory(p model.Point) model.Theory {
	s, err := setupOf(p)
	if err != nil {
		return nil
	}
	// The expanded list's closed form: wrr_expanded's sequence, and the round-robin one (0, 1, …, n−1: the expanded
	// list of n ones) when the weights are equal.
	cfg, ps := policyOf(p, s)
	seq := cfg.Traits(ps).Sequence
	if seq == policy.ExpandedSequence || seq == policy.RoundRobinSequence && s.weight == nil {
		dev, run := ExpandedDeviation(s.ints)
		if s.n == 1 {
			run = s.picks
		}
		return func(row schema.Row) {
			b := metrics.Edit(row)
			b.Set(colTheoryMaxDeviation, schema.Float(dev))
			b.Set(colTheoryLongestRun, schema.Int(run))
			b.Set(colTheorySource, schema.Str(SourceExpanded))
		}
	}
	return nil
}

// stats are what measure finds in a sequence.
type stats struct {
	sequence   string
	counts     []int64
	maxDev     int64 // the max deviation times W
	longestRun int64
}

// measure makes s.picks picks of pol over idle servers l and measures them (see the package doc for the method). It
// returns ctx.Err() when ctx is done, checked every 2^16 picks.
func measure(ctx context.Context, pol policy.Policy, s setup, l *sim.Levels, r *sim.Rand) (stats, error) {
	st := stats{counts: make([]int64, s.n)}
	W := s.total
	w := make([]int64, s.n)
	for i, x := range s.ints {
		w[i] = int64(x)
	}
	var seq strings.Builder
	letters := s.n <= 26
	last, run := -1, int64(0)
	view := policy.View{Loads: l}
	for t := int64(1); t <= s.picks; t++ {
		if t&(1<<16-1) == 0 && ctx.Err() != nil {
			return stats{}, ctx.Err()
		}
		k := pol.Pick(view, policy.Request{Now: float64(t - 1)}, r)
		if k < 0 || k >= s.n {
			panic(fmt.Sprintf("wrrseq: policy picked server %d of %d", k, s.n))
		}
		// W·(ideal − count) of server k at prefix t−1, the end of its stretch without picks.
		st.maxDev = max(st.maxDev, (t-1)*w[k]-st.counts[k]*W)
		st.counts[k]++
		// W·(count − ideal) of server k at prefix t, just after its pick.
		st.maxDev = max(st.maxDev, st.counts[k]*W-t*w[k])
		if k == last {
			run++
		} else {
			last, run = k, 1
		}
		st.longestRun = max(st.longestRun, run)
		if t <= SequenceCap {
			if t > 1 {
				seq.WriteByte(' ')
			}
			if letters {
				seq.WriteByte(byte('a' + k))
			} else {
				seq.WriteString(strconv.Itoa(k))
			}
		}
	}
	for i, c := range st.counts { // the last prefix, for every server
		st.maxDev = max(st.maxDev, s.picks*w[i]-c*W)
	}
	st.sequence = seq.String()
	return st, nil
}

// ExpandedDeviation returns the expanded list's max deviation from the shares, max_i w_i·max(S_i, W − S_i − w_i)/W
// with S_i = Σ_{j<i} w_j, and its longest run max_i w_i, for positive integer weights (n ≥ 2 for the run: one server
// runs for the whole sequence). See the package doc for the derivation.
func ExpandedDeviation(w []int) (maxDeviation float64, longestRun int64) {
	var total int64
	for _, x := range w {
		total += int64(x)
	}
	var best, before int64
	for _, x := range w {
		wi := int64(x)
		best = max(best, wi*max(before, total-before-wi))
		longestRun = max(longestRun, wi)
		before += wi
	}
	return float64(best) / float64(total), longestRun
}
