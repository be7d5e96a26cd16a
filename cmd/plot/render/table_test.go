package render

import (
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"lbsweep/experiments"
	"lbsweep/experiments/claims"
	"lbsweep/model"
	"lbsweep/results"
)

// tabSpec is figSpec's grid (lambda 0.5, 0.9 × random, jsq_d d = 2; 2 replications) with a table of each shape and
// one over an integer parameter with nulls (d is null for random).
const tabSpec = `name = "tab"
model = "supermarket"
seed = 1
replications = 2
[params]
n = 10
horizon = 100.0
warmup = 10.0
[sweep]
lambda = [0.9, 0.5]
policy = ["random", { name = "jsq_d", d = 2 }]

[[table]]
name = "by-lambda"
title = "mean sojourn time | n = 10"
rows = ["policy", "d"]
columns = "lambda"
metric = "mean_sojourn"

[[table]]
name = "at-09"
rows = "policy"
metrics = ["mean_sojourn", "theory_mean_sojourn", "peak_queue", "p99_sojourn"]
where = { lambda = 0.9 }
stat = "mean"
digits = 3

[[table]]
name = "by-d"
title = "peak queue by d"
rows = "lambda"
columns = "d"
metric = "peak_queue"
`

// tabTable is the synthetic dataset of figure tests for s, with peak_queue = 10·λ + replication (an integer column
// whose medians are half-integers) and p99_sojourn null everywhere.
func tabTable(t *testing.T, s *experiments.Spec) *results.Table {
	tb := table(t, s)
	lam, peak := tb.Col("lambda"), tb.Col("peak_queue")
	for i, row := range tb.Rows {
		row[peak] = results.Int(int64(math.Round(10*row[lam].F)) + int64(i%2))
	}
	return tb
}

// golden compares got with testdata/name (rewriting it under -update).
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./cmd/plot/render -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from %s (inspect, then go test ./cmd/plot/render -update):\n%s", name, path, got)
	}
}

func TestGoldenTables(t *testing.T) {
	s, err := experiments.Parse("tab.toml", tabSpec)
	if err != nil {
		t.Fatal(err)
	}
	data := tabTable(t, s)
	for _, tb := range s.Tables {
		var a, b bytes.Buffer
		if err := WriteTable(s, tb, data, &a); err != nil {
			t.Fatalf("%s: %v", tb.Name, err)
		}
		if err := WriteTable(s, tb, data, &b); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Errorf("%s: two renderings differ", tb.Name)
		}
		if strings.Contains(a.String(), "NaN") || strings.Contains(a.String(), "†") {
			t.Errorf("%s: NaN or an unstable mark in a stable table:\n%s", tb.Name, a.String())
		}
		golden(t, "table-"+tb.Name+".md", a.Bytes())
	}
}

// A bool column named unstable marks every cell holding an unstable run with a dagger, and adds the footnote once;
// the dagger goes to the cell, not the row.
func TestUnstableMarks(t *testing.T) {
	s, err := experiments.Parse("tab.toml", tabSpec)
	if err != nil {
		t.Fatal(err)
	}
	data := tabTable(t, s)
	uc := data.Col(UnstableColumn) // the supermarket schema has it; a schema without one gets it appended
	if uc < 0 {
		data.Columns = append(data.Columns, results.Column{Name: UnstableColumn, Type: results.Bool})
		uc = len(data.Columns) - 1
		for i := range data.Rows {
			data.Rows[i] = append(data.Rows[i], results.Null())
		}
	}
	lam, pol := data.Col("lambda"), data.Col("policy")
	for i := range data.Rows { // rows are in run order: replication i%2
		// Unstable: random at λ = 0.9, replication 1 only (one run of the cell suffices); null elsewhere for jsq_d.
		u := results.Boolean(data.Rows[i][lam].F == 0.9 && data.Rows[i][pol].S == "random" && i%2 == 1)
		if data.Rows[i][pol].S == "jsq_d" && data.Rows[i][lam].F == 0.5 {
			u = results.Null()
		}
		data.Rows[i][uc] = u
	}
	var buf bytes.Buffer
	if err := WriteTable(s, s.Tables[0], data, &buf); err != nil {
		t.Fatal(err)
	}
	got := buf.String()
	if n := strings.Count(got, "†"); n != 2 { // the marked cell and the footnote
		t.Errorf("%d daggers, want 2 (one cell, one footnote):\n%s", n, got)
	}
	if !strings.Contains(got, "| random | 2.010 | 10.05† |") {
		t.Errorf("random at lambda = 0.9 is not marked:\n%s", got)
	}
	if !strings.HasSuffix(got, "\n\n"+UnstableNote+"\n") {
		t.Errorf("no footnote at the end:\n%s", got)
	}
	golden(t, "table-unstable.md", buf.Bytes())

	// A column named unstable that is not a bool is not a mark.
	data.Columns[uc].Type = results.String
	buf.Reset()
	if err := WriteTable(s, s.Tables[0], data, &buf); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), "†") {
		t.Errorf("a string column named unstable marks cells:\n%s", buf.String())
	}
}

func TestTableErrors(t *testing.T) {
	s, err := experiments.Parse("tab.toml", tabSpec)
	if err != nil {
		t.Fatal(err)
	}
	data := tabTable(t, s)
	none := s.Tables[1]
	none.Where = []results.Cond{{Column: "lambda", Value: results.Float(0.7), Text: "0.7"}}
	if err := WriteTable(s, none, data, &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "no rows match") {
		t.Errorf("no matching rows: err = %v", err)
	}
	other := s.Tables[1]
	other.Metrics = []string{"mean_sojourn", "load_tail"}
	if err := WriteTable(s, other, data, &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), `no column "load_tail"`) {
		t.Errorf("missing column: err = %v", err)
	}
}

