package experiments

import (
	"math"
	"strings"

	"lbsweep/experiments/claims"
	"lbsweep/model"
	"lbsweep/results"
)

// expectKeys are the keys of an [[expect]] table, decoded into a claims.Expect (see there for what each means).
var expectKeys = []string{"source", "known_failure", "where", "metric", "level", "approx", "tol", "claimed_runs", "theory", "allowance", "less_than", "greater_than", "ratio", "in_law", "alpha", "every", "some"}

func (d *decoder) expects(s *Spec, raw map[string]any) error {
	v, ok := raw["expect"]
	if !ok {
		return nil
	}
	list, ok := v.([]map[string]any)
	if !ok {
		return d.errf("", -1, "expect", "expected an array of tables ([[expect]]), got %s", tomlType(v))
	}
	cols := model.Columns(s.Model)
	for i, m := range list {
		for _, k := range sortedKeys(m) {
			if !contains(expectKeys, k) {
				return d.errf("expect", i, k, "unknown key (valid keys: %s)", strings.Join(expectKeys, ", "))
			}
		}
		e := claims.Expect{Alpha: 0.05, Min: math.NaN(), Max: math.NaN()}
		for _, p := range s.Model.Params() {
			e.Params = append(e.Params, p.Name)
		}
		var err error
		if e.Source, err = d.str(m, "expect", i, "source", true); err != nil {
			return err
		}
		if e.Metric, err = d.str(m, "expect", i, "metric", true); err != nil {
			return err
		}
		if e.KnownFailure, err = d.str(m, "expect", i, "known_failure", false); err != nil {
			return err
		}
		j := colIndex(cols, e.Metric)
		if j < 0 {
			return d.errf("expect", i, "metric", "unknown column %q (columns: %s)", e.Metric, colNames(cols))
		}
		isList := cols[j].Type == results.Float64List
		if !isList && cols[j].Type != results.Float64 && cols[j].Type != results.Int64 && cols[j].Type != results.Bool {
			return d.errf("expect", i, "metric", "column %q is %s: a claim needs a numeric or boolean column", e.Metric, cols[j].Type)
		}
		lv, present, err := d.integer(m, "expect", i, "level")
		if err != nil {
			return err
		}
		switch {
		case isList && (!present || lv < 1):
			return d.errf("expect", i, "level", "%s is a list: give level = i ≥ 1 (element i−1, e.g. s_i)", e.Metric)
		case !isList && present:
			return d.errf("expect", i, "level", "%s is not a list column", e.Metric)
		}
		e.Level = int(lv)
		if e.Where, err = d.conds(cols, m, "expect", i, "where"); err != nil {
			return err
		}
		if _, ok := m["theory"]; ok {
			e.Alpha = claims.TheoryAlpha
		}
		if a, present, err := d.number(m, "expect", i, "alpha"); err != nil {
			return err
		} else if present {
			if !(a >= claims.MinAlpha && a <= claims.MaxAlpha) {
				return d.errf("expect", i, "alpha", "%v: need %g ≤ alpha ≤ %g (smaller: a CI wide enough to pass nearly anything; larger: one correct claim in ten fails)", a, claims.MinAlpha, claims.MaxAlpha)
			}
			e.Alpha = a
		}
		var rels []string
		for _, k := range []string{"approx", "theory", "less_than", "greater_than", "ratio", "in_law"} {
			if _, ok := m[k]; ok {
				rels = append(rels, k)
			}
		}
		if len(rels) != 1 {
			return d.errf("expect", i, "", "give exactly one relation of approx, theory, less_than, greater_than, ratio, in_law (found %d)", len(rels))
		}
		switch rels[0] {
		case "approx":
			e.Relation = claims.Approx
			if e.Value, _, err = d.number(m, "expect", i, "approx"); err != nil {
				return err
			}
			if math.IsInf(e.Value, 0) || math.IsNaN(e.Value) {
				return d.errf("expect", i, "approx", "%v: need a finite claimed value", e.Value)
			}
			tol, present, err := d.number(m, "expect", i, "tol")
			if err != nil {
				return err
			}
			switch {
			case !present || !(tol >= 0):
				return d.errf("expect", i, "tol", "approx needs a tolerance tol ≥ 0 (say in source where it comes from)")
			case e.Value == 0 && tol > 0:
				return d.errf("expect", i, "tol", "%v: a claimed 0 has no scale for a tolerance: give tol = 0, or claim a bound (less_than = ...)", tol)
			case tol > claims.MaxRelTol*math.Abs(e.Value):
				return d.errf("expect", i, "tol", "%v is more than %g%% of the claimed %v: a claim that loose cannot fail (claim a bound, or a ratio, instead)", tol, 100*claims.MaxRelTol, e.Value)
			}
			e.Tol = tol
		case "theory":
			e.Relation = claims.WithinCI
			if e.Theory, err = d.str(m, "expect", i, "theory", true); err != nil {
				return err
			}
			t := colIndex(cols, e.Theory)
			if t < 0 || (cols[t].Type == results.Float64List) != isList {
				return d.errf("expect", i, "theory", "%q is not a theory column matching %s", e.Theory, e.Metric)
			}
			if a, present, err := d.number(m, "expect", i, "allowance"); err != nil {
				return err
			} else if present {
				if !(a >= 0) || math.IsInf(a, 0) {
					return d.errf("expect", i, "allowance", "%v: need a finite allowance ≥ 0 (above %g%% of the theory's value the claim is inconclusive)", a, 100*claims.MaxRelTol)
				}
				e.Allowance = a
			}
		case "less_than", "greater_than":
			e.Relation = claims.LessThan
			if rels[0] == "greater_than" {
				e.Relation = claims.GreaterThan
			}
			if _, isTable := m[rels[0]].(map[string]any); !isTable { // less_than = 1: a constant bound
				x, _, err := d.number(m, "expect", i, rels[0])
				if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
					return d.errf("expect", i, rels[0], "expected a finite number (a constant bound) or an inline table { column = value, ... } (another selection), got %s", tomlType(m[rels[0]]))
				}
				e.Bound, e.HasBound = x, true
				break
			}
			if e.Other, err = d.conds(cols, m, "expect", i, rels[0]); err != nil {
				return err
			}
			if len(e.Other) == 0 {
				return d.errf("expect", i, rels[0], "an empty table selects the claim's own rows: name the column that tells the other selection apart")
			}
		case "in_law":
			e.Relation = claims.InLaw
			x, _, err := d.number(m, "expect", i, "in_law")
			if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
				return d.errf("expect", i, "in_law", "expected a finite number (the claimed single draw), got %s", tomlType(m["in_law"]))
			}
			e.Value = x
		case "ratio":
			e.Relation = claims.Ratio
			r, ok := m["ratio"].(map[string]any)
			if !ok {
				return d.errf("expect", i, "ratio", "expected { where = { ... }, min = a, max = b }")
			}
			for _, k := range sortedKeys(r) {
				if k != "where" && k != "min" && k != "max" {
					return d.errf("expect", i, "ratio", "unknown key %q (where, min, max)", k)
				}
			}
			if e.Other, err = d.conds(cols, r, "expect", i, "where"); err != nil {
				return err
			}
			lo, okMin, err := d.number(r, "expect", i, "min")
			if err != nil {
				return err
			}
			hi, okMax, err := d.number(r, "expect", i, "max")
			if err != nil {
				return err
			}
			finite := func(x float64) bool { return !math.IsInf(x, 0) && !math.IsNaN(x) }
			switch {
			case !okMin && !okMax:
				return d.errf("expect", i, "ratio", "give min, max or both: ratio ≥ min, ratio ≤ max, or min ≤ ratio ≤ max")
			case okMin && (!finite(lo) || lo < 0), okMax && (!finite(hi) || hi <= 0):
				return d.errf("expect", i, "ratio", "need finite bounds, min ≥ 0 and max > 0 (for a one-sided claim leave the other bound out)")
			case okMin && !okMax && lo == 0:
				return d.errf("expect", i, "ratio", "min = 0 alone holds for any ratio of non-negative metrics: give a positive min, or a max")
			case okMin && okMax && lo > hi:
				return d.errf("expect", i, "ratio", "needs min ≤ max")
			case okMin && okMax && lo > 0 && hi > claims.MaxRatioSpan*lo:
				return d.errf("expect", i, "ratio", "[%v, %v] spans more than a factor %d: a claim that loose cannot fail (claim a one-sided bound instead)", lo, hi, claims.MaxRatioSpan)
			}
			if okMin && lo > 0 {
				e.Min = lo
			}
			if okMax {
				e.Max = hi
			}
		}
		if cols[j].Type == results.Bool {
			if err := d.boolClaim(e, i, rels[0]); err != nil {
				return err
			}
		}
		if cr, present, err := d.integer(m, "expect", i, "claimed_runs"); err != nil {
			return err
		} else if present {
			switch {
			case e.Relation != claims.Approx && e.Relation != claims.Ratio:
				return d.errf("expect", i, "claimed_runs", "only approx and ratio claims compare with a claimed estimate")
			case cr < 1:
				return d.errf("expect", i, "claimed_runs", "%d: need claimed_runs ≥ 1", cr)
			}
			e.ClaimedRuns = int(cr)
		}
		if e.Quant, err = d.quantifier(m, i); err != nil {
			return err
		}
		if e.Quant != claims.Pooled && e.Relation == claims.InLaw {
			return d.errf("expect", i, "every", "in_law judges one draw against the law of all the runs: it takes no quantifier")
		}
		s.Expects = append(s.Expects, e)
	}
	return nil
}

