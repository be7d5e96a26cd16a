// Package bins is the balls-into-bins model: m balls placed one at a time into n bins, each ball probing d bins and
// joining the least loaded (Azar, Broder, Karlin & Upfal, "Balanced Allocations", STOC 1994 / SIAM J. Comput. 29(1),
// 1999), with Vöcking's always-go-left variant ("How Asymmetry Helps Load Balancing", FOCS 1999 / JACM 50(4), 2003),
// noisy probes and seed 001's one-probe-plus-threshold rule. The default semantics are seed 001's assign(bins,
// probes): probes with replacement, a probe replaces the candidate only when strictly less loaded, so the first probe
// wins ties.
//
// Bins are stored in the smallest unsigned type that holds their loads (uint8, widened to uint16 and uint32 only if a
// bin would overflow), so n = 10^8 bins take 100 MB.
package bins

import (
	"context"
	"fmt"
	"math"
	"sync"

	"lbsweep/analytic"
	"lbsweep/model"
	"lbsweep/model/sim"
	"lbsweep/results/schema"
)

type scheme int64

// Schemes, as the `scheme` parameter's choices (index = value).
const (
	greedy scheme = iota
	goLeft
	threshold
)

type tie int64

const (
	tieFirst tie = iota
	tieRandom
)

// maxDistinct bounds d for sampling without replacement (by rejection); larger d would rather be full scans.
const maxDistinct = 64

// Model is the balls-into-bins model. Its zero value is ready to use and allocates every run's bins afresh; New's
// keeps the 8-bit bin arrays of finished runs for later ones: a fresh 10^6-bin array costs a page fault per 4 KiB
// page during the placement, a reused one only a clear (the README's performance section has the cost). Either is safe for
// concurrent runs; copies of a Model share its spare arrays.
type Model struct {
	spare *sync.Pool // of *[]uint8; nil: none kept
}

// New returns a Model that reuses the 8-bit bin arrays of its finished runs (the pool drops them at garbage
// collection, so they never pin memory for long).
func New() Model { return Model{spare: new(sync.Pool)} }

const (
	pN = iota
	pM
	pBallsPerBin
	pD
	pReplacement
	pTie
	pScheme
	pNoise
	pThreshold
)

var params = []model.Param{
	pN:           {Name: "n", Kind: model.Int, Doc: "number of bins, 1 ≤ n ≤ 2^31−1"},
	pM:           {Name: "m", Kind: model.Int, Optional: true, Doc: "number of balls ≥ 0; give m or balls_per_bin, not both"},
	pBallsPerBin: {Name: "balls_per_bin", Kind: model.Float, Optional: true, Doc: "m = round(balls_per_bin · n); give m or balls_per_bin, not both"},
	pD:           {Name: "d", Kind: model.Int, Default: model.IntValue(2), Doc: "probes per ball, 1 ≤ d ≤ 64 (≤ n without replacement; go_left: ≤ n); threshold: 2"},
	pReplacement: {Name: "replacement", Kind: model.Bool, Default: model.BoolValue(true), Doc: "greedy: probes drawn with replacement (seed 001); false: d distinct bins"},
	pTie:         {Name: "tie", Kind: model.Enum, Choices: []string{"first", "random"}, Default: model.IntValue(int64(tieFirst)), Doc: "first: the first least-loaded probe wins (go_left: the leftmost group); random: uniform among the tied probes"},
	pScheme:      {Name: "scheme", Kind: model.Enum, Choices: []string{"greedy", "go_left", "threshold"}, Default: model.IntValue(int64(greedy)), Doc: "greedy: least loaded of d uniform probes; go_left: d groups of n/d bins, probe j in group j (Vöcking); threshold: one probe, kept if it reads ≤ threshold, else a second probe taken unread (seed 001)"},
	pNoise:       {Name: "noise", Kind: model.Float, Default: model.FloatValue(0), Unit: "balls", Doc: "standard deviation σ ≥ 0 of the Gaussian error N(0, σ²) added to each probe's reading"},
	pThreshold:   {Name: "threshold", Kind: model.Int, Optional: true, Unit: "balls", Doc: "scheme threshold: accept the first probe when its reading is ≤ this load; null for other schemes"},
}

