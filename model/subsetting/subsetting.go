// Package subsetting is the subsetting model (seed 002 §9): C clients each connect to a subset of k of B backends,
// and a run reports how evenly the connections fall on the backends. No requests, no clock: a backend's load is its
// connection count. (When each client spreads its requests evenly over its subset, a backend's request load is its
// count divided by k, the same for every client, so every ratio of the counts to their mean is also the request
// load's. Aperture weights the two edge backends of each client's arc fractionally, so there the two differ: the
// load_* columns report the request load for every scheme.)
//
// # Schemes
//
//   - random: each client draws an independent uniform k-subset (a partial Fisher–Yates shuffle of k steps on a
//     per-run backend array).
//
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
//   - aperture: Finagle's deterministic aperture (Finagle 24.2.0, finagle-core
//     com.twitter.finagle.loadbalancer.aperture: DeterministicAperture, ProcessCoordinate, Ring; written anew from
//     their description). Clients and backends share one unit ring: backend j owns [j/B, (j+1)/B), client i sits at
//     (i/C + φ) mod 1 (ProcessCoordinate.FromInstanceId with instance id i of C), and with logical aperture a it
//     covers the arc [its coordinate, + N/C), N = ⌈a·C/B⌉ (dApertureWidth: a whole number of client units, so that
//     the C arcs cover the ring exactly N times; N·B/C ≥ a backends' worth). Its connections are the backends its arc
//     overlaps; it sends its requests in proportion to the overlap (Ring.weight: the edge backends fractionally).
//     The rotation φ (Finagle's peerOffset/Int.MaxValue, "a deterministic hash of a shared notion of process
//     identifier") is drawn per run: (r + ½)/(B·C) with r uniform on [0, B·C), which gives every combinatorial
//     arrangement of arcs and backends its probability under a uniform φ and never puts an arc end on a backend
//     boundary (see analytic/aperture.go), and keeps the arithmetic exact in integers (units of 1/(2·B·C)).
//
//   - random_aperture: Finagle's RandomAperture: each client takes the a backends with the smallest per-process
//     random tokens, i.e. an independent uniform a-subset, and spreads its requests evenly over them (P2C within
//     the aperture, taken at its mean): the random scheme with k = a.
//
// The aperture size a: subset_size when set (for aperture: Finagle's minApertureOverride); else, when client_load
// is set, the LoadBand controller's steady state (analytic.LoadBandAperture): with L requests in flight per client,
// the smallest a ≥ m with L/a < high_load, a = ⌊L/high_load⌋ + 1 clamped to [m, B], where m = min_aperture;
// else m (clamped to B). What the static model takes from the dynamic controller is only that fixed point: the
// state LoadBand reaches from its initial aperture (its minimum) when the exponential average of the in-flight
// count rises to a constant L, its only moves then being widenings. Not modelled: the fluctuating in-flight
// count, the smoothing window, transients, and the hysteresis (every a with low_load < L/a < high_load is a fixed
// point, so a load falling from above can leave a up to ⌈L/low_load⌉ − 1). When that a is no fixed point (L/a ≤
// low_load with a above m, possible only for L ≤ low·high/(high − low): 2/3 for [0.5, 2], 3.94 for [0.875, 1.125])
// the controller alternates between a − 1 and a; Check warns and the model takes a.
//
// Deviations from Finagle 24.2.0: (1) its deterministic aperture does not resize with load at all (LoadBand is a
// no-op when d-aperture is active; the logical aperture is minApertureOverride when ≥ 1, else
// min(minDeterministicAperture = 12, B)); here client_load may size the aperture scheme too, so that the two
// aperture schemes can be compared at one offered load; with neither subset_size nor client_load set, aperture
// uses Finagle's min(12, B) (min_aperture's null for aperture). (2) Balancers.aperture's defaults in 24.2.0 are
// lowLoad 0.875 and highLoad 1.125 (smoothWin 15 s); low_load and high_load default here to 0.5 and 2, the load
// band of the original aperture balancer that issue 16 names (set 0.875 and 1.125 for 24.2.0's). (3) Ring
// arithmetic is exact (Finagle's is in doubles, with a 1e-6 tolerance at the arc's end). (4) Requests go to each
// backend in exact proportion to its weight; Finagle's WeightedP2CPick only approximates that. (5) The rotation is
// never on the lattice of backend boundaries; a deployment whose peerOffset puts it there (e.g. 0, with B dividing
// C) has arcs ending exactly on boundaries and one connection fewer per backend: N + C/B − 1.
//
// # Theory
//
// Random (and random_aperture, with k = a): a backend's count is exactly Binomial(C, k/B); deterministic: exactly
// Binomial(R, ⌊B/k⌋·k/B) + Bernoulli(q·k/B) with R full rounds and q clients in the last partial round, which is the
// exact two-point law R, R+1 when k divides B. From the marginal law: the expected variance ratio and idle backends are exact, the least and
// most connected backends follow analytic.SubsetExtremes (independent backends: an approximation) except when k
// divides B under deterministic subsetting, where they are exact on every run. Aperture: exact on every run, every
// count is N + ⌊C/B⌋ or N + ⌈C/B⌉ (capped at C; C mod B backends at the higher), and every backend's request load
// is exactly C/B (analytic.ApertureCounts). See analytic/subset.go and analytic/aperture.go.
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
	aperture
	randomAperture
)

