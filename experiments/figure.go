package experiments

import (
	"fmt"

	"github.com/BurntSushi/toml"
	"math"
	"strings"

	"lbsweep/model"
	"lbsweep/results"
)

// FigureKind is what a [[figure]] draws.
type FigureKind uint8

// Figure kinds, as specs name them in `kind`.
const (
	// QueueTail draws a list column (y, default queue_tail: element i−1 is s_i) against i on a log y axis: simulated
	// means with confidence intervals as error bars, the theory (theory_<y>) as lines, one series per value of Series.
	QueueTail FigureKind = iota + 1
	// MetricVsParam draws the metric Y against the parameter X, one series per value of Series, with the theory
	// column as lines where it is not null.
	MetricVsParam
	// Timeseries draws one run's time series (a model.SeriesModel's second table): the series columns Ys against the
	// series column X (default "time") as step lines, a list column as one line per element; Where selects exactly one
	// run (a point and a replication), and XFrom/XTo zoom into a window of X.
	Timeseries
)

var figureKinds = map[string]FigureKind{"queue_tail": QueueTail, "metric": MetricVsParam, "timeseries": Timeseries}

// Stat is what a figure's points or a table's cells show over a grid point's replications.
type Stat uint8

// Stats, as specs name them in `stat`.
const (
	// Mean is the mean with a (1−Alpha) Student-t confidence interval: error bars in a figure (its default), "± the
	// half-width" in a table.
	Mean Stat = iota
	// Median is the median: with the range (minimum to maximum) as error bars in a figure, alone in a table (its
	// default: the seeds publish medians of 3 seeds).
	Median
)

// Figure is one [[figure]] table: what cmd/plot renders to figures/<spec name>-<Name>.svg.
type Figure struct {
	Name   string // [a-z0-9-]+
	Kind   FigureKind
	Title  string
	Where  []results.Cond // rows drawn
	Series []string       // columns whose values make the series (nulls skipped in labels); empty for one series
	X, Y   string         // MetricVsParam: columns on the axes; Timeseries: X only (a series column)
	Ys     []string       // Timeseries: the series columns drawn, one line each (a list column: one per element)
	Theory []string       // theory columns drawn as lines (the first in the series' dash, the others dotted); none: no lines
	LogX   bool
	LogY   bool
	Levels int     // QueueTail: largest i shown (0: all levels with data)
	Alpha  float64 // error bars are (1−Alpha) confidence intervals; default 0.05
	Stat   Stat
	XLabel string
	YLabel string
	// XFrom and XTo bound the part of X a Timeseries figure draws (inclusive); nil: from the first sample, to the last.
	XFrom, XTo *float64
}

// maxLevels bounds a queue_tail figure's levels (a queue of 1000 jobs is far past any stable tail worth drawing).
const maxLevels = 1000

var figureKeys = []string{"name", "kind", "title", "where", "series", "x", "y", "theory", "log_x", "log_y", "levels", "alpha", "stat", "x_label", "y_label", "x_from", "x_to"}

// Keys only some kinds take.
var (
	notTimeseriesKeys = []string{"series", "theory", "levels", "alpha", "stat", "log_x"}
	timeseriesKeys    = []string{"x_from", "x_to"}
)