// The metric columns, in the order of metrics.
var (
	colBalls      = schema.Column{Name: "balls", Type: schema.Int64, Doc: "m, the balls placed (from m or balls_per_bin)"}
	colMaxLoad    = schema.Column{Name: "max_load", Type: schema.Int64, Unit: "balls", Doc: "the largest bin's load"}
	colGap        = schema.Column{Name: "gap", Type: schema.Float64, Unit: "balls", Doc: "max_load − m/n"}
	colMinLoad    = schema.Column{Name: "min_load", Type: schema.Int64, Unit: "balls", Doc: "the smallest bin's load"}
	colLoadCounts = schema.Column{Name: "load_counts", Type: schema.Float64List, Doc: "element k: the number of bins with load exactly k, k = 0 .. max_load"}
	colLoadTail   = schema.Column{Name: "load_tail", Type: schema.Float64List, Doc: "element k: the fraction of bins with load ≥ k+1, k = 0 .. max_load−1",
		Label: "s(i): fraction of bins with load >= i", IndexLabel: "i (balls in the bin)"}
	colTheoryMaxLoad     = schema.Column{Name: "theory_max_load", Type: schema.Float64, Unit: "balls", Doc: "d = 1: median of the maximum load, exact (multinomial law) for m ≤ 10^6, else the median of the maximum of n independent Binomial(m, 1/n) loads (an approximation, at most the exact median; theory_source says which); greedy/go_left d ≥ 2: the largest i with n·s_i ≥ 1/2 on the fluid limit; null with noise or threshold"}
	colTheoryLoadTail    = schema.Column{Name: "theory_load_tail", Type: schema.Float64List, Doc: "the theory's fraction of bins with load ≥ k+1, same length as load_tail; null where theory_max_load is"}
	colAsymptoticMaxLoad = schema.Column{Name: "asymptotic_max_load", Type: schema.Float64, Unit: "balls", Doc: "leading term only: ln n/ln ln n (d = 1), ln ln n/ln d (greedy), ln ln n/(d ln φ_d) (go_left); null for n < 3, noise or threshold"}
	colTheorySource      = schema.Column{Name: "theory_source", Type: schema.String, Doc: "the formula behind the theory columns; null where none applies"}
)

// metrics is the metric schema: Run fills the measured columns, Theory the theory ones.
var metrics = schema.New(colBalls, colMaxLoad, colGap, colMinLoad, colLoadCounts, colLoadTail, colTheoryMaxLoad, colTheoryLoadTail, colAsymptoticMaxLoad, colTheorySource)

// Theory sources, as theory_source names them.
const (
	SourceBinomial = "Binomial(m, 1/n) loads (exact law; max: independent-bins approximation)"
	// SourceMultinomial is d = 1 with m ≤ analytic.MultinomialMaxExactBalls: the max load's median from the exact
	// multinomial law.
	SourceMultinomial = "Binomial(m, 1/n) loads (exact law; max: exact multinomial median)"
	SourceFluid       = "fluid limit ds_i/dt = s_{i-1}^d - s_i^d (exact as n -> infinity)"
	SourceGoLeft      = "always-go-left fluid limit (Voecking; exact as n -> infinity)"
)

// Name implements model.Model.
func (Model) Name() string { return "balls_into_bins" }

// Doc implements model.Model.
func (Model) Doc() string {
	return "m balls into n bins, d probes each, least loaded wins (Azar et al. 1994; Voecking's go_left; seed 001's threshold)"
}

// Params implements model.Model.
func (Model) Params() []model.Param { return params }

// Metrics implements model.Model.
func (Model) Metrics() []schema.Column { return metrics.Columns() }

// balls resolves m from m or balls_per_bin.
func balls(p model.Point) int64 {
	if p[pM].Valid {
		return p[pM].I
	}
	return int64(math.Round(p[pBallsPerBin].F * float64(p[pN].I)))
}

// ballsF is balls in float64, computed without the int64 conversion, so that Check sees balls_per_bin·n beyond
// 2^63 (balls_per_bin = 1e17 with n = 100) as the number it is rather than a wrapped −2^63.
func ballsF(p model.Point) float64 {
	if p[pM].Valid {
		return float64(p[pM].I)
	}
	return math.Round(p[pBallsPerBin].F * float64(p[pN].I))
}

// maxBalls bounds m: at ~10 ns a ball, 10^11 balls are about a quarter of an hour.
const maxBalls = 1e11

