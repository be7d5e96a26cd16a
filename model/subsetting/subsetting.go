// Package subsetting is the subsetting model (seed 002 §9): C clients each connect to a subset of k of B backends,
// and a run reports how evenly the connections fall on the backends. No requests, no clock: a backend's load is its
// connection count. (When each client spreads its requests evenly over its subset, a backend's request load is its
// count divided by k, the same for every client, so every ratio to the mean below is also the request load's.)
//
// # Schemes
//
//   - random: each client draws an independent uniform k-subset (a partial Fisher–Yates shuffle of k steps on a
//     per-run backend array).
//   - deterministic: the SRE book's algorithm (Beyer, Jones, Petoff & Murphy, Site Reliability Engineering, O'Reilly
//     2016, ch. 20, "A Subset Selection Algorithm: Deterministic Subsetting"), written anew. subset_count =
//     ⌊B/k⌋ (the book's Python 2 integer division); client c (0-based) is in round ⌊c/subset_count⌋ and takes the
//     slice [j·k, (j+1)·k) of its round's shuffled backend list, j = c mod subset_count. Deviations from the book's
//     code: a round's shuffle is a Fisher–Yates shuffle driven by an xoshiro256** stream derived from the run seed
//     and the round number (sim.NewRand), not Python's Mersenne Twister seeded by the round number alone, so the
//     subsets differ from the book's and from one replication to the next; and every round shuffles the backend list
//     in its original order (the book's shuffle works in place on the caller's list, which is read here as given in
//     the same order on each call, as "each round uses the same shuffled list" needs). When k does not divide B, the
//     B − ⌊B/k⌋·k backends at the end of each round's shuffle get no client of that round, so the counts are no
//     longer equal (analytic.DeterministicSubsetPMF has their law).
//
// Finagle's aperture is not modelled.
//
// # Theory
//
// Random: a backend's count is exactly Binomial(C, k/B); deterministic: exactly Binomial(R, ⌊B/k⌋·k/B) +
// Bernoulli(q·k/B) with R full rounds and q clients in the last partial round, which is the exact two-point law R,
// R+1 when k divides B. From the marginal law: the expected variance ratio and idle backends are exact, the least and
// most connected backends follow analytic.SubsetExtremes (independent backends: an approximation) except when k
// divides B under deterministic subsetting, where they are exact on every run. See analytic/subset.go.
package subsetting

import (
	"context"
	"fmt"
	"math"

	"lbsweep/analytic"
	"lbsweep/model"
	"lbsweep/model/sim"
	"lbsweep/results/schema"
)

// Model is the subsetting model; its zero value is ready to use.
type Model struct{}

type scheme int64

// Schemes, as the `scheme` parameter's choices (index = value).
const (
	random scheme = iota
	deterministic
)

// Parameter indices into Params() and a Point.
const (
	pClients = iota
	pBackends
	pSubsetSize
	pScheme
)

// Bounds on a point.
const (
	// MaxBackends bounds B (and so C·k/B ≤ C).
	MaxBackends = 1 << 24
	// MaxClients bounds C.
	MaxClients = 1 << 24
	// MaxWork bounds C·k + rounds·B, the run's steps: about ten seconds at a few ns a step.
	MaxWork = 1e9
)

var params = []model.Param{
	pClients:    {Name: "clients", Kind: model.Int, Doc: "C, the number of clients, 1 ≤ C ≤ 2^24"},
	pBackends:   {Name: "backends", Kind: model.Int, Doc: "B, the number of backends, 1 ≤ B ≤ 2^24"},
	pSubsetSize: {Name: "subset_size", Kind: model.Int, Unit: "backends", Doc: "k, the backends each client connects to (a count, the SRE book's subset_size, not a fraction), 1 ≤ k ≤ B"},
	pScheme:     {Name: "scheme", Kind: model.Enum, Choices: []string{"random", "deterministic"}, Default: model.IntValue(int64(random)), Doc: "random: each client an independent uniform k-subset; deterministic: the SRE book ch. 20 algorithm (rounds of ⌊B/k⌋ clients share one shuffle of the backends, seeded from the run seed and the round number, and take its disjoint slices)"},
}

