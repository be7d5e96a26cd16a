package experiments_test

import (
	"fmt"
	"strings"
	"testing"

	"lbsweep/experiments"
	"lbsweep/experiments/claims"
	"lbsweep/model"
	"lbsweep/results"
)

// Both table shapes decode with their defaults, and the optional keys override them.
func TestParseTables(t *testing.T) {
	text := specBase + `
[[table]]
name = "p99"
title = "p99 sojourn time, n = 10"
rows = ["policy", "d"]
columns = "lambda"
metric = "p99_sojourn"
where = { n = 10 }

[[table]]
name = "at-09"
rows = "policy"
metrics = ["mean_sojourn", "theory_mean_sojourn", "peak_queue"]
where = { lambda = 0.9 }
stat = "mean"
alpha = 0.1
digits = 3

[[table]]
name = "one-row"
metrics = ["jobs"]
`
	s, err := parseNoPanic(t, "tables.toml", text)
	if err != nil {
		t.Fatal(err)
	}
	want := []experiments.Table{
		{Name: "p99", Title: "p99 sojourn time, n = 10", Rows: []string{"policy", "d"}, Columns: "lambda",
			Metrics: []string{"p99_sojourn"}, Stat: experiments.Median, Alpha: 0.05, Digits: 4},
		{Name: "at-09", Rows: []string{"policy"}, Metrics: []string{"mean_sojourn", "theory_mean_sojourn", "peak_queue"},
			Stat: experiments.Mean, Alpha: 0.1, Digits: 3},
		{Name: "one-row", Metrics: []string{"jobs"}, Stat: experiments.Median, Alpha: 0.05, Digits: 4},
	}
	if len(s.Tables) != len(want) {
		t.Fatalf("%d tables, want %d", len(s.Tables), len(want))
	}
	for i, w := range want {
		got := s.Tables[i]
		// Where is compared on its text; the rest field by field.
		where := fmt.Sprint(got.Where)
		got.Where = nil
		if fmt.Sprintf("%+v", got) != fmt.Sprintf("%+v", w) {
			t.Errorf("table %d = %+v\n          want %+v", i, got, w)
		}
		if i < 2 && where == "[]" {
			t.Errorf("table %d: no where conditions", i)
		}
	}
	if c := s.Tables[0].Where; len(c) != 1 || c[0].Column != "n" || c[0].Value.I != 10 {
		t.Errorf("table 0 where = %+v, want n = 10", c)
	}
	if c := s.Tables[1].Where; len(c) != 1 || c[0].Column != "lambda" || c[0].Value.F != 0.9 {
		t.Errorf("table 1 where = %+v, want lambda = 0.9", c)
	}
	// A table and a figure may share a name: their files differ (.md, .svg).
	both := specBase + "\n[[figure]]\nname = \"x\"\nkind = \"queue_tail\"\n\n[[table]]\nname = \"x\"\nmetrics = [\"jobs\"]\n"
	if _, err := parseNoPanic(t, "both.toml", both); err != nil {
		t.Errorf("a table named like a figure: %v", err)
	}
}

