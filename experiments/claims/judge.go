package claims

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"gonum.org/v1/gonum/stat"

	"lbsweep/results"
)

// judged is one relation's judgement on one group of rows (all the claim's rows, a point's, or a run's).
type judged struct {
	status Status
	target string
	reason string
}

func (e Expect) evaluate(t *results.Table) Verdict {
	v := Verdict{Expect: e, Target: "-", Status: Invalid}
	rows := t.Where(e.Where)
	switch {
	case len(t.Rows) == 0:
		v.Reason = "the dataset has no rows"
		return v
	case len(rows) == 0:
		v.Reason = "no rows match the selection"
		return v
	}
	v.Measured = MeanCI(valuesAt(t, rows, e.Metric, e.Level), e.Alpha)
	if e.Relation == WithinCI {
		// Metric and theory over the same rows: those with a theory value.
		missing, short := 0, 0
		jt := t.Col(e.Theory)
		for _, r := range rows {
			if _, ok := value(t, r, e.Theory, e.Level); !ok {
				missing++
			} else if c := t.Rows[r][jt]; e.Level > 0 && len(c.L) < e.Level {
				short++ // a theory list cut at the run's longest queue: not computed this far
			}
		}
		if missing > 0 {
			v.Reason = fmt.Sprintf("%s is null for %d of the %d selected rows: narrow the selection to rows with a closed form", e.Theory, missing, len(rows))
			return v
		}
		if short > 0 {
			v.Reason = fmt.Sprintf("%s is not computed to level %d in %d of the %d selected rows (it stops where their runs' queues did): claim a lower level", e.Theory, e.Level, short, len(rows))
			return v
		}
	}
	if v.Measured.N == 0 {
		v.Reason = fmt.Sprintf("%s is null in all %d selected rows", e.Metric, len(rows))
		return v
	}
	var others []int
	if e.twoSample() {
		var matched int
		others = t.Where(Merge(e.Where, e.Other))
		matched = len(others)
		if len(valuesAt(t, others, e.Metric, e.Level)) == 0 {
			v.Reason = "no rows match the other selection"
			if matched > 0 {
				v.Reason = fmt.Sprintf("%s is null in all %d rows of the other selection", e.Metric, matched)
			}
			return v
		}
		in := make(map[int]bool, len(rows))
		for _, r := range rows {
			in[r] = true
		}
		shared := 0
		for _, o := range others {
			if in[o] {
				shared++
			}
		}
		if shared > 0 {
			v.Reason = fmt.Sprintf("the two selections share %d rows: a comparison needs disjoint selections (name the column that tells them apart in both)", shared)
			return v
		}
	}
	if nulls := len(rows) - v.Measured.N; nulls > 0 {
		v.Count = fmt.Sprintf("%s null in %d of %d rows, left out", e.Metric, nulls, len(rows))
	}
	if e.Quant == Pooled {
		j := e.judge(t, rows, others, e.Alpha, false)
		v.Status, v.Target, v.Reason = j.status, j.target, j.reason
		return v
	}
	return e.quantified(t, v, rows, others)
}

// twoSample reports whether the claim compares its selection with another.
func (e Expect) twoSample() bool {
	return e.Relation == Ratio || ((e.Relation == LessThan || e.Relation == GreaterThan) && !e.HasBound)
}