// Check implements model.Model.
func (Model) Check(p model.Point, _ model.CheckOptions) ([]string, error) {
	n, d := p[pN].I, p[pD].I
	sch := scheme(p[pScheme].I)
	switch {
	case n < 1 || n > math.MaxInt32:
		return nil, model.Issue{Param: "n", Message: fmt.Sprintf("%d bins: need 1 ≤ n ≤ %d", n, math.MaxInt32)}
	case p[pM].Valid == p[pBallsPerBin].Valid:
		return nil, model.Issue{Param: "m", Message: "give exactly one of m and balls_per_bin"}
	case p[pM].Valid && p[pM].I < 0:
		return nil, model.Issue{Param: "m", Message: fmt.Sprintf("%d: need m ≥ 0", p[pM].I)}
	case p[pBallsPerBin].Valid && !(p[pBallsPerBin].F >= 0):
		return nil, model.Issue{Param: "balls_per_bin", Message: fmt.Sprintf("%v: need balls_per_bin ≥ 0", p[pBallsPerBin].F)}
	case p[pBallsPerBin].Valid && !(ballsF(p) <= maxBalls):
		return nil, model.Issue{Param: "balls_per_bin", Message: fmt.Sprintf("%v: balls_per_bin·n = %.3g balls, more than %.0g", p[pBallsPerBin].F, ballsF(p), float64(maxBalls))}
	case ballsF(p) > maxBalls:
		return nil, model.Issue{Param: "m", Message: fmt.Sprintf("%d balls: at most %.0g", balls(p), float64(maxBalls))}
	case d < 1 || d > maxDistinct:
		return nil, model.Issue{Param: "d", Message: fmt.Sprintf("%d: need 1 ≤ d ≤ %d", d, maxDistinct)}
	case sch != threshold && (sch == goLeft || !p[pReplacement].B) && d > n:
		return nil, model.Issue{Param: "d", Message: fmt.Sprintf("%d: distinct probes (or go_left groups) need d ≤ n = %d", d, n)}
	case !(p[pNoise].F >= 0) || math.IsInf(p[pNoise].F, 0):
		return nil, model.Issue{Param: "noise", Message: fmt.Sprintf("%v: need a finite σ ≥ 0", p[pNoise].F)}
	case sch == threshold && !p[pThreshold].Valid:
		return nil, model.Issue{Param: "threshold", Message: "scheme threshold needs threshold = the load up to which the first probe is kept"}
	case sch != threshold && p[pThreshold].Valid:
		return nil, model.Issue{Param: "threshold", Message: "only scheme = \"threshold\" takes a threshold"}
	case sch == threshold && d != 2:
		return nil, model.Issue{Param: "d", Message: "must stay 2 with scheme threshold (it probes at most twice)"}
	}
	return nil, nil
}

// Cost implements model.Model: one event per ball, plus a pass over the bins.
func (Model) Cost(p model.Point) float64 { return ballsF(p) + float64(p[pN].I) }

// exactMedianSecondsPerBall is the CPU time of analytic.MultinomialMaxMedian per ball at m = n: 0.26–0.40 ms at 10^4
// and 3.3–4.6 ms at 10^6 (BenchmarkMultinomialMaxMedian, 2026-12-03, its large squares by FFT), roughly linear in m.
const exactMedianSecondsPerBall = 4e-9

// TheoryCost implements model.TheoryCoster: the exact multinomial median of d = 1's max load, computed once per point
// for m ≤ analytic.MultinomialMaxExactBalls, costs about as much as a run there (4 ms at 10^6 balls against a 4 ms
// run), in Cost units at the point's rate.
func (m Model) TheoryCost(p model.Point) float64 {
	pl := placerOf(p)
	if pl.d != 1 || pl.noise != 0 || pl.scheme == threshold || balls(p) > analytic.MultinomialMaxExactBalls {
		return 0
	}
	return exactMedianSecondsPerBall * ballsF(p) * m.EventsPerSecond(p)
}

// EventsPerSecond implements model.Rater: balls per CPU-second, set by where the bins live and by the probes a
// ball reads, each a likely cache miss once the bins outgrow the caches. Measured on the project's machine
// (2026-12-02, experiments/sweep TestPlanRates -calibrate): greedy d = 1 at 2.2–2.9·10^8 balls/s up to n = 10^6 (2.5·10^8 assumed),
// 6.9·10^7 at 10^7 and 4.7·10^7 at 10^8; d probes divide that by about d^0.8 (d = 3 at 10^8: 1.7·10^7), go_left
// by another 1.25. Noisy probes draw a normal variate per probe: 2.5·10^7 balls/s for d = 1 and the threshold rule,
// 1.0·10^7 for d = 2 (d^1.3), on the noisy-probes experiment's n = 10^5.
func (Model) EventsPerSecond(p model.Point) float64 {
	base := 2.5e8
	switch n := p[pN].I; {
	case n >= 50_000_000:
		base = 4.7e7
	case n >= 5_000_000:
		base = 7e7
	}
	d := p[pD].I
	if p[pNoise].F != 0 { // a normal variate per probe read
		if scheme(p[pScheme].I) == threshold {
			return 2.5e7
		}
		return 2.5e7 / math.Pow(float64(max(d, 1)), 1.3)
	}
	if scheme(p[pScheme].I) == threshold {
		d = 2
	}
	r := base / math.Pow(float64(max(d, 1)), 0.8)
	if scheme(p[pScheme].I) == goLeft {
		r /= 1.25
	}
	return r
}

