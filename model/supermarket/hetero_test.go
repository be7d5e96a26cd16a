package supermarket

import (
	"math"
	"strings"
	"testing"

	"lbsweep/analytic"
	"lbsweep/model"
	"lbsweep/model/policy"
)

// Four servers at rate 0.5 and six at rate 1, at 50% of capacity: λ = 0.4 per server, so the slow servers run at
// ρ = 0.8 and the fast ones at 0.4. Random and round robin are then exact at this n (independent M/M/1 and E_n/M/1
// queues with their own rates): the thinning of the departure clock is checked against both.
var twoClasses = []analytic.Class{{Count: 4, Rate: 0.5}, {Count: 6, Rate: 1}}

func TestRandomUnequalRatesIsMM1(t *testing.T) {
	a := alpha / 5 // 5 checks of one law (Bonferroni)
	const lambda = 0.4
	p := heteroPoint(t, twoClasses, 0.5, 40000, 4000, "random", 0, false)
	if p[pLambda].F != lambda || p[pN].I != 10 {
		t.Fatalf("resolved λ = %v, n = %v; want 0.4, 10", p[pLambda].F, p[pN].I)
	}
	rows := replicate(t, p, 10)
	within(t, "mean sojourn", column(rows, metric(mMean)), analytic.RandomHeteroMeanSojourn(lambda, twoClasses), 0, a)
	p99 := analytic.RandomHeteroSojournQuantile(lambda, twoClasses, 0.99)
	within(t, "p99 sojourn", column(rows, metric(mP99)), p99, p99Allowance(p99), a)
	for i, s := range analytic.RandomHeteroTail(lambda, twoClasses, 3) {
		within(t, "s_"+string(rune('1'+i)), column(rows, level(i+1)), s, 0, a)
	}
	if got := rows[0][mTheorySource].S; got != SourceMM1Hetero {
		t.Errorf("theory_source = %q, want %q", got, SourceMM1Hetero)
	}
}

func TestRoundRobinUnequalRatesIsEnM1(t *testing.T) {
	a := alpha / 5 // 5 checks of one law (Bonferroni)
	const lambda = 0.4
	rows := replicate(t, heteroPoint(t, twoClasses, 0.5, 40000, 4000, "round_robin", 0, false), 10)
	within(t, "mean sojourn", column(rows, metric(mMean)), analytic.RoundRobinHeteroMeanSojourn(lambda, twoClasses), 0, a)
	p99 := analytic.RoundRobinHeteroSojournQuantile(lambda, twoClasses, 0.99)
	within(t, "p99 sojourn", column(rows, metric(mP99)), p99, p99Allowance(p99), a)
	for i, s := range analytic.RoundRobinHeteroTail(lambda, twoClasses, 3) {
		within(t, "s_"+string(rune('1'+i)), column(rows, level(i+1)), s, 0, a)
	}
}

// Identical servers of rate 2 are unit-rate servers with time halved: random at λ = 1.6 per server (load 0.8) has mean
// sojourn 1/(2 − 1.6) = 2.5 and busy fraction 0.8, and the theory columns say so.
func TestRateScalesTime(t *testing.T) {
	a := alpha / 2 // 2 checks of one law (Bonferroni)
	rows := replicate(t, heteroPoint(t, []analytic.Class{{Count: 10, Rate: 2}}, 0.8, 10000, 1000, "random", 0, false), 10)
	if got := rows[0][mTheoryMean].F; math.Abs(got-2.5) > 1e-12 {
		t.Errorf("theory_mean_sojourn = %v, want 2.5", got)
	}
	within(t, "mean sojourn", column(rows, metric(mMean)), 2.5, 0, a)
	within(t, "s_1", column(rows, level(1)), 0.8, 0, a)
}