// isAperture reports whether s sizes its subset as an aperture (subset_size optional, the controller's parameters
// apply).
func (s scheme) isAperture() bool { return s == aperture || s == randomAperture }

// Parameter indices into Params() and a Point.
const (
	pClients = iota
	pBackends
	pSubsetSize
	pScheme
	pClientLoad
	pLowLoad
	pHighLoad
	pMinAperture
)

// Bounds on a point.
const (
	// MaxBackends bounds B (and so C·k/B ≤ C).
	MaxBackends = 1 << 24
	// MaxClients bounds C.
	MaxClients = 1 << 24
	// MaxWork bounds C·k + rounds·B, the run's steps: about ten seconds at a few ns a step.
	MaxWork = 1e9
	// MaxClientLoad bounds client_load (requests in flight per client).
	MaxClientLoad = 1e12
	// MinDeterministicAperture is Finagle 24.2.0's minDeterministicAperture flag default: the logical aperture of
	// deterministic aperture when nothing else sets it, and min_aperture's null for the aperture scheme.
	MinDeterministicAperture = 12
	// DefaultLowLoad and DefaultHighLoad are the load band [0.5, 2] of low_load's and high_load's null (issue 16;
	// the original Finagle aperture balancer's defaults; Finagle 24.2.0's Balancers.aperture uses 0.875, 1.125).
	DefaultLowLoad, DefaultHighLoad = 0.5, 2.0
)

var params = []model.Param{
	pClients:     {Name: "clients", Kind: model.Int, Doc: "C, the number of clients, 1 ≤ C ≤ 2^24"},
	pBackends:    {Name: "backends", Kind: model.Int, Doc: "B, the number of backends, 1 ≤ B ≤ 2^24"},
	pSubsetSize:  {Name: "subset_size", Kind: model.Int, Unit: "backends", Optional: true, Doc: "k, the backends each client connects to (a count, the SRE book's subset_size, not a fraction), 1 ≤ k ≤ B; required for random and deterministic; for aperture and random_aperture the logical aperture a (Finagle's minApertureOverride), null: set by client_load or min_aperture"},
	pScheme:      {Name: "scheme", Kind: model.Enum, Choices: []string{"random", "deterministic", "aperture", "random_aperture"}, Default: model.IntValue(int64(random)), Doc: "random: each client an independent uniform k-subset; deterministic: the SRE book ch. 20 algorithm (rounds of ⌊B/k⌋ clients share one shuffle of the backends, seeded from the run seed and the round number, and take its disjoint slices); aperture: Finagle 24.2.0's deterministic aperture (clients' arcs of ⌈a·C/B⌉/C of a ring shared with the backends, requests in proportion to overlap); random_aperture: Finagle's random aperture (a uniform a-subset per client)"},
	pClientLoad:  {Name: "client_load", Kind: model.Float, Unit: "requests", Optional: true, Doc: "L, requests in flight per client (aperture schemes, with subset_size null): the aperture is the LoadBand controller's steady state ⌊L/high_load⌋ + 1 clamped to [min_aperture, B]; 0 ≤ L ≤ 1e12; null: no load (the aperture is min_aperture)"},
	pLowLoad:     {Name: "low_load", Kind: model.Float, Unit: "requests", Optional: true, Doc: "Finagle's lowLoad: the controller narrows while L/a ≤ low_load (aperture schemes with client_load); 0 < low_load < high_load; null: 0.5"},
	pHighLoad:    {Name: "high_load", Kind: model.Float, Unit: "requests", Optional: true, Doc: "Finagle's highLoad: the controller widens while L/a ≥ high_load (aperture schemes with client_load); finite, > low_load; null: 2"},
	pMinAperture: {Name: "min_aperture", Kind: model.Int, Unit: "backends", Optional: true, Doc: "m, the least aperture (aperture schemes with subset_size null), ≥ 1, clamped to B; null: Finagle 24.2.0's defaults, 12 (minDeterministicAperture) for aperture and 1 (Balancers.aperture's minAperture) for random_aperture"},
}

