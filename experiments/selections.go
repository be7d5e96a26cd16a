package experiments

import (
	"fmt"
	"strings"

	"lbsweep/experiments/claims"
	"lbsweep/model"
	"lbsweep/results"
)

// checkSelections checks, on the expanded grid and before anything runs, that every selection of the spec picks at
// least one run: the where of each figure (a timeseries figure's, exactly one run, is checkTimeseries'), of each
// table and of each claim, and a claim's other selection (less_than or greater_than a selection, ratio.where, merged
// with its where as claims.Merge does). A selection of no run would be found only after the sweep, as an empty figure
// or a claim over no rows. Only the conditions on the identity and parameter columns are checked: a metric's values
// are known only once the runs are done. The error names the figure, table or claim and the key, and when one
// condition alone selects nothing, the values the grid has for its column.
func (d *decoder) checkSelections(s *Spec) error {
	for i, f := range s.Figures {
		if f.Kind == Timeseries {
			continue
		}
		if err := d.selects(s, f.Where, "figure", i, "where", fmt.Sprintf("figure %q", f.Name)); err != nil {
			return err
		}
	}
	for i, t := range s.Tables {
		if err := d.selects(s, t.Where, "table", i, "where", fmt.Sprintf("table %q", t.Name)); err != nil {
			return err
		}
	}
	for i, e := range s.Expects {
		if err := d.selects(s, e.Where, "expect", i, "where", "the claim"); err != nil {
			return err
		}
		if e.Other == nil {
			continue
		}
		key := "ratio"
		switch e.Relation {
		case claims.LessThan:
			key = "less_than"
		case claims.GreaterThan:
			key = "greater_than"
		}
		if err := d.selects(s, claims.Merge(e.Where, e.Other), "expect", i, key, "the claim's other selection"); err != nil {
			return err
		}
	}
	return nil
}

// selects is checkSelections for one selection, what names it in the message.
func (d *decoder) selects(s *Spec, where []results.Cond, table string, i int, key, what string) error {
	cols := model.Columns(s.Model)[:model.IdentityColumns+len(s.Model.Params())]
	var known []results.Cond
	for _, c := range where {
		if colIndex(cols, c.Column) >= 0 {
			known = append(known, c)
		}
	}
	if len(known) == 0 || s.selectsAny(known) {
		return nil
	}
	for _, c := range known {
		if !s.selectsAny([]results.Cond{c}) {
			return d.errf(table, i, key, "%s selects no run of the grid: no run has %s = %s (the grid's %s: %s)", what, c.Column, c.Text, c.Column, s.gridValues(c.Column))
		}
	}
	texts := make([]string, len(known))
	for k, c := range known {
		texts[k] = c.Column + " = " + c.Text
	}
	return d.errf(table, i, key, "%s selects no run of the grid: each of %s holds in some run, but never all together", what, strings.Join(texts, ", "))
}

// selectsAny reports whether some run of s matches where, whose columns are identity and parameter columns; the
// first match ends the walk.
func (s *Spec) selectsAny(where []results.Cond) bool {
	found := false
	s.walkRuns(where, false, func(results.Row) bool {
		found = true
		return false
	})
	return found
}

// gridValues lists the distinct values of the identity or parameter column col over the grid, in grid order, at most
// eight of them (then "… (N in all)"), for a message.
func (s *Spec) gridValues(col string) string {
	ps := s.Model.Params()
	k := model.Index(ps, col)
	switch {
	case col == "replication":
		return fmt.Sprintf("0 to %d", s.Replications-1)
	case k < 0:
		return "the runs' own values"
	}
	seen := map[string]bool{}
	var vals []string
	for p := range s.Points() {
		pt, _ := s.Point(p)
		v := ps[k].Format(pt[k])
		if !ps[k].Cell(pt[k]).Valid {
			v = "null"
		}
		if !seen[v] {
			seen[v] = true
			vals = append(vals, v)
		}
	}
	if len(vals) > 8 {
		return strings.Join(vals[:8], ", ") + fmt.Sprintf(", … (%d in all)", len(vals))
	}
	return strings.Join(vals, ", ")
}
