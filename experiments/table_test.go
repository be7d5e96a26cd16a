package experiments_test

import (
	"fmt"
	"testing"

	"lbsweep/experiments"
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