func (d *decoder) figures(s *Spec, raw map[string]any) error {
	v, ok := raw["figure"]
	if !ok {
		return nil
	}
	list, ok := v.([]map[string]any)
	if !ok {
		return d.errf("", -1, "figure", "expected an array of tables ([[figure]]), got %s", tomlType(v))
	}
	cols := model.Columns(s.Model)
	names := map[string]bool{}
	for i, m := range list {
		for _, k := range sortedKeys(m) {
			if !contains(figureKeys, k) {
				return d.errf("figure", i, k, "unknown key (valid keys: %s)", strings.Join(figureKeys, ", "))
			}
		}
		f := Figure{Alpha: 0.05}
		var err error
		if f.Name, err = d.str(m, "figure", i, "name", true); err != nil {
			return err
		}
		if !nameRE.MatchString(f.Name) || names[f.Name] {
			return d.errf("figure", i, "name", "%q: need a unique name of [a-z0-9-]+ (the SVG is figures/%s-NAME.svg)", f.Name, s.Name)
		}
		names[f.Name] = true
		kind, err := d.str(m, "figure", i, "kind", true)
		if err != nil {
			return err
		}
		if f.Kind = figureKinds[kind]; f.Kind == 0 {
			return d.errf("figure", i, "kind", "unknown figure kind %q (kinds: queue_tail, metric, timeseries)", kind)
		}
		for _, sf := range []struct {
			key string
			dst *string
		}{{"title", &f.Title}, {"x_label", &f.XLabel}, {"y_label", &f.YLabel}} {
			if *sf.dst, err = d.str(m, "figure", i, sf.key, false); err != nil {
				return err
			}
		}
		if f.Kind == Timeseries {
			if err := d.timeseriesFigure(s, &f, m, i); err != nil {
				return err
			}
			s.Figures = append(s.Figures, f)
			continue
		}
		for _, k := range timeseriesKeys {
			if _, present := m[k]; present {
				return d.errf("figure", i, k, "only a timeseries figure takes %s", k)
			}
		}
		for _, sf := range []struct {
			key string
			dst *string
		}{{"x", &f.X}, {"y", &f.Y}} {
			if *sf.dst, err = d.str(m, "figure", i, sf.key, false); err != nil {
				return err
			}
		}
		for _, bf := range []struct {
			key string
			dst *bool
		}{{"log_x", &f.LogX}, {"log_y", &f.LogY}} {
			if b, present := m[bf.key]; present {
				x, ok := b.(bool)
				if !ok {
					return d.errf("figure", i, bf.key, "expected a boolean, got %s", tomlType(b))
				}
				*bf.dst = x
			}
		}
		if lv, present, err := d.integer(m, "figure", i, "levels"); err != nil {
			return err
		} else if present {
			if lv < 1 || lv > maxLevels {
				return d.errf("figure", i, "levels", "%d: need 1 ≤ levels ≤ %d", lv, maxLevels)
			}
			f.Levels = int(lv)
		}
		if a, present, err := d.number(m, "figure", i, "alpha"); err != nil {
			return err
		} else if present {
			if !(a > 0 && a < 1) {
				return d.errf("figure", i, "alpha", "%v: need 0 < alpha < 1", a)
			}
			f.Alpha = a
		}
		if f.Where, err = d.conds(cols, m, "figure", i, "where"); err != nil {
			return err
		}
		switch st, err := d.str(m, "figure", i, "stat", false); {
		case err != nil:
			return err
		case st == "median":
			f.Stat = Median
		case st != "" && st != "mean":
			return d.errf("figure", i, "stat", "unknown stat %q (mean: CI bars; median: min-max bars)", st)
		}
		if f.Series, err = d.names(m, "figure", i, "series"); err != nil {
			return err
		}
		if f.Theory, err = d.names(m, "figure", i, "theory"); err != nil {
			return err
		}
		switch f.Kind {
		case QueueTail:
			if f.Y == "" {
				f.Y = "queue_tail"
			}
			if j := colIndex(cols, f.Y); j >= 0 && cols[j].Type != results.Float64List {
				return d.errf("figure", i, "y", "column %q is %s: a queue_tail figure draws a list column (queue_tail, load_tail) against its level", f.Y, cols[j].Type)
			}
			if _, present := m["theory"]; !present && colIndex(cols, "theory_"+f.Y) >= 0 {
				f.Theory = []string{"theory_" + f.Y}
			}
			if f.X != "" {
				return d.errf("figure", i, "x", "a queue_tail figure has the level i on its x axis: remove x")
			}
		case MetricVsParam:
			if f.X == "" || f.Y == "" {
				return d.errf("figure", i, "", "a metric figure needs x (a parameter column) and y (a metric column)")
			}
			if _, present := m["theory"]; !present && colIndex(cols, "theory_"+f.Y) >= 0 {
				f.Theory = []string{"theory_" + f.Y}
			}
		}
		checks := []struct{ key, name string }{{"x", f.X}, {"y", f.Y}}
		for _, sc := range f.Series {
			checks = append(checks, struct{ key, name string }{"series", sc})
		}
		for _, tc := range f.Theory {
			checks = append(checks, struct{ key, name string }{"theory", tc})
		}
		for _, c := range checks {
			if c.name == "" {
				continue
			}
			j := colIndex(cols, c.name)
			if j < 0 {
				return d.errf("figure", i, c.key, "unknown column %q (columns: %s)", c.name, colNames(cols))
			}
			numeric := cols[j].Type == results.Float64 || cols[j].Type == results.Int64
			switch {
			case (c.key == "x" || c.key == "y" || c.key == "theory") && f.Kind == MetricVsParam && !numeric:
				return d.errf("figure", i, c.key, "column %q is %s: a metric figure needs a numeric column", c.name, cols[j].Type)
			case c.key == "theory" && f.Kind == QueueTail && cols[j].Type != results.Float64List:
				return d.errf("figure", i, c.key, "column %q is %s: a queue_tail figure's theory is a list column such as theory_queue_tail", c.name, cols[j].Type)
			case c.key == "series" && cols[j].Type == results.Float64List && model.Index(s.Model.Params(), c.name) < 0:
				return d.errf("figure", i, c.key, "column %q is a list: series are made from scalar columns and list parameters", c.name)
			}
		}
		s.Figures = append(s.Figures, f)
	}
	return nil
}

