// Package claims evaluates an experiment's [[expect]] claims on its dataset and says how each fared: what a claim
// says (Expect, decoded from a spec by package experiments), the statistics it is judged by (Estimate, MeanCI: a
// Student-t confidence interval across replications), the judgement (Evaluate, Verdict, Outcome), and how a verdict
// reads (Format, in the styles of `sweep check`'s lines, REPORT.md's rows and plot's notes).
//
// Row selection (results.Cond, Table.Where) stays in package results: it is table reading, shared with the figures
// and tables that select rows the same way, and it has no statistics in it.
//
// The package imports no model and no spec decoder, so a model's statistical tests can use MeanCI.
package claims

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"gonum.org/v1/gonum/stat"

	"lbsweep/results"
)

// Relation is what an [[expect]] claims about its metric.
type Relation uint8

// Relations, as specs write them (the key that selects each).
const (
	Approx      Relation = iota + 1 // approx = V, tol = T: |mean − V| ≤ T + CI half-width (T: V's own uncertainty)
	WithinCI                        // theory = "column" [, allowance = A]: |mean − theory| ≤ CI half-width + A
	LessThan                        // less_than = { col = v, ... }: mean < the mean over the other selection; less_than = c: mean + CI < c
	GreaterThan                     // greater_than = { ... }: mean > the other mean; greater_than = c: mean − CI > c
	Ratio                           // ratio = { where = { ... }, min = a, max = b }: [a, b] meets mean / other mean ± its CI
	InLaw                           // in_law = V: V lies inside the central 1 − alpha of the runs' values (a single draw against our law)
)

// MinLawRuns is the fewest runs an in_law claim is judged on at level alpha: ⌈2/alpha⌉ (40 at alpha = 0.05), so
// that each tail left out holds at least one run and the quantiles are order statistics of the sample, not its
// extremes by default.
func MinLawRuns(alpha float64) int { return int(math.Ceil(2/alpha - 1e-9)) }

// Expect is one [[expect]] table: a claim of the experiment's source, as data (package experiments decodes and
// validates it; the README's "Claims" section is the spec syntax).
type Expect struct {
	Source   string         // where the claim comes from: seed file and section, or paper and table
	Where    []results.Cond // the rows the claim is about
	Metric   string         // a numeric metric column, or a list column with Level
	Level    int            // list columns: the 1-based element (queue_tail level i is s_i)
	Relation Relation
	Value    float64 // Approx: the claimed value; InLaw: the claimed single draw
	Tol      float64 // Approx: the claimed value's own uncertainty (its rounding, or its published CI)
	// ClaimedRuns (Approx, Ratio): the claimed value is itself a simulation estimate from this many independent runs of the
	// same setting. Our CI half-width h over N runs then widens to h·√(1 + N/ClaimedRuns), the CI of the difference of
	// two such estimates with our sample variance standing in for theirs. 0: the claimed value is exact up to Tol.
	ClaimedRuns int
	Theory      string         // WithinCI: the theory column (same Level for lists)
	Allowance   float64        // WithinCI: absolute slack added to the CI half-width (e.g. a finite-n allowance)
	Other       []results.Cond // LessThan, GreaterThan, Ratio: replaces or adds to Where for the other selection
	Min, Max    float64        // Ratio
	// Bound (LessThan, GreaterThan with HasBound): a constant to compare the mean with instead of another selection
	// (less_than = 1): the mean plus (less_than) or minus (greater_than) its CI half-width must stay on the claimed side.
	Bound    float64
	HasBound bool
	Alpha    float64 // confidence level 1 − Alpha for the CI; default 0.05 (theory claims: see Evaluate)
	// KnownFailure, when set, says why the source's claim does not reproduce here: the claim is still evaluated and
	// reported, but its failure is expected and does not fail `sweep check`; if it passes, that is reported instead.
	KnownFailure string
}