// quantified judges a claim with a quantifier: per point (each at alpha/K for K points where a pass must be shown,
// so that the chance of a false verdict stays below alpha) or per run (each one value, judged exactly).
func (e Expect) quantified(t *results.Table, v Verdict, rows, others []int) Verdict {
	perRun := e.Quant == EveryReplication || e.Quant == SomeReplication
	every := e.Quant == EveryPoint || e.Quant == EveryReplication
	var valid []int
	for _, r := range rows {
		if _, ok := value(t, r, e.Metric, e.Level); ok {
			valid = append(valid, r)
		}
	}
	nulls := ""
	if len(valid) < len(rows) {
		nulls = fmt.Sprintf("; %d rows with %s null left out", len(rows)-len(valid), e.Metric)
	}
	rows = valid
	groups, keys, err := e.groups(t, rows, perRun)
	if err != "" {
		v.Reason = err
		return v
	}
	alpha := e.Alpha
	// Every point must pass: a Bonferroni family, so that one chance failure in K points stays below alpha. Some
	// point must pass: a claim of a side is shown at one point at alpha/K, so that K tries give a false pass with
	// probability below alpha; a claim of a value is judged at alpha itself, its narrowest CI and hardest test.
	if !perRun && (every || !e.claimsValue()) {
		alpha /= float64(len(groups))
	}
	var pass, fail, inconc int
	var firstFail, firstInc, firstPass string
	for g, grp := range groups {
		var oth []int
		if others != nil {
			oth = e.counterpart(t, grp, others, perRun)
			if len(oth) == 0 {
				v.Reason = fmt.Sprintf("the other selection has no rows matching %s", keys[g])
				return v
			}
		}
		j := e.judge(t, grp, oth, alpha, perRun)
		switch j.status {
		case Pass:
			pass++
			if firstPass == "" {
				firstPass = keys[g] + ": " + j.target
			}
		case Fail:
			fail++
			if firstFail == "" {
				firstFail = keys[g] + ": " + j.target
			}
		default:
			inconc++
			if firstInc == "" {
				firstInc = keys[g] + ": " + j.target + " (" + j.reason + ")"
			}
		}
	}
	unit := "points"
	if perRun {
		unit = "runs"
	}
	k := len(groups)
	v.Count = fmt.Sprintf("%d of %d %s%s", pass, k, unit, nulls)
	quant := "every"
	if !every {
		quant = "some"
	}
	level := ""
	if alpha != e.Alpha {
		level = fmt.Sprintf(", each at alpha/%d", k)
	}
	head := fmt.Sprintf("in %s %s (%d%s)", quant, strings.TrimSuffix(unit, "s"), k, level)
	switch {
	case every && fail > 0:
		v.Status, v.Target = Fail, head+"; first failing "+firstFail
		v.Reason = fmt.Sprintf("fails in %d of %d %s", fail, k, unit)
	case every && inconc > 0:
		v.Status, v.Target = Inconclusive, head+"; first undecided "+firstInc
		v.Reason = fmt.Sprintf("undecided in %d of %d %s", inconc, k, unit)
	case every:
		v.Status, v.Target = Pass, head+"; e.g. "+firstPass
	case pass > 0:
		v.Status, v.Target = Pass, head+"; holds at "+firstPass
	case inconc > 0:
		v.Status, v.Target = Inconclusive, head+"; undecided "+firstInc
		v.Reason = fmt.Sprintf("holds in none of the %d %s, undecided in %d", k, unit, inconc)
	default:
		v.Status, v.Target = Fail, head+"; e.g. "+firstFail
		v.Reason = fmt.Sprintf("fails in all %d %s", k, unit)
	}
	return v
}

// claimsValue reports whether the claim is of a value (an interval that the CI must meet) rather than of a side.
func (e Expect) claimsValue() bool {
	switch e.Relation {
	case Approx, WithinCI, InLaw:
		return true
	case Ratio:
		return !math.IsNaN(e.Min) && !math.IsNaN(e.Max)
	}
	return false
}