// The metric columns, in the order of metrics.
var (
	colFraction     = schema.Column{Name: "subset_fraction", Type: schema.Float64, Doc: "k/B, the share of the backends each client connects to"}
	colMean         = schema.Column{Name: "connections_mean", Type: schema.Float64, Unit: "connections", Doc: "μ, the mean connections per backend: C·k/B for random, deterministic and random_aperture (exact: every client holds k); for aperture the measured total over B, exactly N + C/B (N = ⌈a·C/B⌉) unless capped at C"}
	colMin          = schema.Column{Name: "min_connections", Type: schema.Int64, Unit: "connections", Doc: "the least connected backend's count"}
	colMax          = schema.Column{Name: "max_connections", Type: schema.Int64, Unit: "connections", Doc: "the most connected backend's count"}
	colMinRatio     = schema.Column{Name: "min_ratio", Type: schema.Float64, Doc: "min_connections/μ (seed 002 §9's 'least loaded backend, % of the mean', as a fraction)"}
	colMaxRatio     = schema.Column{Name: "max_ratio", Type: schema.Float64, Doc: "max_connections/μ"}
	colStdRatio     = schema.Column{Name: "std_ratio", Type: schema.Float64, Doc: "standard deviation of the counts over the B backends (population, about μ) divided by μ"}
	colVarRatio     = schema.Column{Name: "var_ratio", Type: schema.Float64, Doc: "std_ratio², the counts' population variance over μ²"}
	colIdle         = schema.Column{Name: "idle_backends", Type: schema.Int64, Unit: "backends", Doc: "backends no client connects to"}
	colThMinRatio   = schema.Column{Name: "theory_min_ratio", Type: schema.Float64, Doc: "E[min_connections]/μ: analytic.SubsetExtremes (independent backends, an approximation); exact for deterministic with k dividing B and for aperture (analytic.ApertureCounts)"}
	colThMaxRatio   = schema.Column{Name: "theory_max_ratio", Type: schema.Float64, Doc: "E[max_connections]/μ, as theory_min_ratio"}
	colThMinLo      = schema.Column{Name: "theory_min_ratio_lo", Type: schema.Float64, Doc: "the 2.5% quantile of min_connections/μ under the law of theory_min_ratio"}
	colThMinHi      = schema.Column{Name: "theory_min_ratio_hi", Type: schema.Float64, Doc: "the 97.5% quantile of min_connections/μ under the law of theory_min_ratio"}
	colThMaxLo      = schema.Column{Name: "theory_max_ratio_lo", Type: schema.Float64, Doc: "the 2.5% quantile of max_connections/μ under the law of theory_max_ratio"}
	colThMaxHi      = schema.Column{Name: "theory_max_ratio_hi", Type: schema.Float64, Doc: "the 97.5% quantile of max_connections/μ under the law of theory_max_ratio"}
	colThVarRatio   = schema.Column{Name: "theory_var_ratio", Type: schema.Float64, Doc: "E[var_ratio], exact: Var(one backend's count)/μ² (random: (1 − k/B)/(C·k/B))"}
	colThIdle       = schema.Column{Name: "theory_idle_backends", Type: schema.Float64, Unit: "backends", Doc: "E[idle_backends], exact: B·P(a backend's count = 0) (random: B(1 − k/B)^C)"}
	colTheorySource = schema.Column{Name: "theory_source", Type: schema.String, Doc: "the law behind the theory columns"}
	colAperture     = schema.Column{Name: "aperture", Type: schema.Int64, Unit: "backends", Doc: "a, the logical subset size: subset_size, or the LoadBand controller's steady state, or min_aperture (aperture schemes); k otherwise"}
	colWidth        = schema.Column{Name: "aperture_width", Type: schema.Float64, Unit: "backends", Doc: "the backends' worth of ring each client covers: N·B/C ≥ a for aperture (N = ⌈a·C/B⌉, capped at C), k otherwise"}
	colPerClient    = schema.Column{Name: "connections_per_client", Type: schema.Float64, Unit: "connections", Doc: "the mean connections per client (total/C; Finagle's physical_aperture averaged over clients): k, or for aperture the backends each arc overlaps, N·B/C + 1 on average unless capped"}
	colLoadMin      = schema.Column{Name: "load_min_ratio", Type: schema.Float64, Doc: "the least request load on a backend over the mean C/B, each client sending one unit spread over its subset in proportion to its weights (1/k each; for aperture its arc's overlap with the backend): connections/μ for the subset schemes, exactly 1 for aperture"}
	colLoadMax      = schema.Column{Name: "load_max_ratio", Type: schema.Float64, Doc: "the most request load on a backend over the mean, as load_min_ratio"}
	colLoadStd      = schema.Column{Name: "load_std_ratio", Type: schema.Float64, Doc: "the standard deviation of the request loads over the B backends (population) over the mean, as load_min_ratio"}
)