// Bounds implements model.Model: the bins are one byte each, widened to 2 and then 4 bytes (the narrower copy alive
// while the wider is filled) once a bin passes 255 and 65535 balls; the maximum load is taken as the mean m/n plus
// ten of its standard deviations plus 10, above any load a run reaches.
func (Model) Bounds(p model.Point) model.Bounds {
	n := float64(p[pN].I)
	mean := ballsF(p) / max(n, 1)
	top := mean + 10*math.Sqrt(mean) + 10
	per, what := 1.0, "1 B"
	switch {
	case top > 65535:
		per, what = 2+4, "2 B + 4 B (widened twice)"
	case top > 255:
		per, what = 1+2, "1 B + 2 B (widened once)"
	}
	by := "n"
	if p[pBallsPerBin].Valid {
		by = "balls_per_bin"
	}
	return model.Bounds{Bytes: n * per, MemoryBy: "n", MemoryWhat: fmt.Sprintf("%d bins × %s", p[pN].I, what), WorkBy: by}
}

// Run implements model.Model: the measured columns; the theory columns are Theory's. It checks ctx every ctxBalls
// balls.
func (mo Model) Run(ctx context.Context, p model.Point, seed model.Seed) (schema.Row, error) {
	n, m := int(p[pN].I), balls(p)
	pl := placerOf(p)
	r := sim.NewStreams(seed).Dispatch
	var count []float64
	var lo, hi int
	b8 := mo.bins8(n)
	if mo.spare != nil {
		defer mo.spare.Put(&b8)
	}
	done, err := placeCtx(ctx, pl, b8, r, 0, m)
	if err != nil {
		return nil, err
	}
	if done == m {
		count, lo, hi = histogram(b8)
	} else {
		b16 := widen[uint8, uint16](b8)
		b8 = nil
		if done, err = placeCtx(ctx, pl, b16, r, done, m); err != nil {
			return nil, err
		}
		if done == m {
			count, lo, hi = histogram(b16)
		} else {
			b32 := widen[uint16, uint32](b16)
			b16 = nil
			if done, err = placeCtx(ctx, pl, b32, r, done, m); err != nil {
				return nil, err
			} else if done != m {
				return nil, fmt.Errorf("bins: a bin passed 2^32−1 balls")
			}
			count, lo, hi = histogram(b32)
		}
	}
	tail := make([]float64, hi)
	above := float64(n)
	for k := range hi { // tail[k] = fraction with load ≥ k+1
		above -= count[k]
		tail[k] = above / float64(n)
	}
	row := metrics.NewRow()
	row.Set(colBalls, schema.Int(m))
	row.Set(colMaxLoad, schema.Int(int64(hi)))
	row.Set(colGap, schema.Float(float64(hi)-float64(m)/float64(n)))
	row.Set(colMinLoad, schema.Int(int64(lo)))
	row.Set(colLoadCounts, schema.List(count))
	row.Set(colLoadTail, schema.List(tail))
	return row.Row(), nil
}

// placerOf is the placement rule of point p.
func placerOf(p model.Point) *placer {
	n := int(p[pN].I)
	pl := &placer{
		n: n, d: int(p[pD].I), replacement: p[pReplacement].B, tieRandom: tie(p[pTie].I) == tieRandom,
		scheme: scheme(p[pScheme].I), noise: p[pNoise].F, threshold: p[pThreshold].I,
	}
	if pl.scheme == goLeft {
		pl.groups = make([]int, pl.d+1)
		for j := range pl.groups {
			pl.groups[j] = j * n / pl.d
		}
	}
	return pl
}

// ctxBalls is how many balls placeCtx places between two checks of its context: 2^16, a few hundred µs.
const ctxBalls = 1 << 16

