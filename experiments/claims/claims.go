// Package claims evaluates an experiment's [[expect]] claims on its dataset and says how each fared: what a claim
// says (Expect, decoded from a spec by package experiments), the statistics it is judged by (Estimate, MeanCI: a
// Student-t confidence interval across replications; Diff: the difference of two selections, paired or Welch), the
// judgement (Evaluate, Verdict, Status, Outcome), and how a verdict reads (Format, in the styles of `sweep check`'s
// lines, REPORT.md's rows and plot's notes).
//
// # Verdicts
//
// A claim is reproduced, not reproduced, or inconclusive. It is not reproduced when our confidence interval excludes
// it; it is inconclusive when the interval is too wide to tell it from a meaningfully different claim: wider than its
// resolution (Resolution of the claimed value, for claims of a value) or straddling its bound (for claims of a side).
// Each claim is its own family: its verdict depends on its own rows only, so adding claims to a spec changes no other
// claim's verdict, and a claim with a quantifier over its points judges each point at alpha/K (Bonferroni, which for
// the claim's one verdict decides as Holm's step-down does: both reject some point exactly when the smallest p-value
// is below alpha/K).
//
// Row selection (results.Cond, Table.Where) stays in package results: it is table reading, shared with the figures
// and tables that select rows the same way, and it has no statistics in it.
//
// The package imports no model and no spec decoder, so a model's statistical tests can use MeanCI.
package claims

import (
	"fmt"
	"math"
	"strings"

	"lbsweep/results"
)

// Relation is what an [[expect]] claims about its metric.
type Relation uint8

// Relations, as specs write them (the key that selects each).
const (
	Approx      Relation = iota + 1 // approx = V, tol = T: the CI of the mean meets [V − T, V + T]
	WithinCI                        // theory = "column" [, allowance = A]: the CI meets [theory − A, theory + A]
	LessThan                        // less_than = { col = v, ... }: the CI of mean − other mean lies below 0; less_than = c: the CI lies below c
	GreaterThan                     // greater_than = { ... }: the CI of the difference lies above 0; greater_than = c: the CI lies above c
	Ratio                           // ratio = { where = { ... }, min = a, max = b }: the ratio's CI meets [a, b] (one bound: lies on its side)
	InLaw                           // in_law = V: V lies inside the central 1 − alpha of the runs' values (a single draw against our law)
)

// Quantifier says over what a claim holds.
type Quantifier uint8

// Quantifiers, as specs write them.
const (
	Pooled           Quantifier = iota // (no key) the mean over all the claim's rows
	EveryPoint                         // every = "point": at each grid point of the selection, at alpha/K for K points
	EveryReplication                   // every = "replication": in each run (one value: no CI), e.g. "max load 4 in every seed"
	SomePoint                          // some = "point": at one point at least
	SomeReplication                    // some = "replication": in one run at least
)

// Rules every claim obeys; package experiments refuses a spec that breaks one, with its file, line and key.
const (
	// Resolution is the smallest relative difference a claim of a value must resolve to be reproduced: a claim whose
	// CI half-width is Resolution·|V| or more (V the claimed value, the theory's, or a ratio's midpoint) is inconclusive,
	// since a value 10% away would pass too. A claimed value of 0 has no scale: it is conclusive only with no spread.
	Resolution = 0.1
	// MaxRelTol bounds a claimed value's own uncertainty: tol ≤ MaxRelTol·|approx| (approx = 0 needs tol = 0), and an
	// allowance above MaxRelTol·|theory| makes a theory claim inconclusive.
	MaxRelTol = 0.5
	// MaxRatioSpan bounds a two-sided ratio claim: max ≤ MaxRatioSpan·min (a factor of 2 either way of the midpoint).
	MaxRatioSpan = 4
	// MinAlpha and MaxAlpha bound a claim's alpha: below MinAlpha a CI is wide enough to pass nearly anything, above
	// MaxAlpha a correct model fails one claim in ten.
	MinAlpha, MaxAlpha = 0.001, 0.1
	// TheoryAlpha is the default alpha of a theory claim (an exactness check; other claims default to 0.05). The
	// committed specs hold 62 such checks of a simulator that should pass them all: at 0.05 each, three would fail by
	// chance; at TheoryAlpha the chance that any does is 1 − (1 − TheoryAlpha)^62. It is fixed, not divided by a
	// spec's count of theory claims (Bonferroni), so that padding a spec with true claims cannot rescue a false one.
	TheoryAlpha = 0.005
)

// MinLawRuns is the fewest runs an in_law claim is judged on at level alpha: ⌈2/alpha⌉ (40 at alpha = 0.05), so
// that the central interval [x₍ₖ₎, x₍ₙ₊₁₋ₖ₎], k = ⌊(n+1)·alpha/2⌋, has k ≥ 1 and misses a further draw with
// probability 2k/(n+1) ≤ alpha.
func MinLawRuns(alpha float64) int { return int(math.Ceil(2/alpha - 1e-9)) }

