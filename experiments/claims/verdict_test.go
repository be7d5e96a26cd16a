package claims_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"lbsweep/experiments"
	"lbsweep/experiments/claims"
	"lbsweep/model"
	"lbsweep/results"
)

// run is one synthetic run of the supermarket schema: its policy, lambda, replication and mean sojourn.
type run struct {
	pol    string
	lambda float64
	rep    int
	mean   float64
}

// runsTable builds a dataset of the spec's schema from runs: point and seed as a sweep writes them (the seed from
// lambda and the replication, not the policy: policies at one point share their random numbers).
func runsTable(t *testing.T, s *experiments.Spec, runs []run) *results.Table {
	t.Helper()
	cols := model.Columns(s.Model)
	tb := &results.Table{Columns: cols}
	for _, r := range runs {
		row := make(results.Row, len(cols))
		row[tb.Col("point")] = results.Str(fmt.Sprintf("lambda=%g policy=%s", r.lambda, r.pol))
		row[tb.Col("replication")] = results.Int(int64(r.rep))
		row[tb.Col("seed")] = results.Int(int64(1000*r.lambda) + int64(r.rep))
		row[tb.Col("policy")] = results.Str(r.pol)
		row[tb.Col("lambda")] = results.Float(r.lambda)
		row[tb.Col("mean_sojourn")] = results.Float(r.mean)
		tb.Rows = append(tb.Rows, row)
	}
	return tb
}