// timeseriesFigure decodes the keys of figure i (m), a timeseries figure, into f, after its name, kind, title and
// labels: the model must be a SeriesModel, x and y its series columns, where a selection of runs by identity and
// parameter columns (that it selects exactly one run is checked on the grid, by checkTimeseries).
func (d *decoder) timeseriesFigure(s *Spec, f *Figure, m map[string]any, i int) error {
	sm, ok := s.Model.(model.SeriesModel)
	if !ok {
		return d.errf("figure", i, "kind", "model %s has no time series: a timeseries figure needs a model with a time-series table", s.Model.Name())
	}
	for _, k := range notTimeseriesKeys {
		if _, present := m[k]; present {
			return d.errf("figure", i, k, "a timeseries figure draws the samples of one run: it takes no %s", k)
		}
	}
	if b, present := m["log_y"]; present {
		x, ok := b.(bool)
		if !ok {
			return d.errf("figure", i, "log_y", "expected a boolean, got %s", tomlType(b))
		}
		f.LogY = x
	}
	series := sm.SeriesColumns()
	if w, ok := m["where"].(map[string]any); ok {
		for _, k := range sortedKeys(w) {
			if colIndex(series, k) >= 0 {
				return d.errf("figure", i, "where", "%s is a series column: where selects the run by its identity and parameters (x_from and x_to zoom into its time)", k)
			}
		}
	}
	var err error
	if f.Where, err = d.conds(model.SeriesColumns(sm)[:model.IdentityColumns+len(s.Model.Params())], m, "figure", i, "where"); err != nil {
		return err
	}
	numeric := func(t results.Type) bool { return t == results.Float64 || t == results.Int64 }
	if f.X, err = d.str(m, "figure", i, "x", false); err != nil {
		return err
	}
	if f.X == "" {
		if colIndex(series, "time") < 0 {
			return d.errf("figure", i, "x", "missing: the time series of model %s has no time column (series columns: %s)", s.Model.Name(), colNames(series))
		}
		f.X = "time"
	}
	if j := colIndex(series, f.X); j < 0 {
		return d.errf("figure", i, "x", "unknown series column %q (series columns: %s)", f.X, colNames(series))
	} else if !numeric(series[j].Type) {
		return d.errf("figure", i, "x", "series column %q is %s: x needs a numeric column", f.X, series[j].Type)
	}
	if f.Ys, err = d.names(m, "figure", i, "y"); err != nil {
		return err
	}
	if len(f.Ys) == 0 {
		return d.errf("figure", i, "y", "missing: the series columns to draw, e.g. y = [%q] (series columns: %s)", series[len(series)-1].Name, colNames(series))
	}
	for k, y := range f.Ys {
		j := colIndex(series, y)
		switch {
		case j < 0:
			return d.errf("figure", i, "y", "unknown series column %q (series columns: %s)", y, colNames(series))
		case !numeric(series[j].Type) && series[j].Type != results.Float64List:
			return d.errf("figure", i, "y", "series column %q is %s: y needs numeric or list<double> columns", y, series[j].Type)
		case contains(f.Ys[:k], y):
			return d.errf("figure", i, "y", "%q is listed twice", y)
		}
	}
	for _, b := range []struct {
		key string
		dst **float64
	}{{"x_from", &f.XFrom}, {"x_to", &f.XTo}} {
		v, present, err := d.number(m, "figure", i, b.key)
		if err != nil {
			return err
		}
		if present {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return d.errf("figure", i, b.key, "%v: need a finite number", v)
			}
			*b.dst = &v
		}
	}
	if f.XFrom != nil && f.XTo != nil && !(*f.XFrom < *f.XTo) {
		return d.errf("figure", i, "x_to", "%v: need x_from < x_to (x_from = %v)", *f.XTo, *f.XFrom)
	}
	return nil
}