// boolClaim refuses a claim e (the i-th [[expect]], relation key rel) on a boolean metric whose constant cannot be
// met by, or cannot fail for, the value it is judged on: a fraction of runs in [0, 1] (pooled, or by point), or a
// run's 0 or 1 (every or some replication). A fraction lies below b only if b > 0 and always does if b > 1; above b
// only if b < 1 and always does if b < 0; it is approximately v only for v in [0, 1]; and one run's draw (in_law)
// is 0 or 1. (Before, such claims were accepted: less_than = 2 on "unstable" passed whatever the runs did.)
func (d *decoder) boolClaim(e claims.Expect, i int, rel string) error {
	why := ""
	switch {
	case e.Relation == claims.LessThan && e.HasBound && !(e.Bound > 0 && e.Bound <= 1):
		why = "need 0 < less_than ≤ 1"
	case e.Relation == claims.GreaterThan && e.HasBound && !(e.Bound >= 0 && e.Bound < 1):
		why = "need 0 ≤ greater_than < 1"
	case e.Relation == claims.Approx && !(e.Value >= 0 && e.Value <= 1):
		why = "need 0 ≤ approx ≤ 1"
	case e.Relation == claims.InLaw && e.Value != 0 && e.Value != 1:
		why = "a single run's draw of a boolean is 0 (false) or 1 (true)"
	default:
		return nil
	}
	v := e.Bound
	if !e.HasBound {
		v = e.Value
	}
	return d.errf("expect", i, rel, "%v: %s is true or false in each run, and a claim on it is on the fraction of runs where it is true, in [0, 1]: %s (a bound outside that range cannot fail, or cannot pass)", v, e.Metric, why)
}

// quantifier decodes an [[expect]]'s every = "point" | "replication" or some = ..., at most one of them.
func (d *decoder) quantifier(m map[string]any, i int) (claims.Quantifier, error) {
	q := claims.Pooled
	for _, k := range []string{"every", "some"} {
		if _, present := m[k]; !present {
			continue
		}
		v, err := d.str(m, "expect", i, k, false)
		if err != nil {
			return q, err
		}
		if q != claims.Pooled {
			return q, d.errf("expect", i, k, "give every or some, not both")
		}
		switch {
		case v == "point" && k == "every":
			q = claims.EveryPoint
		case v == "point":
			q = claims.SomePoint
		case v == "replication" && k == "every":
			q = claims.EveryReplication
		case v == "replication":
			q = claims.SomeReplication
		default:
			return q, d.errf("expect", i, k, `%q: expected "point" (each grid point of the selection) or "replication" (each run)`, v)
		}
	}
	return q, nil
}