// metrics is the metric schema: Run fills the measured columns, Theory the theory ones.
var metrics = schema.New(colFraction, colMean, colMin, colMax, colMinRatio, colMaxRatio, colStdRatio, colVarRatio, colIdle,
	colThMinRatio, colThMaxRatio, colThMinLo, colThMinHi, colThMaxLo, colThMaxHi, colThVarRatio, colThIdle, colTheorySource,
	colAperture, colWidth, colPerClient, colLoadMin, colLoadMax, colLoadStd)

// Theory sources, as theory_source names them.
const (
	SourceRandom        = "Binomial(C, k/B) per backend (exact); min/max: independent-backends approximation"
	SourceExact         = "deterministic, k divides B: every count is R or R+1 (exact on every run)"
	SourceDeterministic = "Binomial(R, floor(B/k)k/B) + Bernoulli(qk/B) per backend (exact); min/max: independent-backends approximation"
	SourceAperture      = "deterministic aperture: every count is N+floor(C/B) or N+ceil(C/B), capped at C, C mod B at the higher (exact on every run)"
)

// Name implements model.Model.
func (Model) Name() string { return "subsetting" }

// Doc implements model.Model.
func (Model) Doc() string {
	return "C clients each connect to k of B backends: random subsets vs the SRE book's deterministic subsetting (ch. 20) vs Finagle 24.2.0's deterministic and random aperture; connections and request load per backend (seed 002 §9)"
}

// Params implements model.Model.
func (Model) Params() []model.Param { return params }

// Metrics implements model.Model.
func (Model) Metrics() []schema.Column { return metrics.Columns() }

// config is a point's typed configuration. k is the subset size, for the aperture schemes the resolved logical
// aperture a.
type config struct {
	c, b, k int
	scheme  scheme
}

// configOf resolves a checked point (Check has accepted it).
func configOf(p model.Point) config {
	cfg := config{c: int(p[pClients].I), b: int(p[pBackends].I), k: int(p[pSubsetSize].I), scheme: scheme(p[pScheme].I)}
	if cfg.scheme.isAperture() && !p[pSubsetSize].Valid {
		cfg.k, _ = apertureOf(p)
	}
	return cfg
}