// groups splits rows by grid point (the point column), in order of first appearance, or into single runs; keys name
// each group in messages.
func (e Expect) groups(t *results.Table, rows []int, perRun bool) (groups [][]int, keys []string, err string) {
	if perRun {
		js := t.Col("seed")
		for _, r := range rows {
			groups = append(groups, []int{r})
			k := fmt.Sprintf("run %d", r)
			if js >= 0 {
				k = fmt.Sprintf("seed %d", t.Rows[r][js].I)
			}
			if x, ok := value(t, r, e.Metric, e.Level); ok {
				k += fmt.Sprintf(" (%s = %.6g)", e.Metric, x)
			}
			keys = append(keys, k)
		}
		return groups, keys, ""
	}
	jp := t.Col("point")
	if jp < 0 {
		return nil, nil, "the dataset has no point column to group by"
	}
	at := map[string]int{}
	for _, r := range rows {
		p := t.Rows[r][jp].S
		g, ok := at[p]
		if !ok {
			g = len(groups)
			at[p] = g
			groups = append(groups, nil)
			keys = append(keys, p)
		}
		groups[g] = append(groups[g], r)
	}
	return groups, keys, ""
}

// counterpart returns the rows of others that go with grp: for a run, the run with the same seed and replication; for
// a point, the rows that agree with grp's first row on every parameter the other selection does not name and that
// takes more than one value among the other selection's rows (a parameter a model derives from a named one, as
// load from lambda, is then constant there and not matched).
func (e Expect) counterpart(t *results.Table, grp, others []int, perRun bool) []int {
	var cols []int
	if perRun {
		// The run with the same random numbers, else (another point's runs draw others) the same replication.
		if out := matching(t, grp[0], others, []int{t.Col("seed"), t.Col("replication")}); len(out) == 1 {
			return out
		}
		cols = []int{t.Col("replication")}
	} else {
		for _, p := range e.Params {
			named := false
			for _, c := range e.Other {
				named = named || c.Column == p
			}
			j := t.Col(p)
			if j < 0 || named {
				continue
			}
			for _, o := range others[1:] {
				if !results.Equal(t.Columns[j].Type, t.Rows[o][j], t.Rows[others[0]][j]) {
					cols = append(cols, j)
					break
				}
			}
		}
	}
	out := matching(t, grp[0], others, cols)
	if perRun && len(out) != 1 {
		return nil
	}
	return out
}

// matching returns the rows of others equal to row r on every column of cols.
func matching(t *results.Table, r int, others, cols []int) []int {
	var out []int
	for _, o := range others {
		same := true
		for _, j := range cols {
			if j < 0 || !results.Equal(t.Columns[j].Type, t.Rows[o][j], t.Rows[r][j]) {
				same = false
				break
			}
		}
		if same {
			out = append(out, o)
		}
	}
	return out
}

