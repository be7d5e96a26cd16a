package render

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"lbsweep/experiments"
	"lbsweep/experiments/claims"
	"lbsweep/results"
)

// UnstableColumn is the boolean column that marks a run as unstable (some server's arrival rate at or above its
// service rate). Any dataset that has it gets the marks; the column is optional.
const UnstableColumn = "unstable"

// UnstableNote is the footnote of a table with a cell marked "†" (a cell holding a run whose UnstableColumn is true).
const UnstableNote = "† unstable: some server's arrival rate is at or above its service rate; the value grows with the horizon and is not a steady-state statistic."

// noValue is what a cell with no (non-null) value shows.
const noValue = "–"

// tableCol is one column of a rendered table: its header and which metric of which dataset rows fills it.
type tableCol struct {
	header string
	metric int    // index of the metric column in the dataset
	key    string // by parameter: the parameter's value (see valueKey) of the rows that fill the column
}

// Table is a [[table]] of a spec computed from its dataset, as text: what WriteTable writes as Markdown and
// HTMLReport as an HTML table. Every row has len(Header) cells; the text is plain (not escaped for any markup).
type Table struct {
	Title    string     // the spec's title for the table, or NAME-TABLE when it has none
	Where    string     // the table's selection as claims.RowsText writes it, or "" when it takes every run
	Header   []string   // the statistic and its sample size ("mean ± 95% CI of 3 runs"), then each column's header
	Rows     [][]string // the row's label ("all" for the one row of a table without rows), then its statistics
	Unstable bool       // some cell is marked "†": UnstableNote is the table's footnote
}

// MakeTable computes table tb of spec s from the dataset t. The first header cell names the statistic and its
// sample size ("median of 3 runs", "mean ± 95% CI of 3 runs"; by parameter, preceded by the metric); the cells are
// shown to tb.Digits significant digits (an integer-valued statistic of an int64 column exactly), "–" where a cell
// has no value, with "†" after a cell holding an unstable run. The result depends only on s, tb and t. It returns an
// error when no row matches the selection or the dataset lacks a column the table names.
func MakeTable(s *experiments.Spec, tb experiments.Table, t *results.Table) (Table, error) {
	if err := checkColumns(tb, t); err != nil {
		return Table{}, fmt.Errorf("table %s: %w", tb.Name, err)
	}
	rows := t.Where(tb.Where)
	if len(rows) == 0 {
		return Table{}, fmt.Errorf("table %s: no rows match the table's selection", tb.Name)
	}
	order, by := group(t, rows, tb.Rows)

	var cols []tableCol
	pcol := -1
	if tb.Columns != "" {
		pcol = t.Col(tb.Columns)
		m := t.Col(tb.Metrics[0])
		for _, v := range distinct(t, rows, pcol) {
			cols = append(cols, tableCol{header: tb.Columns + " = " + v, metric: m, key: v})
		}
	} else {
		for _, name := range tb.Metrics {
			cols = append(cols, tableCol{header: name, metric: t.Col(name)})
		}
	}
	unstable := t.Col(UnstableColumn)
	if unstable >= 0 && t.Columns[unstable].Type != results.Bool {
		unstable = -1
	}

	out := Table{Title: tb.Title, Rows: make([][]string, len(order))}
	minN, maxN := math.MaxInt, 0
	for i, label := range order {
		if label == "" {
			label = "all"
		}
		out.Rows[i] = append(make([]string, 0, 1+len(cols)), label)
		for _, c := range cols {
			var xs []float64
			mark := false
			for _, r := range by[order[i]] {
				if pcol >= 0 && valueKey(t, r, pcol) != c.key {
					continue
				}
				xs = append(xs, num(t, r, c.metric, 0, math.NaN()))
				if unstable >= 0 && t.Rows[r][unstable].Valid && t.Rows[r][unstable].B {
					mark = true
				}
			}
			text, n := cellStat(xs, tb, t.Columns[c.metric].Type == results.Int64)
			if n > 0 {
				minN, maxN = min(minN, n), max(maxN, n)
			}
			if mark {
				text += "†"
				out.Unstable = true
			}
			out.Rows[i] = append(out.Rows[i], text)
		}
	}
	if out.Title == "" {
		out.Title = s.Name + "-" + tb.Name
	}
	if len(tb.Where) > 0 {
		out.Where = claims.RowsText(tb.Where)
	}
	head := statHeader(tb, minN, maxN)
	if tb.Columns != "" {
		head = tb.Metrics[0] + ": " + head
	}
	out.Header = append(out.Header, head)
	for _, c := range cols {
		out.Header = append(out.Header, c.header)
	}
	return out, nil
}

// WriteTable writes table tb of spec s from the dataset t to w as GitHub Markdown (see MakeTable, and
// Table.WriteMarkdown for the layout). The output depends only on s, tb and t, so it is byte-identical across runs.
// It returns MakeTable's errors.
func WriteTable(s *experiments.Spec, tb experiments.Table, t *results.Table, w io.Writer) error {
	out, err := MakeTable(s, tb, t)
	if err != nil {
		return err
	}
	out.WriteMarkdown(w)
	return nil
}