// apertureOf is an aperture scheme's logical aperture when subset_size is null, and whether the LoadBand controller
// holds it (analytic.LoadBandAperture): its steady state at client_load, or min_aperture when client_load is null
// (clamped to B), with the nulls of the parameters' docs.
func apertureOf(p model.Point) (a int, stable bool) {
	m, b := 1, int(p[pBackends].I)
	if scheme(p[pScheme].I) == aperture {
		m = MinDeterministicAperture
	}
	if p[pMinAperture].Valid {
		m = int(min(p[pMinAperture].I, int64(b)))
	}
	m = min(m, b)
	if !p[pClientLoad].Valid {
		return m, true
	}
	low, high := band(p)
	return analytic.LoadBandAperture(p[pClientLoad].F, low, high, m, b)
}

// band is the point's load band [low_load, high_load], with their nulls 0.5 and 2.
func band(p model.Point) (low, high float64) {
	low, high = DefaultLowLoad, DefaultHighLoad
	if p[pLowLoad].Valid {
		low = p[pLowLoad].F
	}
	if p[pHighLoad].Valid {
		high = p[pHighLoad].F
	}
	return low, high
}

// units is deterministic aperture's N = ⌈a·C/B⌉ client units per arc, capped at C (0 for the other schemes).
func (c config) units() int {
	if c.scheme != aperture {
		return 0
	}
	return analytic.ApertureUnits(c.c, c.b, c.k)
}

// rounds is the number of deterministic rounds, ⌈C/⌊B/k⌋⌉ (0 for random).
func (c config) rounds() int {
	if c.scheme != deterministic {
		return 0
	}
	s := c.b / c.k
	return (c.c + s - 1) / s
}

// work is the run's steps: C·k subset slots plus, for deterministic, one B-step shuffle per round; for aperture,
// the N·B + C backend overlaps of the C arcs (N·B/C + 1 per arc) plus B to sum the loads.
func (c config) work() float64 {
	if c.scheme == aperture {
		return float64(c.units())*float64(c.b) + float64(c.c) + float64(c.b)
	}
	return float64(c.c)*float64(c.k) + float64(c.rounds())*float64(c.b)
}

// Check implements model.Model.
func (Model) Check(p model.Point, _ model.CheckOptions) ([]string, error) {
	c, b, k := p[pClients].I, p[pBackends].I, p[pSubsetSize].I
	s := scheme(p[pScheme].I)
	switch {
	case c < 1 || c > MaxClients:
		return nil, model.Issue{Param: "clients", Message: fmt.Sprintf("%d: need 1 ≤ clients ≤ %d", c, MaxClients)}
	case b < 1 || b > MaxBackends:
		return nil, model.Issue{Param: "backends", Message: fmt.Sprintf("%d: need 1 ≤ backends ≤ %d", b, MaxBackends)}
	case !p[pSubsetSize].Valid && !s.isAperture():
		return nil, model.Issue{Param: "subset_size", Message: "subset_size is required for the random and deterministic schemes (the backends each client connects to)"}
	case p[pSubsetSize].Valid && (k < 1 || k > b):
		return nil, model.Issue{Param: "subset_size", Message: fmt.Sprintf("%d: need 1 ≤ subset_size ≤ backends = %d", k, b)}
	}
	if err := checkAperture(p, s); err != nil {
		return nil, err
	}
	var warnings []string
	if s.isAperture() && !p[pSubsetSize].Valid {
		if a, stable := apertureOf(p); !stable {
			warnings = append(warnings, fmt.Sprintf("client_load %v: the LoadBand controller has no fixed point (it alternates between apertures %d and %d); the model takes %d", p[pClientLoad].F, a-1, a, a))
		}
	}
	if w := configOf(p).work(); w > MaxWork {
		return nil, model.Issue{Param: "clients", Message: fmt.Sprintf("%.3g steps (clients·subset_size + rounds·backends): at most %.0g", w, float64(MaxWork))}
	}
	return warnings, nil
}

