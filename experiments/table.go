package experiments

import (
	"strings"

	"lbsweep/model"
	"lbsweep/results"
)

// Table is one [[table]] entry: what cmd/plot writes as Markdown to figures/<spec name>-<Name>.md and into the
// report. It has one of two shapes:
//
//   - by parameter (Columns != ""): one metric, Metrics[0], with a table column per distinct value of the parameter
//     column Columns (numbers ascending, other values in order of first appearance, null last);
//   - by metric (Columns == ""): a table column per metric of Metrics.
//
// Either way a table row is one combination of the values of the Rows columns (nulls skipped in its label, as in a
// figure's series), in order of first appearance in the dataset, which follows the spec's grid order. Rows are scalar
// columns or list parameters (weights = [5, 1, 1] labels its row "weights=[5, 1, 1]").
type Table struct {
	Name    string // [a-z0-9-]+, unique among the spec's tables
	Title   string // the heading; "" for the output file's stem
	Where   []results.Cond
	Rows    []string // scalar columns whose value combinations make the rows; empty for one row
	Columns string   // by parameter: a parameter column; "" for the by-metric shape
	Metrics []string // numeric (int64 or double) columns: exactly one by parameter, one or more by metric
	Stat    Stat     // Median (default: the seeds publish medians of 3 seeds) or Mean (± the CI half-width)
	Alpha   float64  // Mean: cells show the half-width of the (1−Alpha) Student-t CI; default 0.05
	Digits  int      // significant digits shown, 1 to 17; default 4
}

// maxDigits is the most significant digits a float64 holds (strconv round-trips any double in 17).
const maxDigits = 17

var tableKeys = []string{"name", "title", "rows", "columns", "metric", "metrics", "where", "stat", "alpha", "digits"}

// tables decodes the [[table]] entries into s.Tables. Errors name the entry (table[i]), its key and its line.
func (d *decoder) tables(s *Spec, raw map[string]any) error {
	v, ok := raw["table"]
	if !ok {
		return nil
	}
	list, ok := v.([]map[string]any)
	if !ok {
		return d.errf("", -1, "table", "expected an array of tables ([[table]]), got %s", tomlType(v))
	}
	cols := model.Columns(s.Model)
	params := s.Model.Params()
	names := map[string]bool{}
	for i, m := range list {
		for _, k := range sortedKeys(m) {
			if !contains(tableKeys, k) {
				return d.errf("table", i, k, "unknown key (valid keys: %s)", strings.Join(tableKeys, ", "))
			}
		}
		tb := Table{Stat: Median, Alpha: 0.05, Digits: 4}
		var err error
		if tb.Name, err = d.str(m, "table", i, "name", true); err != nil {
			return err
		}
		if !nameRE.MatchString(tb.Name) || names[tb.Name] {
			return d.errf("table", i, "name", "%q: need a unique name of [a-z0-9-]+ (the table is figures/%s-NAME.md)", tb.Name, s.Name)
		}
		names[tb.Name] = true
		if tb.Title, err = d.str(m, "table", i, "title", false); err != nil {
			return err
		}
		if tb.Where, err = d.conds(cols, m, "table", i, "where"); err != nil {
			return err
		}
		switch st, err := d.str(m, "table", i, "stat", false); {
		case err != nil:
			return err
		case st == "mean":
			tb.Stat = Mean
		case st != "" && st != "median":
			return d.errf("table", i, "stat", "unknown stat %q (median: the median of the runs; mean: mean ± CI half-width)", st)
		}
		if a, present, err := d.number(m, "table", i, "alpha"); err != nil {
			return err
		} else if present {
			if !(a > 0 && a < 1) {
				return d.errf("table", i, "alpha", "%v: need 0 < alpha < 1", a)
			}
			if tb.Stat != Mean {
				return d.errf("table", i, "alpha", "a median shows no confidence interval: alpha needs stat = \"mean\"")
			}
			tb.Alpha = a
		}
		if dg, present, err := d.integer(m, "table", i, "digits"); err != nil {
			return err
		} else if present {
			if dg < 1 || dg > maxDigits {
				return d.errf("table", i, "digits", "%d: need 1 ≤ digits ≤ %d", dg, maxDigits)
			}
			tb.Digits = int(dg)
		}
		if tb.Rows, err = d.names(m, "table", i, "rows"); err != nil {
			return err
		}
		for k, r := range tb.Rows {
			j := colIndex(cols, r)
			switch {
			case j < 0:
				return d.errf("table", i, "rows", "unknown column %q (columns: %s)", r, colNames(cols))
			case cols[j].Type == results.Float64List && model.Index(params, r) < 0:
				return d.errf("table", i, "rows", "column %q is a list: rows are made from scalar columns and list parameters", r)
			case contains(tb.Rows[:k], r):
				return d.errf("table", i, "rows", "column %q is listed twice", r)
			}
		}
		if err := d.tableShape(&tb, m, cols, params, i); err != nil {
			return err
		}
		s.Tables = append(s.Tables, tb)
	}
	return nil
}