// verdictSpec is a supermarket spec over random and jsq at lambda 0.5 and 0.9 with the given claims.
func verdictSpec(t *testing.T, claimsText string) *experiments.Spec {
	t.Helper()
	s, err := experiments.Parse("v.toml", `name = "v"
model = "supermarket"
seed = 1
replications = 4
[params]
n = 10
horizon = 10.0
[sweep]
lambda = [0.5, 0.9]
policy = ["random", "jsq"]
`+claimsText)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// spread returns k values with mean m and sample standard deviation sd·√(k/(k−1))·... : m ± sd alternately (k even).
func spread(m, sd float64, k int) []float64 {
	xs := make([]float64, k)
	for i := range xs {
		xs[i] = m + sd*float64(1-2*(i%2))
	}
	return xs
}

// Every relation has three verdicts: a claim the CI excludes fails, one it meets passes when the CI resolves it
// (half-width below 10% of the claimed value) and is inconclusive otherwise; a claim of a side is inconclusive
// when the CI straddles the bound.
func TestVerdictsThreeWays(t *testing.T) {
	// random at lambda 0.5: 4 runs 10 ± 0.1 (CI half-width t(0.975, 3)·0.1155/2 = 0.184); at 0.9: 4 runs 10 ± 3
	// (half-width 5.5, wider than 10% of 10). jsq at 0.5: random's runs minus 1, seed by seed (a paired difference
	// of exactly −1); at 0.9: 9 ± 3 in the opposite order (paired differences −7 and +5, mean −1, half-width 11).
	var runs []run
	for i, x := range spread(10, 0.1, 4) {
		runs = append(runs, run{"random", 0.5, i, x}, run{"jsq", 0.5, i, x - 1})
	}
	wide := spread(10, 3, 4)
	for i, x := range wide {
		runs = append(runs, run{"random", 0.9, i, x}, run{"jsq", 0.9, i, wide[3-i] - 1})
	}
	cases := []struct {
		claim string
		want  claims.Status
	}{
		{`where = { lambda = 0.5, policy = "random" }` + "\napprox = 10.1\ntol = 0", claims.Pass},
		{`where = { lambda = 0.5, policy = "random" }` + "\napprox = 10.5\ntol = 0", claims.Fail},
		{`where = { lambda = 0.5, policy = "random" }` + "\napprox = 10.5\ntol = 0.35", claims.Pass},
		{`where = { lambda = 0.9, policy = "random" }` + "\napprox = 10\ntol = 0", claims.Inconclusive},
		{`where = { lambda = 0.9, policy = "random" }` + "\napprox = 20\ntol = 0", claims.Fail},
		{`where = { lambda = 0.5, policy = "random" }` + "\nless_than = 10.5", claims.Pass},
		{`where = { lambda = 0.5, policy = "random" }` + "\nless_than = 10.1", claims.Inconclusive},
		{`where = { lambda = 0.5, policy = "random" }` + "\nless_than = 9.5", claims.Fail},
		{`where = { lambda = 0.5, policy = "random" }` + "\ngreater_than = 9.5", claims.Pass},
		// Two selections: paired by seed at 0.5 (difference exactly 1, no spread); at 0.9 the paired CI of the
		// difference, 1 ± 11, straddles 0.
		{`where = { lambda = 0.5, policy = "random" }` + "\ngreater_than = { policy = \"jsq\" }", claims.Pass},
		{`where = { lambda = 0.5, policy = "random" }` + "\nless_than = { policy = \"jsq\" }", claims.Fail},
		{`where = { lambda = 0.9, policy = "random" }` + "\ngreater_than = { policy = \"jsq\" }", claims.Inconclusive},
		// Ratios: random/jsq at 0.5 = 10/9 with a paired CI of half-width t·sd((x − r·y)/ȳ)/2, tiny.
		{`where = { lambda = 0.5, policy = "random" }` + "\nratio = { where = { policy = \"jsq\" }, min = 1.1, max = 1.12 }", claims.Pass},
		{`where = { lambda = 0.5, policy = "random" }` + "\nratio = { where = { policy = \"jsq\" }, min = 1.2, max = 1.3 }", claims.Fail},
		{`where = { lambda = 0.5, policy = "random" }` + "\nratio = { where = { policy = \"jsq\" }, min = 1.1 }", claims.Pass},
		{`where = { lambda = 0.5, policy = "random" }` + "\nratio = { where = { policy = \"jsq\" }, max = 1.1 }", claims.Fail},
		{`where = { lambda = 0.9, policy = "random" }` + "\nratio = { where = { policy = \"jsq\" }, min = 1.1 }", claims.Inconclusive},
		{`where = { lambda = 0.9, policy = "random" }` + "\nratio = { where = { policy = \"jsq\" }, min = 1, max = 1.25 }", claims.Inconclusive},
	}
	for _, c := range cases {
		s := verdictSpec(t, "[[expect]]\nsource = \"c\"\nmetric = \"mean_sojourn\"\n"+c.claim+"\n")
		v := claims.Evaluate(s.Expects, runsTable(t, s, runs))[0]
		if v.Status != c.want {
			t.Errorf("%s:\n  %v, want %v (%s; %s)", strings.ReplaceAll(c.claim, "\n", "; "), v.Status, c.want, v.Target, v.Reason)
		}
	}
}

// A paired difference has the CI of the per-seed differences; unpaired runs get Welch's CI. With the runs above
// (differences exactly 1) the paired half-width is 0, Welch's is not.
func TestDiffCIPairedAndWelch(t *testing.T) {
	xs := []float64{10.1, 9.9, 10.1, 9.9}
	ys := []float64{9.1, 8.9, 9.1, 8.9}
	if d := claims.DiffCI(xs, ys, true, 0.05); d.Mean != 1 || d.Half != 0 {
		t.Errorf("paired: %v ± %v, want 1 ± 0", d.Mean, d.Half)
	}
	// Welch: s² = 0.01333 each, se = √(2·0.01333/4) = 0.08165, ν = 6, t(0.975, 6) = 2.4469: half-width 0.19979.
	d := claims.DiffCI(xs, ys, false, 0.05)
	if math.Abs(d.Mean-1) > 1e-12 || math.Abs(d.Half-0.19979) > 1e-4 {
		t.Errorf("Welch: %v ± %v, want 1 ± 0.19979", d.Mean, d.Half)
	}
}

// Quantifiers: every = "replication" holds only when each run holds ("max load 4 in every seed" fails on 9 of 10),
// some = "replication" when one does; every = "point" fails when one point fails, some = "point" passes when one passes.
func TestQuantifiers(t *testing.T) {
	var runs []run
	for i := range 10 {
		x := 4.0
		if i == 6 {
			x = 3
		}
		runs = append(runs, run{"random", 0.5, i, x}, run{"jsq", 0.5, i, 2})
		runs = append(runs, run{"random", 0.9, i, 8 + 0.01*float64(i%2)}, run{"jsq", 0.9, i, 5})
	}
	cases := []struct {
		claim string
		want  claims.Status
		count string
	}{
		{`where = { lambda = 0.5, policy = "random" }` + "\napprox = 4\ntol = 0\nevery = \"replication\"", claims.Fail, "9 of 10 runs"},
		{`where = { lambda = 0.5, policy = "random" }` + "\napprox = 3\ntol = 0\nsome = \"replication\"", claims.Pass, "1 of 10 runs"},
		{`where = { lambda = 0.5, policy = "random" }` + "\nless_than = 5\nevery = \"replication\"", claims.Pass, "10 of 10 runs"},
		{`where = { policy = "random" }` + "\ngreater_than = { policy = \"jsq\" }\nevery = \"point\"", claims.Pass, "2 of 2 points"},
		{`where = { policy = "random" }` + "\ngreater_than = { policy = \"jsq\" }\nevery = \"replication\"", claims.Pass, "20 of 20 runs"},
		{`where = { policy = "random" }` + "\ngreater_than = 7\nevery = \"point\"", claims.Fail, "1 of 2 points"},
		{`where = { policy = "random" }` + "\ngreater_than = 7\nsome = \"point\"", claims.Pass, "1 of 2 points"},
		{`where = { policy = "random" }` + "\ngreater_than = 9\nsome = \"point\"", claims.Fail, "0 of 2 points"},
		{`where = { policy = "random" }` + "\nratio = { where = { policy = \"jsq\" }, min = 1.5, max = 2.1 }\nevery = \"point\"", claims.Pass, "2 of 2 points"},
	}
	for _, c := range cases {
		s := verdictSpec(t, "[[expect]]\nsource = \"c\"\nmetric = \"mean_sojourn\"\n"+c.claim+"\n")
		v := claims.Evaluate(s.Expects, runsTable(t, s, runs))[0]
		if v.Status != c.want || v.Count != c.count {
			t.Errorf("%s:\n  %v [%s], want %v [%s] (%s; %s)", strings.ReplaceAll(c.claim, "\n", "; "), v.Status, v.Count, c.want, c.count, v.Target, v.Reason)
		}
	}
}

// Each claim is its own family: a failing theory claim fails alone and beside ten true ones (a spec padded with
// true claims cannot rescue it, as a Bonferroni split over the spec's claims did).
func TestClaimFamilyIsTheClaim(t *testing.T) {
	var runs []run
	for i, x := range spread(1, 0.01, 4) {
		runs = append(runs, run{"random", 0.5, i, x})
	}
	failing := "[[expect]]\nsource = \"off by 3%\"\nwhere = { policy = \"random\" }\nmetric = \"mean_sojourn\"\napprox = 1.03\ntol = 0\n"
	padding := strings.Repeat("[[expect]]\nsource = \"true\"\nwhere = { policy = \"random\" }\nmetric = \"mean_sojourn\"\napprox = 1\ntol = 0\n", 10)
	for _, text := range []string{failing, padding + failing} {
		s := verdictSpec(t, text)
		vs := claims.Evaluate(s.Expects, runsTable(t, s, runs))
		if last := vs[len(vs)-1]; last.Status != claims.Fail {
			t.Errorf("with %d claims: the false claim is %v (%s)", len(vs), last.Status, last.Target)
		}
	}
}

// A claim that cannot fail is refused at load, with its line and key.
func TestUnfalsifiableClaimsRefused(t *testing.T) {
	base := "[[expect]]\nsource = \"c\"\nwhere = { policy = \"random\" }\nmetric = \"mean_sojourn\"\n"
	cases := []struct{ claim, key string }{
		{"approx = 1\ntol = inf", "tol"},
		{"approx = 1\ntol = 1e300", "tol"},
		{"approx = 1\ntol = 0.6", "tol"},
		{"approx = 0\ntol = 0.1", "tol"},
		{"approx = inf\ntol = 0", "approx"},
		{"theory = \"theory_mean_sojourn\"\nallowance = inf", "allowance"},
		{"ratio = { where = { policy = \"jsq\" }, min = 0, max = inf }", "ratio"},
		{"ratio = { where = { policy = \"jsq\" }, min = 0.1, max = 10 }", "ratio"},
		{"ratio = { where = { policy = \"jsq\" } }", "ratio"},
		{"approx = 1\ntol = 0\nalpha = 1e-300", "alpha"},
		{"approx = 1\ntol = 0\nalpha = 0.5", "alpha"},
		{"approx = 1\ntol = 0\nevery = \"seed\"", "every"},
		{"approx = 1\ntol = 0\nevery = \"point\"\nsome = \"point\"", "some"},
		{"in_law = 1\nevery = \"point\"", "every"},
		{"less_than = inf", "less_than"},
	}
	for _, c := range cases {
		_, err := experiments.Parse("v.toml", "name = \"v\"\nmodel = \"supermarket\"\nseed = 1\n[params]\nn = 10\nhorizon = 10.0\nlambda = 0.5\n[sweep]\npolicy = [\"random\", \"jsq\"]\n"+base+c.claim+"\n")
		if err == nil || !strings.Contains(err.Error(), "v.toml:1") || !strings.Contains(err.Error(), "expect[0]."+c.key) {
			t.Errorf("%s: got %v, want an error at v.toml:1x naming expect[0].%s", strings.ReplaceAll(c.claim, "\n", "; "), err, c.key)
		}
	}
}

// A claim that cannot be judged is invalid and fails `sweep check` even when declared a known failure; one run has
// no CI (inconclusive, unless the claim is per run); two selections that share rows are not compared.
func TestInvalidAndOneRun(t *testing.T) {
	var runs []run
	for i, x := range spread(10, 0.1, 4) {
		runs = append(runs, run{"random", 0.5, i, x}, run{"jsq", 0.5, i, x - 1})
	}
	runs = append(runs, run{"random", 0.9, 0, 12})
	cases := []struct {
		claim string
		want  claims.Status
	}{
		{`where = { lambda = 0.9, policy = "jsq" }` + "\napprox = 10\ntol = 0\nknown_failure = \"x\"", claims.Invalid},
		{`where = { lambda = 0.9 }` + "\napprox = 12\ntol = 0", claims.Inconclusive},
		{`where = { lambda = 0.9 }` + "\napprox = 12\ntol = 0\nevery = \"replication\"", claims.Pass},
		{`where = { lambda = 0.5 }` + "\ngreater_than = { policy = \"jsq\" }", claims.Invalid},
		{`where = { lambda = 0.5, policy = "random" }` + "\nless_than = { lambda = 0.9 }", claims.Inconclusive},
	}
	for _, c := range cases {
		s := verdictSpec(t, "[[expect]]\nsource = \"c\"\nmetric = \"mean_sojourn\"\n"+c.claim+"\n")
		v := claims.Evaluate(s.Expects, runsTable(t, s, runs))[0]
		if v.Status != c.want {
			t.Errorf("%s:\n  %v, want %v (%s; %s)", strings.ReplaceAll(c.claim, "\n", "; "), v.Status, c.want, v.Target, v.Reason)
		}
		if c.want == claims.Invalid && v.OK() {
			t.Errorf("%s: an invalid claim must fail sweep check", c.claim)
		}
	}
}