// Verdict is the outcome of one claim on a dataset.
type Verdict struct {
	Expect   Expect
	Measured Estimate // the claim's metric over its rows
	Target   string   // what it was compared with, as text
	Pass     bool
	Reason   string // why it failed (or "" when it passed)
}

// OK reports whether the verdict is as expected: a pass, or a failure the spec declares as known.
func (v Verdict) OK() bool { return v.Pass != (v.Expect.KnownFailure != "") }

// Evaluate checks every claim of expects (a spec's, in its order) against the dataset t and returns one verdict per
// claim, in the same order.
//
// The exact-theory claims (theory = ...) of a spec all test one hypothesis, that the simulator is exact where the
// theory is, so they form one family at level alpha: each is checked at alpha/k for k such claims (Bonferroni).
// Without it a spec with k independent 95% checks would fail by chance with probability up to 1 − 0.95^k.
func Evaluate(expects []Expect, t *results.Table) []Verdict {
	k := 0
	for _, e := range expects {
		if e.Relation == WithinCI {
			k++
		}
	}
	out := make([]Verdict, len(expects))
	for i, e := range expects {
		if e.Relation == WithinCI {
			e.Alpha /= float64(k)
		}
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

func (e Expect) evaluate(t *results.Table) Verdict {
	v := Verdict{Expect: e, Target: "-"}
	rows := t.Where(e.Where)
	switch {
	case len(t.Rows) == 0:
		v.Reason = "the dataset has no rows"
		return v
	case len(rows) == 0:
		v.Reason = "no rows match the selection"
		return v
	}
	if e.Relation == WithinCI {
		// Metric and theory over the same rows: those with a theory value.
		var withTheory []int
		for _, r := range rows {
			if len(valuesAt(t, []int{r}, e.Theory, e.Level)) == 1 {
				withTheory = append(withTheory, r)
			}
		}
		if len(withTheory) < len(rows) {
			v.Measured = MeanCI(valuesAt(t, rows, e.Metric, e.Level), e.Alpha)
			v.Reason = fmt.Sprintf("%s is null for %d of the %d selected rows: narrow the selection to rows with a closed form", e.Theory, len(rows)-len(withTheory), len(rows))
			return v
		}
	}
	v.Measured = MeanCI(valuesAt(t, rows, e.Metric, e.Level), e.Alpha)
	m := v.Measured
	if m.N == 0 {
		v.Reason = fmt.Sprintf("%s is null in all %d selected rows", e.Metric, len(rows))
		return v
	}
	half := m.Half // NaN with one replication: the claim is then checked against its tolerance alone
	if math.IsNaN(half) {
		half = 0
	}
	// widen is the CI half-width h of a difference with a claimed_runs-run estimate: h·√(1 + N/claimed_runs).
	widen := func(h float64) float64 {
		if e.ClaimedRuns == 0 {
			return h
		}
		return h * math.Sqrt(1+float64(m.N)/float64(e.ClaimedRuns))
	}
	switch {
	case e.Relation == Approx:
		what := "our CI"
		if e.ClaimedRuns > 0 {
			what = fmt.Sprintf("CI of the difference with a %d-run estimate", e.ClaimedRuns)
		}
		half = widen(half)
		v.Target = fmt.Sprintf("%.6g ± %.3g (claimed value's rounding; %s ± %.3g added)", e.Value, e.Tol, what, half)
		v.Pass = math.Abs(m.Mean-e.Value) <= e.Tol+half+slack(e.Value)
	case e.Relation == WithinCI:
		th := MeanCI(valuesAt(t, rows, e.Theory, e.Level), e.Alpha)
		v.Target = fmt.Sprintf("%.6g (%s; CI %.4g%% ± %.3g, allowance %.3g)", th.Mean, e.Theory, 100*(1-e.Alpha), half, e.Allowance)
		v.Pass = math.Abs(m.Mean-th.Mean) <= half+e.Allowance+slack(th.Mean)
		if !v.Pass && m.N < 2 && e.Allowance == 0 {
			v.Reason = "one value only: no confidence interval to compare with the theory (run 2 or more replications, or give an allowance)"
		}
	case e.Relation == InLaw:
		// The claimed value is one draw (a book's single simulation), so it is judged against the spread of our
		// runs, not against our mean's CI: it must lie between the empirical alpha/2 and 1 − alpha/2 quantiles of
		// the runs' values (gonum's stat.Empirical: the smallest value whose empirical CDF reaches p).
		xs := valuesAt(t, rows, e.Metric, e.Level)
		if need := MinLawRuns(e.Alpha); len(xs) < need {
			v.Reason = fmt.Sprintf("%d runs: an in_law claim at alpha = %g needs at least %d", len(xs), e.Alpha, need)
			return v
		}
		sort.Float64s(xs)
		lo := stat.Quantile(e.Alpha/2, stat.Empirical, xs, nil)
		hi := stat.Quantile(1-e.Alpha/2, stat.Empirical, xs, nil)
		v.Target = fmt.Sprintf("%.6g inside the runs' central %.4g%%: [%.6g, %.6g] (%d runs; median %.6g)", e.Value, 100*(1-e.Alpha), lo, hi, len(xs), stat.Quantile(0.5, stat.Empirical, xs, nil))
		v.Pass = lo-slack(lo) <= e.Value && e.Value <= hi+slack(hi)
		if !v.Pass {
			below := sort.SearchFloat64s(xs, e.Value)
			v.Reason = fmt.Sprintf("the claimed value lies outside: %d of %d runs are below it", below, len(xs))
		}
	case e.HasBound && e.Relation == LessThan:
		v.Target = fmt.Sprintf("< %.6g (with our CI ± %.3g)", e.Bound, half)
		v.Pass = m.Mean+half < e.Bound
	case e.HasBound: // GreaterThan
		v.Target = fmt.Sprintf("> %.6g (with our CI ± %.3g)", e.Bound, half)
		v.Pass = m.Mean-half > e.Bound
	default: // LessThan, GreaterThan and Ratio against another selection
		xs, matched := values(t, Merge(e.Where, e.Other), e.Metric, e.Level)
		o := MeanCI(xs, e.Alpha)
		if o.N == 0 {
			v.Reason = "no rows match the other selection"
			if matched > 0 {
				v.Reason = fmt.Sprintf("%s is null in all %d rows of the other selection", e.Metric, matched)
			}
			return v
		}
		switch e.Relation {
		case LessThan:
			v.Target = fmt.Sprintf("< %.6g (%s)", o.Mean, condText(e.Other))
			v.Pass = m.Mean < o.Mean
		case GreaterThan:
			v.Target = fmt.Sprintf("> %.6g (%s)", o.Mean, condText(e.Other))
			v.Pass = m.Mean > o.Mean
		default:
			// The ratio's CI by the delta method, the two means taken as independent (conservative under common
			// random numbers, which correlate them positively): relative half-width √((h₁/m₁)² + (h₂/m₂)²), widened
			// as for approx when the bounds come from a claimed_runs-run estimate.
			r := m.Mean / o.Mean
			oh := o.Half
			if math.IsNaN(oh) {
				oh = 0
			}
			hr := widen(math.Abs(r) * math.Hypot(half/m.Mean, oh/o.Mean))
			if math.IsNaN(hr) {
				hr = 0
			}
			v.Target = fmt.Sprintf("ratio to %s (%.6g) in [%.4g, %.4g]: %.4g ± %.2g", condText(e.Other), o.Mean, e.Min, e.Max, r, hr)
			v.Pass = r+hr >= e.Min && r-hr <= e.Max
		}
	}
	if !v.Pass && v.Reason == "" {
		v.Reason = "measured value outside the claim"
	}
	return v
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