// Expect is one [[expect]] table: a claim of the experiment's source, as data (package experiments decodes and
// validates it; the README's "Claims" section is the spec syntax).
type Expect struct {
	Source   string         // where the claim comes from: seed file and section, or paper and table
	Where    []results.Cond // the rows the claim is about
	Metric   string         // a numeric metric column, or a list column with Level
	Level    int            // list columns: the 1-based element (queue_tail level i is s_i)
	Relation Relation
	Quant    Quantifier
	// Params are the dataset's parameter columns (package experiments sets them from the model): a point quantifier
	// on a two-selection claim pairs a point of the selection with the other's point that agrees on every parameter
	// the other selection does not name.
	Params []string
	Value  float64 // Approx: the claimed value; InLaw: the claimed single draw
	Tol    float64 // Approx: the claimed value's own uncertainty (its rounding, or its published CI), ≤ MaxRelTol·|Value|
	// ClaimedRuns (Approx, Ratio): the claimed value is itself a simulation estimate from this many independent runs of the
	// same setting. Our CI half-width h over N runs then widens to h·√(1 + N/ClaimedRuns), the CI of the difference of
	// two such estimates with our sample variance standing in for theirs. 0: the claimed value is exact up to Tol.
	ClaimedRuns int
	Theory      string         // WithinCI: the theory column (same Level for lists)
	Allowance   float64        // WithinCI: absolute slack beside the CI half-width (e.g. a finite-n allowance), finite, ≥ 0
	Other       []results.Cond // LessThan, GreaterThan, Ratio: replaces or adds to Where for the other selection
	// Min, Max (Ratio): the claimed interval; NaN for a bound not given (one-sided: ratio ≥ Min, or ratio ≤ Max).
	Min, Max float64
	// Bound (LessThan, GreaterThan with HasBound): a constant to compare the mean with instead of another selection
	// (less_than = 1): the mean's CI must lie on the claimed side.
	Bound    float64
	HasBound bool
	Alpha    float64 // confidence level 1 − Alpha for the CI, in [MinAlpha, MaxAlpha]; default 0.05
	// KnownFailure, when set, says why the source's claim does not reproduce here: the claim is still evaluated and
	// reported, but its failure is expected and does not fail `sweep check`; if it passes, that is reported instead.
	KnownFailure string
}

// Status is a claim's verdict on the data, before what its spec declares (Outcome) is taken into account.
type Status uint8

// Statuses.
const (
	Fail         Status = iota // the CI excludes the claim (or the claim could not be evaluated: see Reason)
	Pass                       // the CI meets the claim and resolves it
	Inconclusive               // the CI meets the claim but is too wide to tell it from a meaningfully different one
	Invalid                    // the claim could not be judged (no rows, nulls, overlapping selections): always fails `sweep check`, known failure or not
)

// Verdict is the outcome of one claim on a dataset.
type Verdict struct {
	Expect   Expect
	Measured Estimate // the claim's metric over its rows
	Target   string   // what it was compared with, as text
	Status   Status
	// Count, for a quantified claim: how many of its points or runs the relation holds in, "9 of 10 runs".
	Count  string
	Reason string // why it failed or is inconclusive ("" when it passed)
}

// OK reports whether the verdict does not fail `sweep check`: a pass, a failure the spec declares as known, or an
// inconclusive claim (counted apart).
func (v Verdict) OK() bool {
	switch v.Status {
	case Inconclusive:
		return true
	case Invalid:
		return false
	}
	return (v.Status == Pass) != (v.Expect.KnownFailure != "")
}

// Evaluate checks every claim of expects (a spec's, in its order) against the dataset t and returns one verdict per
// claim, in the same order. Each claim is judged on its own rows at its own alpha (see the package doc: a claim is
// its own family).
func Evaluate(expects []Expect, t *results.Table) []Verdict {
	out := make([]Verdict, len(expects))
	for i, e := range expects {
		out[i] = e.evaluate(t)
	}
	return out
}

// values returns the metric (element Level−1 for list columns; 0 past a list's end, since queue_tail stops at the
// longest queue seen) over the rows matching conds, skipping nulls, and how many rows matched.
func values(t *results.Table, conds []results.Cond, metric string, level int) (xs []float64, matched int) {
	rows := t.Where(conds)
	return valuesAt(t, rows, metric, level), len(rows)
}

func valuesAt(t *results.Table, rows []int, metric string, level int) []float64 {
	j := t.Col(metric)
	if j < 0 {
		return nil
	}
	var xs []float64
	for _, r := range rows {
		c := t.Rows[r][j]
		if !c.Valid {
			continue
		}
		switch t.Columns[j].Type {
		case results.Int64:
			xs = append(xs, float64(c.I))
		case results.Float64:
			if !math.IsNaN(c.F) {
				xs = append(xs, c.F)
			}
		case results.Bool: // the fraction of runs where it holds
			x := 0.0
			if c.B {
				x = 1
			}
			xs = append(xs, x)
		case results.Float64List:
			if level-1 < len(c.L) {
				xs = append(xs, c.L[level-1])
			} else {
				xs = append(xs, 0)
			}
		}
	}
	return xs
}