// The metric columns, in the order of metrics.
var (
	colFraction     = schema.Column{Name: "subset_fraction", Type: schema.Float64, Doc: "k/B, the share of the backends each client connects to"}
	colMean         = schema.Column{Name: "connections_mean", Type: schema.Float64, Unit: "connections", Doc: "μ = C·k/B, the mean connections per backend (exact: every client holds k)"}
	colMin          = schema.Column{Name: "min_connections", Type: schema.Int64, Unit: "connections", Doc: "the least connected backend's count"}
	colMax          = schema.Column{Name: "max_connections", Type: schema.Int64, Unit: "connections", Doc: "the most connected backend's count"}
	colMinRatio     = schema.Column{Name: "min_ratio", Type: schema.Float64, Doc: "min_connections/μ (seed 002 §9's 'least loaded backend, % of the mean', as a fraction)"}
	colMaxRatio     = schema.Column{Name: "max_ratio", Type: schema.Float64, Doc: "max_connections/μ"}
	colStdRatio     = schema.Column{Name: "std_ratio", Type: schema.Float64, Doc: "standard deviation of the counts over the B backends (population, about μ) divided by μ"}
	colVarRatio     = schema.Column{Name: "var_ratio", Type: schema.Float64, Doc: "std_ratio², the counts' population variance over μ²"}
	colIdle         = schema.Column{Name: "idle_backends", Type: schema.Int64, Unit: "backends", Doc: "backends no client connects to"}
	colThMinRatio   = schema.Column{Name: "theory_min_ratio", Type: schema.Float64, Doc: "E[min_connections]/μ: analytic.SubsetExtremes (independent backends, an approximation); exact for deterministic with k dividing B"}
	colThMaxRatio   = schema.Column{Name: "theory_max_ratio", Type: schema.Float64, Doc: "E[max_connections]/μ, as theory_min_ratio"}
	colThMinLo      = schema.Column{Name: "theory_min_ratio_lo", Type: schema.Float64, Doc: "the 2.5% quantile of min_connections/μ under the law of theory_min_ratio"}
	colThMinHi      = schema.Column{Name: "theory_min_ratio_hi", Type: schema.Float64, Doc: "the 97.5% quantile of min_connections/μ under the law of theory_min_ratio"}
	colThMaxLo      = schema.Column{Name: "theory_max_ratio_lo", Type: schema.Float64, Doc: "the 2.5% quantile of max_connections/μ under the law of theory_max_ratio"}
	colThMaxHi      = schema.Column{Name: "theory_max_ratio_hi", Type: schema.Float64, Doc: "the 97.5% quantile of max_connections/μ under the law of theory_max_ratio"}
	colThVarRatio   = schema.Column{Name: "theory_var_ratio", Type: schema.Float64, Doc: "E[var_ratio], exact: Var(one backend's count)/μ² (random: (1 − k/B)/(C·k/B))"}
	colThIdle       = schema.Column{Name: "theory_idle_backends", Type: schema.Float64, Unit: "backends", Doc: "E[idle_backends], exact: B·P(a backend's count = 0) (random: B(1 − k/B)^C)"}
	colTheorySource = schema.Column{Name: "theory_source", Type: schema.String, Doc: "the law behind the theory columns"}
)

// metrics is the metric schema: Run fills the measured columns, Theory the theory ones.
var metrics = schema.New(colFraction, colMean, colMin, colMax, colMinRatio, colMaxRatio, colStdRatio, colVarRatio, colIdle,
	colThMinRatio, colThMaxRatio, colThMinLo, colThMinHi, colThMaxLo, colThMaxHi, colThVarRatio, colThIdle, colTheorySource)

// Theory sources, as theory_source names them.
const (
	SourceRandom        = "Binomial(C, k/B) per backend (exact); min/max: independent-backends approximation"
	SourceExact         = "deterministic, k divides B: every count is R or R+1 (exact on every run)"
	SourceDeterministic = "Binomial(R, floor(B/k)k/B) + Bernoulli(qk/B) per backend (exact); min/max: independent-backends approximation"
)

// Name implements model.Model.
func (Model) Name() string { return "subsetting" }