// checkAperture checks the aperture parameters: set only for the aperture schemes, the controller's only with
// subset_size null, in range. Finagle requires minAperture > 0 (ApertureLeastLoaded) and lowLoad < highLoad
// (LoadBand's docs).
func checkAperture(p model.Point, s scheme) error {
	names := [...]string{pClientLoad: "client_load", pLowLoad: "low_load", pHighLoad: "high_load", pMinAperture: "min_aperture"}
	for i := pClientLoad; i <= pMinAperture; i++ {
		switch {
		case p[i].Valid && !s.isAperture():
			return model.Issue{Param: names[i], Message: "applies only to the aperture and random_aperture schemes"}
		case p[i].Valid && p[pSubsetSize].Valid:
			return model.Issue{Param: names[i], Message: "sizes the aperture only when subset_size is null"}
		}
	}
	if l := p[pClientLoad]; l.Valid && !(l.F >= 0 && l.F <= MaxClientLoad) {
		return model.Issue{Param: "client_load", Message: fmt.Sprintf("%v: need 0 ≤ client_load ≤ %g", l.F, MaxClientLoad)}
	}
	lo, hi := band(p)
	if !(lo > 0) || math.IsInf(lo, 0) {
		return model.Issue{Param: "low_load", Message: fmt.Sprintf("%v: need 0 < low_load < high_load", lo)}
	}
	if !(hi > lo) || math.IsInf(hi, 0) {
		return model.Issue{Param: "high_load", Message: fmt.Sprintf("%v: need low_load = %v < high_load, finite", hi, lo)}
	}
	if m := p[pMinAperture]; m.Valid && m.I < 1 {
		return model.Issue{Param: "min_aperture", Message: fmt.Sprintf("%d: need min_aperture ≥ 1", m.I)}
	}
	return nil
}

// Cost implements model.Model: one event per subset slot and per shuffled backend.
func (Model) Cost(p model.Point) float64 { return configOf(p).work() }

// EventsPerSecond implements model.Rater: 2·10^8 steps per CPU-second (2.8·10^8 measured on the project's machine,
// 2026-12-02, over the subsetting experiment's points; experiments/sweep TestPlanRates -calibrate).
func (Model) EventsPerSecond(model.Point) float64 { return 2e8 }

// Stream identifiers (see sim.NewRand). Fixed forever: changing one changes every result.
const (
	streamRandom = 0x7375627365747320 // "subsets ": the random scheme's draws
	streamRound  = 0x726f756e64000000 // "round\0\0\0" + the round number: a deterministic round's shuffle
	streamRotate = 0x726f746174696f6e // "rotation": the aperture ring's rotation φ
)

// ctxSteps is how many steps pass between two checks of the run's context (2^16, well under a millisecond).
const ctxSteps = 1 << 16

// Run implements model.Model: the measured columns; the theory columns are Theory's.
func (Model) Run(ctx context.Context, p model.Point, seed model.Seed) (schema.Row, error) {
	cfg := configOf(p)
	count, load, err := connect(ctx, cfg, seed.Run)
	if err != nil {
		return nil, err
	}
	mu := float64(cfg.c) * float64(cfg.k) / float64(cfg.b)
	width := float64(cfg.k)
	total := 0
	for _, x := range count {
		total += int(x)
	}
	if cfg.scheme == aperture {
		mu = float64(total) / float64(cfg.b)
		width = float64(cfg.units()) * float64(cfg.b) / float64(cfg.c)
	}
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
	// Request load over its mean C/B, as integers over one exact denominator: count·B/(C·k) for the subset
	// schemes, and for aperture load/(2·N·C) (load in units of 1/(2·B·C) of ring, summing to 2·N·C·B).
	num := func(j int) int64 { return int64(count[j]) * int64(cfg.b) }
	den := float64(int64(cfg.c) * int64(cfg.k))
	if load != nil {
		num = func(j int) int64 { return load[j] }
		den = float64(2 * int64(cfg.units()) * int64(cfg.c))
	}
	lmin, lmax, lss := math.Inf(1), math.Inf(-1), 0.0
	for j := range cfg.b {
		r := float64(num(j)) / den
		lmin, lmax = min(lmin, r), max(lmax, r)
		lss += (r - 1) * (r - 1)
	}
	row := metrics.NewRow()
	row.Set(colAperture, schema.Int(int64(cfg.k)))
	row.Set(colWidth, schema.Float(width))
	row.Set(colPerClient, schema.Float(float64(total)/float64(cfg.c)))
	row.Set(colLoadMin, schema.Float(lmin))
	row.Set(colLoadMax, schema.Float(lmax))
	row.Set(colLoadStd, schema.Float(math.Sqrt(lss/float64(cfg.b))))
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

// connect returns each backend's connection count for one run of cfg seeded with run and, for aperture, each
// backend's request load: the summed overlap of the client arcs with it in units of 1/(2·B·C) of the ring (nil for
// the other schemes, whose load is count/k).
func connect(ctx context.Context, cfg config, run uint64) ([]int32, []int64, error) {
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
	case random, randomAperture:
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
				return nil, nil, err
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
				return nil, nil, err
			}
		}
	case aperture:
		load, err := arcs(cfg, sim.NewRand(run, streamRotate).IntN(cfg.b*cfg.c), count, perm, tick)
		return count, load, err
	default:
		panic(fmt.Sprintf("subsetting: invalid scheme %d", cfg.scheme))
	}
	return count, nil, ctx.Err()
}