// Merge is the other selection of a two-selection claim: the conditions of over, and those of base on the columns
// over does not name (Expect.Other replaces or adds to Expect.Where).
func Merge(base, over []results.Cond) []results.Cond {
	out := append([]results.Cond(nil), over...)
	for _, c := range base {
		dup := false
		for _, o := range over {
			if o.Column == c.Column {
				dup = true
			}
		}
		if !dup {
			out = append(out, c)
		}
	}
	return out
}

// slack absorbs floating-point rounding in a comparison with v (|3 − 3.2| is 0.20000000000000018).
func slack(v float64) float64 { return 1e-9 * math.Max(1, math.Abs(v)) }

func condText(cs []results.Cond) string {
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = c.Column + "=" + c.Text
	}
	return strings.Join(parts, ", ")
}

// resolution is Resolution·|v|: the half-width a claim of the value v must resolve.
func resolution(v float64) float64 { return Resolution * math.Abs(v) }

// interval judges a claim that the quantity lies in [lo, hi] from its estimate mean ± h: Fail when the CI misses the
// interval, Inconclusive when it meets it but h ≥ res (res = 0, a claimed 0: when h > 0), Pass otherwise.
func interval(mean, h, lo, hi, res float64) (Status, string) {
	dist := 0.0
	switch {
	case mean < lo:
		dist = lo - mean
	case mean > hi:
		dist = mean - hi
	}
	switch {
	case dist > h+slack(math.Max(math.Abs(lo), math.Abs(hi))):
		return Fail, "measured value outside the claim"
	case h > 0 && h >= res:
		if res == 0 {
			return Inconclusive, fmt.Sprintf("CI half-width %.3g about a claimed 0: runs that differ cannot confirm an exact 0 (claim it in every run: every = \"replication\")", h)
		}
		return Inconclusive, fmt.Sprintf("CI half-width %.3g ≥ the resolution %.3g (%g%% of %.4g): a value that far away would pass too", h, res, 100*Resolution, res/Resolution)
	}
	return Pass, ""
}

// side judges a claim that the quantity lies below (or above) bound from its CI [lo, hi]: Pass when the CI lies on
// the claimed side (strictly, or reaching the bound when !strict), Fail when it lies wholly on the other, Inconclusive
// when it straddles the bound.
func side(lo, hi, bound float64, below, strict bool) (Status, string) {
	s := slack(bound)
	var pass, fail bool
	switch {
	case below && strict:
		pass, fail = hi < bound, lo >= bound
	case below:
		pass, fail = hi <= bound+s, lo > bound+s
	case strict:
		pass, fail = lo > bound, hi <= bound
	default:
		pass, fail = lo >= bound-s, hi < bound-s
	}
	switch {
	case pass:
		return Pass, ""
	case fail:
		return Fail, "measured value outside the claim"
	}
	return Inconclusive, fmt.Sprintf("the CI [%.4g, %.4g] contains the bound %.4g: more runs would tell", lo, hi, bound)
}

// value returns the metric of row r (Level's element of a list; 0 past its end) and whether it is set (not null, not NaN).
func value(t *results.Table, r int, metric string, level int) (float64, bool) {
	xs := valuesAt(t, []int{r}, metric, level)
	if len(xs) == 0 {
		return 0, false
	}
	return xs[0], true
}

// pairs matches each row of a with the row of b that has the same seed and replication (the same random numbers:
// common random numbers across policies) and returns the two metric columns over the matched pairs. paired is false
// unless every row of a and every row of b has exactly one partner.
func pairs(t *results.Table, a, b []int, metric string, level int) (xs, ys []float64, paired bool) {
	js, jr := t.Col("seed"), t.Col("replication")
	if js < 0 || jr < 0 || len(a) != len(b) || len(a) < 2 {
		return nil, nil, false
	}
	type key struct{ seed, rep int64 }
	at := make(map[key]int, len(b))
	for _, r := range b {
		k := key{t.Rows[r][js].I, t.Rows[r][jr].I}
		if _, dup := at[k]; dup {
			return nil, nil, false
		}
		at[k] = r
	}
	seen := make(map[key]bool, len(a))
	for _, r := range a {
		k := key{t.Rows[r][js].I, t.Rows[r][jr].I}
		o, ok := at[k]
		if !ok || seen[k] {
			return nil, nil, false
		}
		seen[k] = true
		x, okx := value(t, r, metric, level)
		y, oky := value(t, o, metric, level)
		if okx && oky {
			xs, ys = append(xs, x), append(ys, y)
		}
	}
	return xs, ys, true
}

// String returns "pass", "fail" or "inconclusive".
func (s Status) String() string {
	switch s {
	case Pass:
		return "pass"
	case Inconclusive:
		return "inconclusive"
	case Invalid:
		return "invalid"
	}
	return "fail"
}