func TestNumber(t *testing.T) {
	for _, tc := range []struct {
		x       float64
		digits  int
		integer bool
		want    string
	}{
		{2.65, 3, false, "2.65"},
		{2.65, 4, false, "2.650"},
		{9.9996, 4, false, "10.00"},
		{46.0517, 4, false, "46.05"},
		{12345.6, 4, false, "12350"},
		{0.00012345, 3, false, "0.000123"},
		{0.000012345, 3, false, "1.23e-05"},
		{2.5e9, 4, false, "2.500e+09"},
		{0, 4, false, "0"},
		{42, 4, true, "42"},
		{123456, 4, true, "123456"},
		{4.5, 4, true, "4.500"},
		{-0.5, 2, false, "-0.50"},
		{math.Inf(1), 4, false, "∞"},
		{math.NaN(), 4, false, "–"},
	} {
		if got := number(tc.x, tc.digits, tc.integer); got != tc.want {
			t.Errorf("number(%v, %d, %v) = %q, want %q", tc.x, tc.digits, tc.integer, got, tc.want)
		}
	}
}

// The report holds each table's Markdown (as WriteTable writes the NAME-TABLE.md files) after the figures and before
// the claims, in spec order, byte-identical on a rerun.
func TestReportHoldsTables(t *testing.T) {
	text := tabSpec + "\n[[figure]]\nname = \"mean\"\nkind = \"metric\"\nx = \"lambda\"\ny = \"mean_sojourn\"\nseries = \"policy\"\n" +
		"\n[[expect]]\nsource = \"s\"\nmetric = \"mean_sojourn\"\nwhere = { lambda = 0.5 }\napprox = 2.01\ntol = 0.01\n"
	s, err := experiments.Parse("tab.toml", text)
	if err != nil {
		t.Fatal(err)
	}
	data := tabTable(t, s)
	sec := Section{Spec: s, Figures: []string{"tab-mean.svg"}, Verdicts: claims.Evaluate(s.Expects, data)}
	var tables []string
	for _, tb := range s.Tables {
		var buf bytes.Buffer
		if err := WriteTable(s, tb, data, &buf); err != nil {
			t.Fatal(err)
		}
		tab, err := MakeTable(s, tb, data)
		if err != nil {
			t.Fatal(err)
		}
		sec.Tables = append(sec.Tables, tab)
		tables = append(tables, buf.String())
	}
	var a, b bytes.Buffer
	Report(&a, []Section{sec})
	Report(&b, []Section{sec})
	if a.String() != b.String() {
		t.Error("REPORT.md differs between two runs")
	}
	report := a.String()
	fig, verdicts := strings.Index(report, "![tab-mean.svg]"), strings.Index(report, "| source |")
	last := -1
	for k, md := range tables { // in spec order
		i := strings.Index(report, md)
		if i < 0 {
			t.Fatalf("REPORT.md does not hold table %s:\n%s", s.Tables[k].Name, report)
		}
		if i < fig || i > verdicts || i < last {
			t.Errorf("table %s is at %d: want after the figure (%d), before the claims (%d), after the previous table (%d)", s.Tables[k].Name, i, fig, verdicts, last)
		}
		last = i
	}
}

// listSpec sweeps a list parameter (wrr_sequence's weights): its values label table rows as "weights=[5, 1, 1]" and
// select rows.
const listSpec = `name = "lst"
model = "wrr_sequence"
seed = 1
[sweep]
weights = [[5, 1, 1], [3, 2]]
policy = ["smooth_wrr", "wrr_expanded"]

[[table]]
name = "smooth"
rows = ["weights", "policy"]
metrics = ["max_deviation", "longest_run"]

[[table]]
name = "by-policy"
rows = "weights"
columns = "policy"
metric = "max_deviation"

[[table]]
name = "five"
rows = "policy"
metrics = ["longest_run"]
where = { weights = [5, 1, 1] }
`

// runTable runs every run of s with its model (fast, deterministic models only).
func runTable(t *testing.T, s *experiments.Spec) *results.Table {
	tb := &results.Table{Columns: model.Columns(s.Model)}
	for i := range s.Runs() {
		r := s.Run(i)
		row := results.Row{results.Str(s.Name), results.Str(r.Key), results.Int(int64(r.Replication)), results.Int(int64(r.Seed.Run))}
		for k, p := range s.Model.Params() {
			row = append(row, p.Cell(r.Point[k]))
		}
		cells, err := model.RunRow(context.Background(), s.Model, r.Point, r.Seed)
		if err != nil {
			t.Fatal(err)
		}
		tb.Rows = append(tb.Rows, append(row, cells...))
	}
	return tb
}

func TestListParameterTables(t *testing.T) {
	s, err := experiments.Parse("lst.toml", listSpec)
	if err != nil {
		t.Fatal(err)
	}
	data := runTable(t, s)
	var all bytes.Buffer
	for _, tb := range s.Tables {
		if err := WriteTable(s, tb, data, &all); err != nil {
			t.Fatalf("%s: %v", tb.Name, err)
		}
		all.WriteString("\n")
	}
	for _, want := range []string{
		"| weights=[5, 1, 1] smooth_wrr | 0.5714 | 2 |",
		"| weights=[3, 2] wrr_expanded | 1.200 | 3 |",
		"| weights=[5, 1, 1] | 0.5714 | 1.429 |",
		"Runs where weights = [5, 1, 1].",
		"| wrr_expanded | 5 |",
	} {
		if !strings.Contains(all.String(), want) {
			t.Errorf("no %q in\n%s", want, all.String())
		}
	}
	golden(t, "table-list.md", all.Bytes())
}
