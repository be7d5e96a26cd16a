package claims_test

import (
	"testing"

	"lbsweep/experiments"
	"lbsweep/experiments/claims"
	"lbsweep/model"
	"lbsweep/results"
)

// claimTable builds a supermarket-schema table with the given rows: policy name, mean sojourn and unstable flag.
func claimTable(t *testing.T, s *experiments.Spec, rows []struct {
	pol      string
	mean     float64
	unstable bool
}) *results.Table {
	t.Helper()
	cols := model.Columns(s.Model)
	tb := &results.Table{Columns: cols}
	for _, r := range rows {
		row := make(results.Row, len(cols))
		row[tb.Col("policy")] = results.Str(r.pol)
		row[tb.Col("mean_sojourn")] = results.Float(r.mean)
		row[tb.Col("unstable")] = results.Boolean(r.unstable)
		tb.Rows = append(tb.Rows, row)
	}
	return tb
}

// A boolean metric counts as 1 (true) or 0; a ratio claim passes when its bounds meet the ratio's delta-method CI.
func TestClaimsBooleanAndRatioCI(t *testing.T) {
	spec := `name = "c"
model = "supermarket"
seed = 1
replications = 3
[params]
n = 10
lambda = 0.5
horizon = 10.0
[sweep]
policy = ["random", "jsq"]

[[expect]]
source = "random is flagged"
where = { policy = "random" }
metric = "unstable"
approx = 1
tol = 0

[[expect]]
source = "ratio 2 ± CI meets [2.1, 3]"
where = { policy = "random" }
metric = "mean_sojourn"
ratio = { where = { policy = "jsq" }, min = 2.1, max = 3 }

[[expect]]
source = "jsq below the constant 1.5"
where = { policy = "jsq" }
metric = "mean_sojourn"
less_than = 1.5

[[expect]]
source = "random above 2.0 with its CI: no"
where = { policy = "random" }
metric = "mean_sojourn"
greater_than = 2.0

[[expect]]
source = "ratio far from [3, 4]"
where = { policy = "random" }
metric = "mean_sojourn"
ratio = { where = { policy = "jsq" }, min = 3, max = 4 }
`
	s, err := experiments.Parse("c.toml", spec)
	if err != nil {
		t.Fatal(err)
	}
	tb := claimTable(t, s, []struct {
		pol      string
		mean     float64
		unstable bool
	}{{"random", 1.9, true}, {"random", 2.0, true}, {"random", 2.1, true}, {"jsq", 1, false}, {"jsq", 1, false}, {"jsq", 1, false}})
	vs := claims.Evaluate(s.Expects, tb)
	// Random's mean 2 has a 95% CI half-width of t(0.975, 2)·0.1/√3 = 4.303·0.0577 = 0.248; jsq's is 0: the ratio 2 ±
	// 0.248 meets [2.1, 3] but not [3, 4].
	// Constant bounds: jsq's 1 < 1.5 (no spread); random's 2 ± 0.248 straddles 2: undecided.
	for i, want := range []claims.Status{claims.Pass, claims.Pass, claims.Pass, claims.Inconclusive, claims.Fail} {
		if vs[i].Status != want {
			t.Errorf("claim %d (%s): %v, want %v (%s; %s)", i, vs[i].Expect.Source, vs[i].Status, want, vs[i].Target, vs[i].Reason)
		}
	}
}

// A list-of-tables parameter is selected by its canonical text, whether the spec writes the list or a string in any
// TOML spelling (field defaults filled in, 1.0 printed as 1).
func TestWhereServers(t *testing.T) {
	for _, where := range []string{`[{ count = 50 }]`, `"[{count = 50}]"`, `"[{ count = 50, rate = 1.0 }]"`} {
		spec := `name = "w"
model = "supermarket"
seed = 1
[params]
servers = [{ count = 50 }]
lambda = 0.5
horizon = 10.0
policy = "random"
[[figure]]
name = "f"
kind = "metric"
x = "lambda"
y = "mean_sojourn"
where = { servers = ` + where + ` }
`
		s, err := experiments.Parse("w.toml", spec)
		if err != nil {
			t.Fatalf("where = %s: %v", where, err)
		}
		if got := s.Figures[0].Where[0].Value.S; got != "[{count = 50, rate = 1}]" {
			t.Errorf("where = %s selects %q, want the column's text [{count = 50, rate = 1}]", where, got)
		}
	}
}

// An in_law claim places a single claimed draw in the runs' empirical law: inside the central 95% of 40 runs
// 1001, 1002, ..., 1040 are those from x₍₁₎ to x₍₄₀₎ (k = ⌊41·0.025⌋ = 1: a further draw misses them with
// probability 2/41 ≤ 0.05); fewer than ⌈2/0.05⌉ = 40 runs are not judged (inconclusive), and
// a law wider than the resolution cannot tell the claimed value from one 10% away (inconclusive).
func TestClaimsInLaw(t *testing.T) {
	spec := `name = "c"
model = "supermarket"
seed = 1
replications = 40
[params]
n = 10
lambda = 0.5
horizon = 10.0
[sweep]
policy = ["random", "jsq", "round_robin"]

[[expect]]
source = "inside"
where = { policy = "random" }
metric = "mean_sojourn"
in_law = 1020.5

[[expect]]
source = "at the largest run"
where = { policy = "random" }
metric = "mean_sojourn"
in_law = 1040

[[expect]]
source = "above it"
where = { policy = "random" }
metric = "mean_sojourn"
in_law = 1040.5

[[expect]]
source = "below the smallest"
where = { policy = "random" }
metric = "mean_sojourn"
in_law = 1000.5

[[expect]]
source = "too few runs"
where = { policy = "jsq" }
metric = "mean_sojourn"
in_law = 1

[[expect]]
source = "a law too wide"
where = { policy = "round_robin" }
metric = "mean_sojourn"
in_law = 20
`
	s, err := experiments.Parse("c.toml", spec)
	if err != nil {
		t.Fatal(err)
	}
	var rows []struct {
		pol      string
		mean     float64
		unstable bool
	}
	for i := 1; i <= 40; i++ {
		rows = append(rows, struct {
			pol      string
			mean     float64
			unstable bool
		}{"random", float64(1000 + i), false}, struct {
			pol      string
			mean     float64
			unstable bool
		}{"round_robin", float64(i), false})
	}
	for range 39 {
		rows = append(rows, struct {
			pol      string
			mean     float64
			unstable bool
		}{"jsq", 1, false})
	}
	vs := claims.Evaluate(s.Expects, claimTable(t, s, rows))
	for i, want := range []claims.Status{claims.Pass, claims.Pass, claims.Fail, claims.Fail, claims.Inconclusive, claims.Inconclusive} {
		if vs[i].Status != want {
			t.Errorf("claim %d (%s): %v, want %v (%s; %s)", i, vs[i].Expect.Source, vs[i].Status, want, vs[i].Target, vs[i].Reason)
		}
	}
	if _, err := experiments.Parse("c.toml", spec+"\n[[expect]]\nsource = \"x\"\nmetric = \"mean_sojourn\"\nin_law = \"a\"\n"); err == nil {
		t.Error("in_law = \"a\": want a spec error")
	}
}