// judge applies the claim's relation to rows (and, for a two-selection claim, to the other selection's rows others)
// at level alpha. perRun: rows is one run, judged on its value alone (no CI); otherwise a side with one value has no
// CI and the claim is inconclusive.
func (e Expect) judge(t *results.Table, rows, others []int, alpha float64, perRun bool) judged {
	xs := valuesAt(t, rows, e.Metric, e.Level)
	m := MeanCI(xs, alpha)
	if m.N == 0 {
		return judged{status: Invalid, target: "-", reason: fmt.Sprintf("%s is null in the %d rows", e.Metric, len(rows))}
	}
	oneRun := "one run: no confidence interval (more replications; or, for a deterministic metric, every = \"replication\")"
	if !perRun && e.Relation != InLaw {
		if m.N < 2 {
			return judged{status: Inconclusive, target: "-", reason: oneRun}
		}
		if others != nil && len(valuesAt(t, others, e.Metric, e.Level)) < 2 {
			return judged{status: Inconclusive, target: "-", reason: "the other selection has " + oneRun}
		}
	}
	half := m.Half // NaN with one run (perRun): the claim is then judged on that run's value alone
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
	var j judged
	level := 100 * (1 - alpha)
	switch {
	case e.Relation == Approx:
		what := "our CI"
		if e.ClaimedRuns > 0 {
			what = fmt.Sprintf("CI of the difference with a %d-run estimate", e.ClaimedRuns)
		}
		half = widen(half)
		j.target = fmt.Sprintf("%.6g ± %.3g (claimed value's rounding; %s ± %.3g added)", e.Value, e.Tol, what, half)
		if perRun {
			j.target = fmt.Sprintf("%.6g ± %.3g (claimed value's rounding; the run's value, no CI)", e.Value, e.Tol)
		}
		j.status, j.reason = interval(m.Mean, half, e.Value-e.Tol, e.Value+e.Tol, resolution(e.Value))
	case e.Relation == WithinCI:
		th := MeanCI(valuesAt(t, rows, e.Theory, e.Level), alpha)
		j.target = fmt.Sprintf("%.6g (%s; CI %.4g%% ± %.3g, allowance %.3g)", th.Mean, e.Theory, level, half, e.Allowance)
		j.status, j.reason = interval(m.Mean, half, th.Mean-e.Allowance, th.Mean+e.Allowance, resolution(th.Mean))
		if j.status == Pass && e.Allowance > MaxRelTol*math.Abs(th.Mean) {
			j.status, j.reason = Inconclusive, fmt.Sprintf("allowance %.3g is more than %g%% of the theory's %.4g: the claim could not tell a different value", e.Allowance, 100*MaxRelTol, th.Mean)
		}
	case e.Relation == InLaw:
		// The claimed value is one draw (a book's single simulation), so it is judged against the spread of our
		// runs, not against our mean's CI: it must lie inside their central interval (lawInterval). The law
		// resolves the claim when that interval is narrower than twice the resolution.
		if need := MinLawRuns(alpha); len(xs) < need {
			return judged{status: Inconclusive, target: "-", reason: fmt.Sprintf("%d runs: an in_law claim at alpha = %g needs at least %d", len(xs), alpha, need)}
		}
		sort.Float64s(xs)
		lo, hi := lawInterval(xs, alpha)
		j.target = fmt.Sprintf("%.6g inside the runs' central %.4g%%: [%.6g, %.6g] (%d runs; median %.6g)", e.Value, level, lo, hi, len(xs), stat.Quantile(0.5, stat.Empirical, xs, nil))
		switch res := resolution(e.Value); {
		case e.Value < lo-slack(lo) || e.Value > hi+slack(hi):
			below := sort.SearchFloat64s(xs, e.Value)
			j.status, j.reason = Fail, fmt.Sprintf("the claimed value lies outside: %d of %d runs are below it", below, len(xs))
		case hi > lo && (hi-lo)/2 >= res:
			j.status, j.reason = Inconclusive, fmt.Sprintf("the runs' central interval has half-width %.3g ≥ the resolution %.3g (%g%% of %.4g): one draw from a law this wide cannot tell the claimed value from one that far away", (hi-lo)/2, res, 100*Resolution, e.Value)
		default:
			j.status = Pass
		}
	case e.HasBound:
		below := e.Relation == LessThan
		op := ">"
		if below {
			op = "<"
		}
		j.target = fmt.Sprintf("%s %.6g (with our CI ± %.3g)", op, e.Bound, half)
		if perRun {
			j.target = fmt.Sprintf("%s %.6g (the run's value, no CI)", op, e.Bound)
		}
		j.status, j.reason = side(m.Mean-half, m.Mean+half, e.Bound, below, true)
	default: // LessThan, GreaterThan and Ratio against another selection
		ys := valuesAt(t, others, e.Metric, e.Level)
		o := MeanCI(ys, alpha)
		if o.N == 0 {
			return judged{status: Fail, target: "-", reason: "no values in the other selection"}
		}
		px, py, paired := pairs(t, rows, others, e.Metric, e.Level)
		how := "Welch"
		if perRun {
			how = "one run each"
		}
		if paired {
			xs, ys, how = px, py, fmt.Sprintf("paired by seed, %d pairs", len(px))
		}
		if e.Relation == Ratio {
			if !paired {
				how = "the means taken as independent"
			}
			j = e.ratio(xs, ys, paired, alpha, how, widen)
			break
		}
		d := DiffCI(xs, ys, paired, alpha)
		dh := d.Half
		if math.IsNaN(dh) {
			dh = 0
		}
		below := e.Relation == LessThan
		op := ">"
		if below {
			op = "<"
		}
		j.target = fmt.Sprintf("%s %.6g (%s); difference %.4g ± %.2g (%s)", op, o.Mean, condText(e.Other), d.Mean, dh, how)
		j.status, j.reason = side(d.Mean-dh, d.Mean+dh, 0, below, true)
	}
	return j
}