// WriteMarkdown writes the table to w as GitHub Markdown: a "### " heading (its title), "Runs where SELECTION." when
// it has a selection, the table (the first column left-aligned, the statistics right-aligned, cells escaped with
// claims.MarkdownCell), and the UnstableNote when a cell is marked.
func (tt Table) WriteMarkdown(w io.Writer) {
	fmt.Fprintf(w, "### %s\n\n", claims.MarkdownCell(tt.Title))
	if tt.Where != "" {
		fmt.Fprintf(w, "Runs where %s.\n\n", claims.MarkdownCell(tt.Where))
	}
	row := func(cells []string) {
		fmt.Fprint(w, "|")
		for _, c := range cells {
			fmt.Fprintf(w, " %s |", claims.MarkdownCell(c))
		}
		fmt.Fprintln(w)
	}
	row(tt.Header)
	fmt.Fprintf(w, "|---|%s\n", strings.Repeat("---:|", len(tt.Header)-1))
	for _, r := range tt.Rows {
		row(r)
	}
	if tt.Unstable {
		fmt.Fprintf(w, "\n%s\n", UnstableNote)
	}
}

// checkColumns reports the first column tb names that t lacks (a dataset written by another model version).
func checkColumns(tb experiments.Table, t *results.Table) error {
	names := append(append(append([]string(nil), tb.Rows...), tb.Metrics...), condColumns(tb.Where)...)
	if tb.Columns != "" {
		names = append(names, tb.Columns)
	}
	for _, name := range names {
		if t.Col(name) < 0 {
			return fmt.Errorf("the dataset has no column %q", name)
		}
	}
	return nil
}

func condColumns(cs []results.Cond) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Column
	}
	return out
}

// valueKey is row r's value of column col as text ("null" for null), the key of its table column.
func valueKey(t *results.Table, r, col int) string {
	c := t.Rows[r][col]
	if !c.Valid {
		return "null"
	}
	return cellText(t.Columns[col].Type, c)
}

// distinct returns the values of column col over rows as keys (see valueKey): numbers ascending, other values in
// order of first appearance, null last.
func distinct(t *results.Table, rows []int, col int) []string {
	seen := map[string]bool{}
	var keys []string
	var nums []results.Cell
	null := false
	for _, r := range rows {
		k := valueKey(t, r, col)
		if seen[k] {
			continue
		}
		seen[k] = true
		switch c := t.Rows[r][col]; {
		case !c.Valid:
			null = true
		case t.Columns[col].Type == results.Int64 || t.Columns[col].Type == results.Float64:
			nums = append(nums, c)
		default:
			keys = append(keys, k)
		}
	}
	ty := t.Columns[col].Type
	sort.SliceStable(nums, func(i, j int) bool {
		if ty == results.Int64 {
			return nums[i].I < nums[j].I
		}
		return nums[i].F < nums[j].F
	})
	for _, c := range nums {
		keys = append(keys, cellText(ty, c))
	}
	if null {
		keys = append(keys, "null")
	}
	return keys
}

// cellStat reduces a cell's values (NaN for null, skipped) to its text and the number of values used: the median,
// or the mean ± the (1−Alpha) CI half-width (two significant digits; no half-width from one value).
func cellStat(xs []float64, tb experiments.Table, integer bool) (string, int) {
	v := sortedValues(xs)
	if len(v) == 0 {
		return noValue, 0
	}
	if tb.Stat == experiments.Median {
		return number(median(v), tb.Digits, integer), len(v)
	}
	e := claims.MeanCI(v, tb.Alpha)
	if math.IsNaN(e.Half) {
		return number(e.Mean, tb.Digits, integer), e.N
	}
	return number(e.Mean, tb.Digits, integer) + " ± " + number(e.Half, 2, false), e.N
}

// statHeader names the statistic and how many runs each cell summarizes ("median of 3 runs", "mean ± 95% CI of 2–3
// runs").
func statHeader(tb experiments.Table, minN, maxN int) string {
	stat := "median"
	if tb.Stat == experiments.Mean {
		stat = "mean"
		if maxN >= 2 {
			stat = "mean ± " + strconv.FormatFloat(100*(1-tb.Alpha), 'g', 6, 64) + "% CI"
		}
	}
	switch {
	case maxN == 0:
		return stat + " (no values)"
	case minN == maxN && maxN == 1:
		return stat + " of 1 run"
	case minN == maxN:
		return fmt.Sprintf("%s of %d runs", stat, maxN)
	}
	return fmt.Sprintf("%s of %d–%d runs", stat, minN, maxN)
}

// number formats x to digits significant digits: fixed-point (trailing zeros kept, they are significant) for
// 1e-4 ≤ |x| < 1e9, else in exponent form; integer-valued x exactly when integer (a count's median or mean);
// "∞" and "−∞" for infinities.
func number(x float64, digits int, integer bool) string {
	switch {
	case math.IsInf(x, 1):
		return "∞"
	case math.IsInf(x, -1):
		return "−∞"
	case math.IsNaN(x):
		return noValue
	case x == 0:
		return "0"
	case integer && x == math.Trunc(x) && math.Abs(x) < 1<<53:
		return strconv.FormatInt(int64(x), 10)
	}
	e := strconv.FormatFloat(x, 'e', digits-1, 64) // rounded first, so 9.9996 at 4 digits has exponent 1
	exp, _ := strconv.Atoi(e[strings.IndexByte(e, 'e')+1:])
	if exp < -4 || exp >= 9 {
		return e
	}
	rounded, _ := strconv.ParseFloat(e, 64)
	return strconv.FormatFloat(rounded, 'f', max(digits-1-exp, 0), 64)
}