// checkTimeseries checks, on the expanded grid, that the where of every timeseries figure selects exactly one run.
func (d *decoder) checkTimeseries(s *Spec) error {
	for i, f := range s.Figures {
		if f.Kind != Timeseries {
			continue
		}
		switch n, varying := s.selectRuns(f.Where); {
		case n == 0:
			return d.errf("figure", i, "where", "figure %q: selects no run of the grid", f.Name)
		case n > 1:
			return d.errf("figure", i, "where", "figure %q: selects %d runs, and a timeseries figure draws one: these columns still vary: %s (give them in where)", f.Name, n, strings.Join(varying, ", "))
		}
	}
	return nil
}

// selectRuns counts the runs of s whose identity and parameter columns match where, and names the columns among
// replication and the parameters whose values differ between those runs, in column order.
func (s *Spec) selectRuns(where []results.Cond) (int, []string) {
	cols := model.Columns(s.Model)[:model.IdentityColumns+len(s.Model.Params())]
	var first results.Row
	varies := make([]bool, len(cols))
	n := 0
	s.walkRuns(where, true, func(row results.Row) bool {
		if n++; first == nil {
			first = append(results.Row(nil), row...)
			return true
		}
		for c := range cols {
			if !varies[c] && !results.Equal(cols[c].Type, row[c], first[c]) {
				varies[c] = true
			}
		}
		return true
	})
	var names []string
	for c, v := range varies {
		if v && c != colPoint && c != colSeed { // they vary with the others
			names = append(names, cols[c].Name)
		}
	}
	return n, names
}

// The identity columns' indices (model.IdentityColumns).
const (
	colExperiment = iota
	colPoint
	colReplication
	colSeed
)

// walkRuns calls fn with the identity and parameter cells of each run of s that matches where (conditions on those
// columns), in run order, until fn returns false. perRun walks every replication; otherwise only replication 0 of
// each point is looked at (enough when where names neither replication nor seed), and the point and seed cells are
// filled only when where names them. The row is reused between calls.
func (s *Spec) walkRuns(where []results.Cond, perRun bool, fn func(row results.Row) bool) {
	ps := s.Model.Params()
	cols := model.Columns(s.Model)[:model.IdentityColumns+len(ps)]
	idx := make([]int, len(where))
	needPoint, needSeed := perRun, perRun // a caller that sees every run gets every cell
	for k, c := range where {
		idx[k] = colIndex(cols, c.Column)
		perRun = perRun || idx[k] == colReplication || idx[k] == colSeed
		needPoint = needPoint || idx[k] == colPoint
		needSeed = needSeed || idx[k] == colSeed
	}
	row := make(results.Row, len(cols))
	row[colExperiment] = results.Str(s.Name)
	reps := 1
	if perRun {
		reps = s.Replications
	}
	for p := range s.Points() {
		pt, _ := s.Point(p)
		if needPoint {
			row[colPoint] = results.Str(Key(ps, pt))
		}
		for k, prm := range ps {
			row[model.IdentityColumns+k] = prm.Cell(pt[k])
		}
		for r := range reps {
			row[colReplication] = results.Int(int64(r))
			if needSeed {
				row[colSeed] = results.Int(int64(RunSeed(s.Seed, ps, pt, r).Run))
			}
			match := true
			for k, c := range where {
				if idx[k] < 0 || !results.Equal(cols[idx[k]].Type, row[idx[k]], c.Value) {
					match = false
					break
				}
			}
			if match && !fn(row) {
				return
			}
		}
	}
}

// names decodes a column name or a list of them ("" and [] mean none).
func (d *decoder) names(m map[string]any, table string, idx int, key string) ([]string, error) {
	switch x := m[key].(type) {
	case nil:
		return nil, nil
	case string:
		if x == "" {
			return nil, nil
		}
		return []string{x}, nil
	case []any:
		var out []string
		for _, e := range x {
			name, ok := e.(string)
			if !ok {
				return nil, d.errf(table, idx, key, "expected column names, got %s", tomlType(e))
			}
			out = append(out, name)
		}
		return out, nil
	default:
		return nil, d.errf(table, idx, key, "expected a column name or a list of them, got %s", tomlType(x))
	}
}