// ratio judges a ratio claim: mean(xs)/mean(ys) with its CI by the delta method. Paired: the Student-t interval of
// the linearised terms (x − r·y)/mean(y), whose mean is 0 and whose spread carries the pairs' covariance. Otherwise
// the two means taken as independent: relative half-width √((h₁/m₁)² + (h₂/m₂)²). Either is widened as for approx
// when the bounds come from a claimed_runs-run estimate.
func (e Expect) ratio(xs, ys []float64, paired bool, alpha float64, how string, widen func(float64) float64) judged {
	a, b := MeanCI(xs, alpha), MeanCI(ys, alpha)
	r := a.Mean / b.Mean
	var hr float64
	if paired {
		z := make([]float64, len(xs))
		for i := range xs {
			z[i] = (xs[i] - r*ys[i]) / b.Mean
		}
		hr = MeanCI(z, alpha).Half
	} else {
		ha, hb := a.Half, b.Half
		if math.IsNaN(ha) {
			ha = 0
		}
		if math.IsNaN(hb) {
			hb = 0
		}
		hr = math.Abs(r) * math.Hypot(ha/a.Mean, hb/b.Mean)
	}
	if math.IsNaN(hr) {
		hr = 0
	}
	hr = widen(hr)
	var j judged
	var claim string
	switch {
	case math.IsNaN(e.Max):
		claim = fmt.Sprintf("≥ %.4g", e.Min)
		j.status, j.reason = side(r-hr, r+hr, e.Min, false, false)
	case math.IsNaN(e.Min):
		claim = fmt.Sprintf("≤ %.4g", e.Max)
		j.status, j.reason = side(r-hr, r+hr, e.Max, true, false)
	default:
		claim = fmt.Sprintf("in [%.4g, %.4g]", e.Min, e.Max)
		j.status, j.reason = interval(r, hr, e.Min, e.Max, resolution((e.Min+e.Max)/2))
	}
	if b.Mean == 0 || math.IsNaN(r) || math.IsInf(r, 0) {
		// No ratio; a one-sided lower bound still holds when the numerator is surely positive.
		j.status, j.reason = Inconclusive, fmt.Sprintf("the other selection's mean is %.4g: no ratio to bound", b.Mean)
		if b.Mean == 0 && math.IsNaN(e.Max) && a.Mean-math.Max(0, nanZero(a.Half)) > 0 && b.Half == 0 {
			j.status, j.reason = Pass, ""
		}
	}
	j.target = fmt.Sprintf("ratio to %s (%.6g) %s: %.4g ± %.2g (%s)", condText(e.Other), b.Mean, claim, r, hr, how)
	return j
}

// nanZero is x, or 0 for NaN.
func nanZero(x float64) float64 {
	if math.IsNaN(x) {
		return 0
	}
	return x
}

// lawInterval is the runs' central 1 − alpha interval by symmetric order statistics: [x₍ₖ₎, x₍ₙ₊₁₋ₖ₎] of the sorted
// xs with k = ⌊(n+1)·alpha/2⌋ (1-based), which a further draw from the same law misses with probability 2k/(n+1) ≤
// alpha; MinLawRuns makes k ≥ 1.
func lawInterval(xs []float64, alpha float64) (lo, hi float64) {
	n := len(xs)
	k := max(1, int(math.Floor(float64(n+1)*alpha/2+1e-9)))
	return xs[k-1], xs[n-k]
}