// Doc implements model.Model.
func (Model) Doc() string {
	return "C clients each connect to k of B backends: random subsets vs the SRE book's deterministic subsetting (ch. 20); connections per backend (seed 002 §9)"
}

// Params implements model.Model.
func (Model) Params() []model.Param { return params }

// Metrics implements model.Model.
func (Model) Metrics() []schema.Column { return metrics.Columns() }

// config is a point's typed configuration.
type config struct {
	c, b, k int
	scheme  scheme
}

func configOf(p model.Point) config {
	return config{c: int(p[pClients].I), b: int(p[pBackends].I), k: int(p[pSubsetSize].I), scheme: scheme(p[pScheme].I)}
}

// rounds is the number of deterministic rounds, ⌈C/⌊B/k⌋⌉ (0 for random).
func (c config) rounds() int {
	if c.scheme != deterministic {
		return 0
	}
	s := c.b / c.k
	return (c.c + s - 1) / s
}

// work is the run's steps: C·k subset slots plus, for deterministic, one B-step shuffle per round.
func (c config) work() float64 { return float64(c.c)*float64(c.k) + float64(c.rounds())*float64(c.b) }

// Check implements model.Model.
func (Model) Check(p model.Point, _ model.CheckOptions) ([]string, error) {
	c, b, k := p[pClients].I, p[pBackends].I, p[pSubsetSize].I
	switch {
	case c < 1 || c > MaxClients:
		return nil, model.Issue{Param: "clients", Message: fmt.Sprintf("%d: need 1 ≤ clients ≤ %d", c, MaxClients)}
	case b < 1 || b > MaxBackends:
		return nil, model.Issue{Param: "backends", Message: fmt.Sprintf("%d: need 1 ≤ backends ≤ %d", b, MaxBackends)}
	case k < 1 || k > b:
		return nil, model.Issue{Param: "subset_size", Message: fmt.Sprintf("%d: need 1 ≤ subset_size ≤ backends = %d", k, b)}
	}
	if w := configOf(p).work(); w > MaxWork {
		return nil, model.Issue{Param: "clients", Message: fmt.Sprintf("%.3g steps (clients·subset_size + rounds·backends): at most %.0g", w, float64(MaxWork))}
	}
	return nil, nil
}

// Cost implements model.Model: one event per subset slot and per shuffled backend.
func (Model) Cost(p model.Point) float64 { return configOf(p).work() }

// Stream identifiers (see sim.NewRand). Fixed forever: changing one changes every result.
const (
	streamRandom = 0x7375627365747320 // "subsets ": the random scheme's draws
	streamRound  = 0x726f756e64000000 // "round\0\0\0" + the round number: a deterministic round's shuffle
)

// ctxSteps is how many steps pass between two checks of the run's context (2^16, well under a millisecond).
const ctxSteps = 1 << 16

// Run implements model.Model: the measured columns; the theory columns are Theory's.
func (Model) Run(ctx context.Context, p model.Point, seed model.Seed) (schema.Row, error) {
	cfg := configOf(p)
	count, err := connect(ctx, cfg, seed.Run)
	if err != nil {
		return nil, err
	}
	mu := float64(cfg.c) * float64(cfg.k) / float64(cfg.b)
	lo, hi, idle := count[0], count[0], 0
	ss := 0.0
	for _, x := range count {
		lo, hi = min(lo, x), max(hi, x)
		if x == 0 {
			idle++
		}
		d := float64(x) - mu
		ss += d * d
	}
	v := ss / float64(cfg.b) / (mu * mu)
	row := metrics.NewRow()
	row.Set(colFraction, schema.Float(float64(cfg.k)/float64(cfg.b)))
	row.Set(colMean, schema.Float(mu))
	row.Set(colMin, schema.Int(int64(lo)))
	row.Set(colMax, schema.Int(int64(hi)))
	row.Set(colMinRatio, schema.Float(float64(lo)/mu))
	row.Set(colMaxRatio, schema.Float(float64(hi)/mu))
	row.Set(colStdRatio, schema.Float(math.Sqrt(v)))
	row.Set(colVarRatio, schema.Float(v))
	row.Set(colIdle, schema.Int(int64(idle)))
	return row.Row(), nil
}