// placeCtx is place in chunks of ctxBalls balls, with ctx checked before each: it returns place's result, or the
// balls placed so far and ctx.Err() once ctx is done. The chunks draw exactly what one call of place would (each ball's
// draws depend only on the stream and the bins), so rows do not change.
func placeCtx[T load](ctx context.Context, pl *placer, bins []T, r *sim.Rand, from, to int64) (int64, error) {
	for from < to {
		if err := ctx.Err(); err != nil {
			return from, err
		}
		end := min(from+ctxBalls, to)
		if done := place(pl, bins, r, from, end); done < end {
			return done, nil // a bin would overflow: the caller widens
		}
		from = end
	}
	return to, nil
}

// bins8 returns n empty 8-bit bins, reused from an earlier run when one of that size is spare.
func (mo Model) bins8(n int) []uint8 {
	if mo.spare == nil {
		return make([]uint8, n)
	}
	if p, ok := mo.spare.Get().(*[]uint8); ok && cap(*p) >= n {
		b := (*p)[:n]
		clear(b)
		return b
	}
	return make([]uint8, n)
}

// Theory implements model.Theorist: the exact Binomial law for d = 1 (and the exact multinomial median of the max
// load for m ≤ analytic.MultinomialMaxExactBalls, about 4 ms at the bound; the independent-bins approximation
// above), the fluid limits for d ≥ 2; none (nil) with noise or the threshold rule. The columns depend on the run's max load k = len(load_tail): the theory's tail has
// length k, and the fluid max-load rule reads the fluid tail to depth k+8. What depends on the point alone is
// computed here, once: asymptotic_max_load, the d = 1 max load, and the fluid tail (at depth 64, longer on demand:
// see fluidCache). BinomialTail is computed per run at length k, as it always was: it sums its upper levels down from
// the last one asked for, so its elements are not independent of k.
func (Model) Theory(p model.Point) model.Theory {
	pl := placerOf(p)
	if pl.noise != 0 || pl.scheme == threshold {
		return nil
	}
	m, n := float64(balls(p)), float64(p[pN].I)
	asym := schema.Null()
	if a := analytic.AsymptoticMaxLoad(n, pl.d, pl.scheme == goLeft); !math.IsNaN(a) {
		asym = schema.Float(a)
	}
	set := func(b *schema.Builder, maxLoad int, tail []float64, source string) {
		b.Set(colTheoryMaxLoad, schema.Float(float64(maxLoad)))
		b.Set(colTheoryLoadTail, schema.List(tail))
		b.Set(colAsymptoticMaxLoad, asym)
		b.Set(colTheorySource, schema.Str(source))
	}
	if pl.d == 1 {
		maxLoad, source := analytic.BinomialMaxLoad(m, n), SourceBinomial
		if m <= analytic.MultinomialMaxExactBalls {
			maxLoad, source = analytic.MultinomialMaxMedian(int(m), int(n)), SourceMultinomial
		}
		return func(row schema.Row) {
			b := metrics.Edit(row)
			set(b, maxLoad, analytic.BinomialTail(m, n, len(b.Get(colLoadTail).L)), source)
		}
	}
	t := m / n
	fluid, source := analytic.BinsTail, SourceFluid
	if pl.scheme == goLeft {
		fluid, source = analytic.GoLeftTail, SourceGoLeft
	}
	c := &fluidCache{at: func(k int) []float64 { return fluid(t, pl.d, k) }}
	return func(row schema.Row) {
		b := metrics.Edit(row)
		k := len(b.Get(colLoadTail).L)
		deep := c.tail(k + 8) // far enough for the max-load rule (n·s_i ≥ 1/2), then cut to the simulated length
		set(b, analytic.FluidMaxLoad(deep, n), deep[:k:k], source)
	}
}

// fluidCache is one grid point's fluid tail, shared by its replications: computed at fluidDepth, and again at twice
// the depth (or more) only when a run needs it deeper. Cutting it is exact: analytic.BinsTail and GoLeftTail copy the
// limit's levels into a slice of the length asked for and floor each element alone, so element i does not depend on
// the length. Safe for concurrent use.
type fluidCache struct {
	at   func(k int) []float64
	mu   sync.Mutex
	full []float64 // the deepest tail computed so far; replaced, never modified
}

// fluidDepth is the depth a point's fluid tail is first computed to: deeper than any max load seen (k + 8 ≤ 64 for
// k ≤ 56).
const fluidDepth = 64

// tail returns the first k levels of the fluid tail.
func (c *fluidCache) tail(k int) []float64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.full == nil || k > len(c.full) {
		c.full = c.at(max(k, 2*len(c.full), fluidDepth))
	}
	return c.full[:k:k]
}