func colIndex(cols []results.Column, name string) int {
	for i, c := range cols {
		if c.Name == name {
			return i
		}
	}
	return -1
}

func colNames(cols []results.Column) string {
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.Name
	}
	return strings.Join(names, ", ")
}

// conds decodes a row selection: an inline table column = value, typed by the column.
func (d *decoder) conds(cols []results.Column, m map[string]any, table string, idx int, key string) ([]results.Cond, error) {
	v, present := m[key]
	if !present {
		return nil, nil
	}
	t, ok := v.(map[string]any)
	if !ok {
		return nil, d.errf(table, idx, key, "expected an inline table { column = value, ... }, got %s", tomlType(v))
	}
	var out []results.Cond
	for _, k := range sortedKeys(t) {
		j := colIndex(cols, k)
		if j < 0 {
			return nil, d.errf(table, idx, key, "unknown column %q (columns: %s)", k, colNames(cols))
		}
		if pi := model.Index(d.modelParams, k); pi >= 0 && d.modelParams[pi].Kind == model.Records {
			// A list-of-tables parameter is selected by its canonical text: written as the list itself, or as a
			// string in any TOML spelling; both are decoded with the field defaults and printed as the column holds it.
			x := t[k]
			if str, isStr := x.(string); isStr {
				var doc map[string]any
				if _, err := toml.Decode("v = "+str, &doc); err != nil {
					return nil, d.errf(table, idx, key, "%s: %q is not a list of tables: %v", k, str, err)
				}
				x = doc["v"]
			}
			val, msg := value(d.modelParams[pi], x)
			if msg != "" {
				return nil, d.errf(table, idx, key, "%s: %s", k, msg)
			}
			text := d.modelParams[pi].Format(val)
			out = append(out, results.Cond{Column: k, Value: results.Str(text), Text: text})
			continue
		}
		cell, msg := cellOf(cols[j].Type, t[k])
		if msg != "" {
			return nil, d.errf(table, idx, key, "%s: %s", k, msg)
		}
		text := fmt.Sprint(t[k])
		if cell.Valid && cols[j].Type == results.Float64List {
			text = model.Param{Kind: model.List}.Format(model.ListValue(cell.L)) // "[5, 1, 1]", as the point column writes it
		}
		out = append(out, results.Cond{Column: k, Value: cell, Text: text})
	}
	return out, nil
}

func cellOf(t results.Type, v any) (results.Cell, string) {
	// TOML has no null: "null" selects the rows where the column is null (d = "null": the policies that take no d,
	// or a scoring policy scanning every server; observe = "null": the policies that take no observe). No column
	// holds the string "null": names are snake_case choices, never that word.
	if s, ok := v.(string); ok && s == "null" {
		return results.Null(), ""
	}
	switch t {
	case results.Int64:
		if x, ok := v.(int64); ok {
			return results.Int(x), ""
		}
	case results.Float64:
		switch x := v.(type) {
		case int64:
			return results.Float(float64(x)), ""
		case float64:
			return results.Float(x), ""
		}
	case results.Bool:
		if x, ok := v.(bool); ok {
			return results.Boolean(x), ""
		}
	case results.String:
		if x, ok := v.(string); ok {
			return results.Str(x), ""
		}
	case results.Float64List:
		// A list of numbers selects the rows whose list is equal element by element (a List parameter such as
		// weights = [5, 1, 1]).
		if xs, ok := v.([]any); ok {
			l := make([]float64, len(xs))
			for i, x := range xs {
				switch y := x.(type) {
				case int64:
					l[i] = float64(y)
				case float64:
					l[i] = y
				default:
					return results.Cell{}, fmt.Sprintf("element %d: expected a number, got %s", i+1, tomlType(x))
				}
			}
			return results.List(l), ""
		}
	default:
		return results.Cell{}, fmt.Sprintf("a %s column cannot select rows", t)
	}
	return results.Cell{}, fmt.Sprintf("expected a %s value, got %s", t, tomlType(v))
}