// arcs lays deterministic aperture's C arcs on the ring rotated by φ = (r + ½)/(B·C), 0 ≤ r < B·C, adds each
// arc's overlapped backends to count (a backend once per client, even when an arc covering almost the whole ring
// meets it at both ends) and returns each backend's summed overlap. Positions are integers in units of 1/(2·B·C)
// of the ring: backend j is [2jC, 2(j+1)C), client i's arc starts at 2(iB + r) + 1 (odd, so never on a backend
// boundary, which is even) and is 2NB long. seen is scratch of length B (overwritten).
func arcs(cfg config, r int, count, seen []int32, tick func(int) error) ([]int64, error) {
	b, c := int64(cfg.b), int64(cfg.c)
	ring, unit, length := 2*b*c, 2*c, 2*int64(cfg.units())*b
	load := make([]int64, cfg.b)
	for i := range seen {
		seen[i] = -1
	}
	for i := range int32(cfg.c) {
		start := (2*(int64(i)*b+int64(r)) + 1) % ring
		end := start + length
		steps := 0
		for j := start / unit; j*unit < end; j++ {
			ov := min(end, (j+1)*unit) - max(start, j*unit)
			be := j % b
			load[be] += ov
			if seen[be] != i {
				seen[be] = i
				count[be]++
			}
			steps++
		}
		if err := tick(steps); err != nil {
			return nil, err
		}
	}
	return load, nil
}

// Theory implements model.Theorist: the marginal law of a backend's count (exact) and the law of the least and most
// connected backends (analytic.SubsetExtremes, or exact for deterministic subsetting when k divides B and for
// aperture). It depends on the point alone.
func (Model) Theory(p model.Point) model.Theory {
	cfg := configOf(p)
	if cfg.scheme == aperture {
		return apertureTheory(cfg)
	}
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

// apertureTheory is deterministic aperture's exact theory (analytic.ApertureCounts): the counts are lo on B − h
// backends and hi on h, so μ = (lo·(B − h) + hi·h)/B, the population variance is h/B·(1 − h/B)·(hi − lo)², and no
// backend is idle.
func apertureTheory(cfg config) model.Theory {
	lo, hi, h := analytic.ApertureCounts(cfg.c, cfg.b, cfg.k)
	fb := float64(cfg.b)
	mu := (float64(lo)*(fb-float64(h)) + float64(hi)*float64(h)) / fb
	q := float64(h) / fb
	d := float64(hi - lo)
	vr := q * (1 - q) * d * d / (mu * mu)
	return func(row schema.Row) {
		b := metrics.Edit(row)
		b.Set(colThMinRatio, schema.Float(float64(lo)/mu))
		b.Set(colThMaxRatio, schema.Float(float64(hi)/mu))
		b.Set(colThMinLo, schema.Float(float64(lo)/mu))
		b.Set(colThMinHi, schema.Float(float64(lo)/mu))
		b.Set(colThMaxLo, schema.Float(float64(hi)/mu))
		b.Set(colThMaxHi, schema.Float(float64(hi)/mu))
		b.Set(colThVarRatio, schema.Float(vr))
		b.Set(colThIdle, schema.Float(0))
		b.Set(colTheorySource, schema.Str(SourceAperture))
	}
}