// connect returns each backend's connection count for one run of cfg seeded with run.
func connect(ctx context.Context, cfg config, run uint64) ([]int32, error) {
	count := make([]int32, cfg.b)
	perm := make([]int32, cfg.b)
	for i := range perm {
		perm[i] = int32(i)
	}
	steps := 0
	tick := func(n int) error {
		if steps += n; steps >= ctxSteps {
			steps = 0
			return ctx.Err()
		}
		return nil
	}
	switch cfg.scheme {
	case random:
		// A partial Fisher–Yates shuffle of k steps leaves a uniform k-subset in perm[:k] whatever perm's order,
		// so perm is not reset between clients.
		r := sim.NewRand(run, streamRandom)
		for range cfg.c {
			for i := range cfg.k {
				j := i + r.IntN(cfg.b-i)
				perm[i], perm[j] = perm[j], perm[i]
				count[perm[i]]++
			}
			if err := tick(cfg.k); err != nil {
				return nil, err
			}
		}
	case deterministic:
		s := cfg.b / cfg.k // the book's subset_count
		for round := range cfg.rounds() {
			for i := range perm {
				perm[i] = int32(i)
			}
			r := sim.NewRand(run, streamRound+uint64(round))
			for i := cfg.b - 1; i > 0; i-- {
				j := r.IntN(i + 1)
				perm[i], perm[j] = perm[j], perm[i]
			}
			clients := min(s, cfg.c-round*s) // the last round may be partial
			for _, be := range perm[:clients*cfg.k] {
				count[be]++
			}
			if err := tick(cfg.b + clients*cfg.k); err != nil {
				return nil, err
			}
		}
	default:
		panic(fmt.Sprintf("subsetting: invalid scheme %d", cfg.scheme))
	}
	return count, ctx.Err()
}

// Theory implements model.Theorist: the marginal law of a backend's count (exact) and the law of the least and most
// connected backends (analytic.SubsetExtremes, or exact for deterministic subsetting when k divides B). It depends on
// the point alone.
func (Model) Theory(p model.Point) model.Theory {
	cfg := configOf(p)
	mu := float64(cfg.c) * float64(cfg.k) / float64(cfg.b)
	var pmf []float64
	source := SourceRandom
	if cfg.scheme == deterministic {
		pmf, source = analytic.DeterministicSubsetPMF(cfg.c, cfg.b, cfg.k), SourceDeterministic
	} else {
		pmf = analytic.RandomSubsetPMF(cfg.c, cfg.b, cfg.k)
	}
	vr, idle := analytic.SubsetVarRatio(pmf, mu), analytic.SubsetIdle(pmf, cfg.b)
	var minMean, maxMean float64
	var minLo, minHi, maxLo, maxHi int
	if lo, hi, exact := analytic.DeterministicSubsetRange(cfg.c, cfg.b, cfg.k); cfg.scheme == deterministic && exact {
		source = SourceExact
		minMean, maxMean = float64(lo), float64(hi)
		minLo, minHi, maxLo, maxHi = lo, lo, hi, hi
	} else {
		e := analytic.SubsetExtremes(pmf, cfg.b)
		minMean, maxMean = e.MinMean, e.MaxMean
		minLo, minHi = analytic.CDFQuantile(e.MinCDF, 0.025), analytic.CDFQuantile(e.MinCDF, 0.975)
		maxLo, maxHi = analytic.CDFQuantile(e.MaxCDF, 0.025), analytic.CDFQuantile(e.MaxCDF, 0.975)
	}
	return func(row schema.Row) {
		b := metrics.Edit(row)
		b.Set(colThMinRatio, schema.Float(minMean/mu))
		b.Set(colThMaxRatio, schema.Float(maxMean/mu))
		b.Set(colThMinLo, schema.Float(float64(minLo)/mu))
		b.Set(colThMinHi, schema.Float(float64(minHi)/mu))
		b.Set(colThMaxLo, schema.Float(float64(maxLo)/mu))
		b.Set(colThMaxHi, schema.Float(float64(maxHi)/mu))
		b.Set(colThVarRatio, schema.Float(vr))
		b.Set(colThIdle, schema.Float(idle))
		b.Set(colTheorySource, schema.Str(source))
	}
}