// Seed 002 §3's hetero setting: 20 servers at 0.5 and 80 at 1, load 0.8, so λ = 0.72 per server. Random and round
// robin send the slow servers 0.72 > 0.5: refused without allow_unstable; allowed, the rows say unstable = true and
// carry no theory. Smooth WRR with weights = rates gives each server 0.8 of its rate and JSQ(2) adapts: stable.
func TestUnstableFlagged(t *testing.T) {
	hetero := []analytic.Class{{Count: 20, Rate: 0.5}, {Count: 80, Rate: 1}}
	for _, pol := range []string{"random", "round_robin"} {
		p := heteroPoint(t, hetero, 0.8, 200, 0, pol, 0, true)
		if p[pLambda].F != 0.72 {
			t.Errorf("λ = %v, want 0.72", p[pLambda].F)
		}
		if _, err := (Model{}).Check(p, model.CheckOptions{}); err == nil || !strings.Contains(err.Error(), "load") {
			t.Errorf("%s: Check without allow_unstable: %v; want an error on load", pol, err)
		}
		w, err := Model{}.Check(p, model.CheckOptions{AllowUnstable: true})
		if err != nil || len(w) != 1 || !strings.Contains(w[0], "0.72") {
			t.Errorf("%s: Check with allow_unstable: warnings %q, err %v", pol, w, err)
		}
		row, _ := runRow(Model{}, p, model.Seed{Run: 3})
		if !row[mUnstable].B || row[mTheoryMean].Valid || row[mTheorySource].Valid {
			t.Errorf("%s: unstable = %v, theory %+v; want true and null", pol, row[mUnstable].B, row[mTheoryMean])
		}
	}
	for _, pol := range []string{"smooth_wrr", "jsq_d", "jsq", "least_request", "peak_ewma"} {
		p := heteroPoint(t, hetero, 0.8, 200, 0, pol, 2, false)
		row, _ := runRow(Model{}, p, model.Seed{Run: 3})
		if row[mUnstable].B {
			t.Errorf("%s: flagged unstable", pol)
		}
	}
	// Weights that do not follow the rates overload the slow class: 1:1 weights are round robin in disguise.
	p := heteroPoint(t, hetero, 0.8, 200, 0, "smooth_wrr", 0, true)
	for i := range p[pServers].R {
		p[pServers].R[i][fWeight] = model.FloatValue(1)
	}
	if _, err := (Model{}).Check(p, model.CheckOptions{}); err == nil {
		t.Error("smooth_wrr with equal weights over unequal rates at load 0.8 accepted as stable")
	}
	// Total load ≥ 1 is unstable for every policy.
	p = heteroPoint(t, hetero, 1.0, 200, 0, "jsq", 0, true)
	if _, err := (Model{}).Check(p, model.CheckOptions{}); err == nil {
		t.Error("load 1 accepted")
	}
}

// Resolve: n from the classes, λ from load and load from λ, and the errors.
func TestResolve(t *testing.T) {
	p := heteroPoint(t, []analytic.Class{{Count: 20, Rate: 0.5}, {Count: 80, Rate: 1}}, 0.8, 100, 0, "random", 0, true)
	if p[pN].I != 100 || p[pLambda].F != 0.72 {
		t.Errorf("n = %d, λ = %v; want 100, 0.72", p[pN].I, p[pLambda].F)
	}
	q := point(t, 10, 0.9, 100, 0, "random", 0, false)
	if q[pLoad].F != 0.9 {
		t.Errorf("unit-rate load = %v, want λ = 0.9", q[pLoad].F)
	}
	for _, c := range []struct {
		edit func(p model.Point)
		want string
	}{
		{func(p model.Point) { p[pN] = model.IntValue(7) }, "n: 7, but the server classes hold 100"},
		{func(p model.Point) { p[pLambda] = model.FloatValue(0.5) }, "load: give lambda"},
		{func(p model.Point) { p[pLoad] = model.Value{} }, "lambda: required"},
		{func(p model.Point) { p[pServers].R[0][fCount] = model.IntValue(0) }, "servers: element 1: count 0"},
		{func(p model.Point) { p[pServers].R[1][fRate] = model.FloatValue(-1) }, "servers: element 2: rate -1"},
		{func(p model.Point) { p[pServers] = model.Value{} }, "n: n is required"},
	} {
		p := heteroPoint(t, []analytic.Class{{Count: 20, Rate: 0.5}, {Count: 80, Rate: 1}}, 0.8, 100, 0, "random", 0, true)
		p[pN], p[pLambda] = model.Value{}, model.Value{}
		c.edit(p)
		if err := (Model{}).Resolve(p); err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("Resolve: %v; want %q", err, c.want)
		}
	}
}

// Every registered policy conserves work at the model level: s_1 = λ for unit-rate servers (exact in expectation at
// any n; see TestBusyFractionIsLambda), here for the production policies.
func TestProductionPoliciesBusyFraction(t *testing.T) {
	const n, lambda = 20, 0.8
	names := []string{"smooth_wrr", "wrr_expanded", "least_request", "peak_ewma"}
	for _, name := range names {
		if _, ok := policy.Lookup(name); !ok {
			t.Fatalf("no policy %s", name)
		}
		rows := replicate(t, point(t, n, lambda, 5000, 500, name, 0, false), 20)
		within(t, name+" s_1", column(rows, level(1)), lambda, 0, alpha/float64(len(names)))
	}
}