// A list parameter (wrr_sequence's weights) selects rows element by element, written as the point column writes it,
// and makes table rows; a list metric still does not.
func TestListParameterSelects(t *testing.T) {
	base := "name = \"l\"\nmodel = \"wrr_sequence\"\nseed = 1\n[params]\npolicy = \"smooth_wrr\"\n[sweep]\nweights = [[5, 1, 1], [3, 2]]\n"
	s, err := parseNoPanic(t, "l.toml", base+`
[[table]]
name = "t"
rows = ["weights", "policy"]
metrics = ["max_deviation"]
where = { weights = [5, 1.0, 1] }

[[expect]]
source = "s"
where = { weights = [5, 1, 1] }
metric = "longest_run"
less_than = { weights = [3, 2] }
`)
	if err != nil {
		t.Fatal(err)
	}
	c := s.Tables[0].Where
	if len(c) != 1 || c[0].Text != "[5, 1, 1]" || fmt.Sprint(c[0].Value.L) != "[5 1 1]" {
		t.Errorf("where = %+v, want weights = [5, 1, 1]", c)
	}
	if o := s.Expects[0].Other; len(o) != 1 || o[0].Text != "[3, 2]" {
		t.Errorf("less_than = %+v, want weights = [3, 2]", o)
	}
	// The claim on a two-row dataset: longest run 2 at [5, 1, 1] against 3 at [3, 2] (the selection must tell them apart).
	cols := model.Columns(s.Model)
	tb := &results.Table{Columns: cols}
	for _, r := range []struct {
		w   []float64
		run int64
	}{{[]float64{5, 1, 1}, 2}, {[]float64{3, 2}, 3}} {
		row := make(results.Row, len(cols))
		for j, col := range cols {
			switch col.Name {
			case "weights":
				row[j] = results.List(r.w)
			case "longest_run":
				row[j] = results.Int(r.run)
			}
		}
		tb.Rows = append(tb.Rows, row)
	}
	v := claims.Evaluate(s.Expects, tb)[0]
	if v.Status != claims.Inconclusive || v.Measured.N != 1 || v.Measured.Mean != 2 {
		t.Errorf("verdict %+v, want one row measuring 2 (inconclusive: one run, no CI)", v)
	}
	for _, bad := range []struct{ tail, want string }{
		{"\n[[table]]\nname = \"t\"\nrows = \"counts\"\nmetrics = [\"picks\"]\n", "column \"counts\" is a list: rows are made from scalar columns and list parameters"},
		{"\n[[table]]\nname = \"t\"\nmetrics = [\"picks\"]\nwhere = { weights = [5, \"x\"] }\n", "weights: element 2: expected a number, got a string"},
		{"\n[[table]]\nname = \"t\"\nmetrics = [\"picks\"]\nwhere = { weights = 5 }\n", "weights: expected a list<double> value, got an integer"},
	} {
		if _, err := parseNoPanic(t, "l.toml", base+bad.tail); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%q: error %v, want %q", bad.tail, err, bad.want)
		}
	}
}

// "null" selects the rows where a column is null: jsq_d's d = 2 is not the d of random (null).
func TestNullSelects(t *testing.T) {
	s, err := parseNoPanic(t, "n.toml", specBase+`
[[expect]]
source = "s"
where = { d = "null" }
metric = "jobs"
less_than = { d = 2 }
`)
	if err != nil {
		t.Fatal(err)
	}
	if c := s.Expects[0].Where; len(c) != 1 || c[0].Value.Valid || c[0].Text != "null" {
		t.Fatalf("where = %+v, want d null", c)
	}
	cols := model.Columns(s.Model)
	tb := &results.Table{Columns: cols}
	for _, r := range []struct {
		d    results.Cell
		jobs int64
	}{{results.Null(), 1}, {results.Int(2), 5}} {
		row := make(results.Row, len(cols))
		for j, col := range cols {
			switch col.Name {
			case "d":
				row[j] = r.d
			case "jobs":
				row[j] = results.Int(r.jobs)
			}
		}
		tb.Rows = append(tb.Rows, row)
	}
	if v := claims.Evaluate(s.Expects, tb)[0]; v.Status != claims.Inconclusive || v.Measured.N != 1 || v.Measured.Mean != 1 {
		t.Errorf("verdict %+v, want the one row with d null (inconclusive: one run, no CI)", v)
	}
	// On a string column too "null" selects nulls, and no policy of this grid is null: refused before the sweep.
	_, err = parseNoPanic(t, "n.toml", specBase+"\n[[table]]\nname = \"t\"\nmetrics = [\"jobs\"]\nwhere = { policy = \"null\" }\n")
	if err == nil || !strings.Contains(err.Error(), "no run has policy = null (the grid's policy: random, jsq_d)") {
		t.Errorf("policy = \"null\" on a string column: %v; want a null selection, refused as selecting no run", err)
	}
}