// tableShape decodes the shape of table i: columns and metric, or metrics.
func (d *decoder) tableShape(tb *Table, m map[string]any, cols []results.Column, params []model.Param, i int) error {
	_, hasCols := m["columns"]
	_, hasMetric := m["metric"]
	_, hasMetrics := m["metrics"]
	switch {
	case hasMetrics && (hasCols || hasMetric):
		return d.errf("table", i, "", "give either columns and metric (one metric by a parameter's values) or metrics (a column per metric), not both")
	case !hasMetrics && !hasCols && !hasMetric:
		return d.errf("table", i, "", "give columns and metric (one metric by a parameter's values) or metrics (a column per metric)")
	case hasMetric && !hasCols:
		return d.errf("table", i, "columns", "missing: metric = ... needs columns = \"PARAMETER\", whose values make the table's columns (or give metrics = [...] instead)")
	case hasCols && !hasMetric:
		return d.errf("table", i, "metric", "missing: columns = ... needs metric = \"COLUMN\", the value shown in the cells")
	}
	numeric := func(key, name string) error {
		j := colIndex(cols, name)
		if j < 0 {
			return d.errf("table", i, key, "unknown column %q (columns: %s)", name, colNames(cols))
		}
		if t := cols[j].Type; t != results.Float64 && t != results.Int64 {
			return d.errf("table", i, key, "column %q is %s: a table shows numeric (int64 or double) columns", name, t)
		}
		return nil
	}
	if hasMetrics {
		x, ok := m["metrics"].([]any)
		if !ok {
			return d.errf("table", i, "metrics", "expected a list of column names, got %s", tomlType(m["metrics"]))
		}
		if len(x) == 0 {
			return d.errf("table", i, "metrics", "empty list: name at least one metric column")
		}
		var err error
		if tb.Metrics, err = d.names(m, "table", i, "metrics"); err != nil {
			return err
		}
		for k, name := range tb.Metrics {
			if err := numeric("metrics", name); err != nil {
				return err
			}
			if contains(tb.Metrics[:k], name) {
				return d.errf("table", i, "metrics", "column %q is listed twice", name)
			}
		}
		return nil
	}
	var err error
	if tb.Columns, err = d.str(m, "table", i, "columns", true); err != nil {
		return err
	}
	if model.Index(params, tb.Columns) < 0 {
		if colIndex(cols, tb.Columns) < 0 {
			return d.errf("table", i, "columns", "unknown column %q (columns: %s)", tb.Columns, colNames(cols))
		}
		return d.errf("table", i, "columns", "%q is not a parameter: the table's columns are the values of a parameter (parameters: %s)", tb.Columns, paramNames(params))
	}
	if contains(tb.Rows, tb.Columns) {
		return d.errf("table", i, "columns", "%q is also in rows: a column varies either across rows or across columns", tb.Columns)
	}
	metric, err := d.str(m, "table", i, "metric", true)
	if err != nil {
		return err
	}
	if err := numeric("metric", metric); err != nil {
		return err
	}
	tb.Metrics = []string{metric}
	return nil
}
