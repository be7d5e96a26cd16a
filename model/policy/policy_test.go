package policy

import (
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"lbsweep/model"
	"lbsweep/model/sim"
)

// alpha is the significance level of every statistical test here: with fixed seeds each test is deterministic, and a
// correct policy fails a given test with probability alpha over the choice of seed.
const alpha = 0.001

// picks is the sample size of the statistical tests.
const picks = 100_000

// levelsOf returns Levels holding the given queue lengths (arrivals at time 0).
func levelsOf(lengths ...int) *sim.Levels {
	l := sim.NewLevels(len(lengths))
	for k, q := range lengths {
		for range q {
			l.Up(k, 0)
		}
	}
	return l
}

// variant is one registered policy with one choice of arguments. ordered marks a variant that breaks ties by list
// order (a scoring policy with tie = first and no d): when all servers look alike it picks server 0, by design.
// keyed marks a variant whose picks follow the request's key (Traits.Keyed): with one key its picks are not spread
// uniformly, by design (keyed_test.go tests them).
type variant struct {
	name    string
	e       Entry
	set     map[string]model.Value // arguments set, by name; the others take e's defaults (tau = 10)
	ordered bool
	keyed   bool
}

// valuesOf returns e's argument values: e's defaults, tau = 10 (peak_ewma requires it), and set over them.
func valuesOf(t testing.TB, e Entry, set map[string]model.Value) Values {
	t.Helper()
	ps := append([]model.Param{{Name: "policy"}}, Params...)
	p := make(model.Point, len(ps))
	if e.Takes("tau") {
		p[model.Index(ps, "tau")] = model.FloatValue(10)
	}
	for name, v := range set {
		i := model.Index(ps, name)
		if i < 0 || !e.Takes(name) {
			t.Fatalf("%s does not take %s", e.Name, name)
		}
		p[i] = v
	}
	return e.Values(ps, p)
}

// configOf returns the named policy's configuration with the arguments set (see valuesOf).
func configOf(t testing.TB, name string, set map[string]model.Value) Config {
	t.Helper()
	e, ok := Lookup(name)
	if !ok {
		t.Fatalf("no policy %s", name)
	}
	return e.Build(valuesOf(t, e, set))
}

func (v variant) config(t testing.TB) Config { return v.e.Build(valuesOf(t, v.e, v.set)) }

// policy returns the variant's checked policy over servers s.
func (v variant) policy(t testing.TB, s Servers) Policy {
	t.Helper()
	c := v.config(t)
	if err := c.Check(s); err != nil {
		t.Fatalf("%s: %v", v.name, err)
	}
	return c.New(s)
}

// variants lists every registry entry with the arguments worth testing at n servers: jsq_d with d ∈ {1, 2, 3, n}
// (those ≤ n) and replacement false and true; least_request with choice_count 1, 2, 3, full scan, and bias 0; the
// scoring policies (least_outstanding, ewma, ewma_success) with no d and d ∈ {1, 2, 3, n}, each with tie first and
// random and key, and the EWMA ones also observing at dispatch; hash_p2c with candidates 1, 2, 3, n; bounded_load with
// ε = 0.25 and 0.01; ring_hash with min_ring_size 1024 and 1; the others with the default arguments.
func variants(n int) []variant {
	var vs []variant
	i64 := func(x int) model.Value { return model.IntValue(int64(x)) }
	for _, e := range Registry {
		switch {
		case e.Takes("replacement"):
			for _, d := range slices.Compact([]int{1, 2, 3, n}) {
				if d > n {
					continue
				}
				for _, repl := range []bool{false, true} {
					set := map[string]model.Value{"d": i64(d), "replacement": model.BoolValue(repl)}
					vs = append(vs, variant{name: fmt.Sprintf("%s(d=%d,replacement=%v)", e.Name, d, repl), e: e, set: set})
				}
			}
		case e.Takes("tie"):
			for _, d := range slices.Compact([]int{0, 1, 2, 3, n}) {
				if d > n {
					continue
				}
				for _, tie := range []Tie{TieFirst, TieRandom, TieKey} {
					set := map[string]model.Value{"tie": i64(int(tie))}
					if d > 0 {
						set["d"] = i64(d)
					}
					name := fmt.Sprintf("%s(d=%d,tie=%d)", e.Name, d, tie)
					keyed := tie == TieKey && d != 1
					vs = append(vs, variant{name: name, e: e, set: set, ordered: d == 0 && tie == TieFirst, keyed: keyed})
					if e.Takes("observe") {
						set := maps.Clone(set)
						set["observe"] = i64(1) // dispatch
						vs = append(vs, variant{name: name + "(observe=dispatch)", e: e, set: set, ordered: d == 0 && tie == TieFirst, keyed: keyed})
					}
				}
			}
		case e.Takes("choice_count"):
			for _, c := range []int{1, 2, 3} {
				vs = append(vs, variant{name: fmt.Sprintf("%s(choice_count=%d)", e.Name, c), e: e,
					set: map[string]model.Value{"choice_count": i64(c)}})
			}
			vs = append(vs, variant{name: e.Name + "(full_scan)", e: e, set: map[string]model.Value{"full_scan": model.BoolValue(true)}},
				variant{name: e.Name + "(bias=0)", e: e, set: map[string]model.Value{"active_request_bias": model.FloatValue(0)}})
		case e.Takes("candidates"):
			for _, k := range slices.Compact([]int{1, 2, 3, n}) {
				if k <= n {
					vs = append(vs, variant{name: fmt.Sprintf("%s(candidates=%d)", e.Name, k), e: e, keyed: k < n || k == 1,
						set: map[string]model.Value{"candidates": i64(k)}})
				}
			}
		case e.Takes("epsilon"):
			for _, eps := range []float64{0.25, 0.01} {
				vs = append(vs, variant{name: fmt.Sprintf("%s(epsilon=%v)", e.Name, eps), e: e, keyed: true,
					set: map[string]model.Value{"epsilon": model.FloatValue(eps)}})
			}
		case e.Takes("min_ring_size"):
			for _, size := range []int{1024, 1} {
				vs = append(vs, variant{name: fmt.Sprintf("%s(min_ring_size=%d)", e.Name, size), e: e, keyed: true,
					set: map[string]model.Value{"min_ring_size": i64(size)}})
			}
		default:
			vs = append(vs, variant{name: e.Name, e: e})
		}
	}
	return vs
}

// view is a view of l with every server eligible.
func view(l *sim.Levels) View { return View{Loads: l} }

// chiSquare returns Pearson's statistic of the observed counts against expected probabilities, and the critical
// value at alpha for len(counts)−1 degrees of freedom (gonum distuv.ChiSquared). Cells with probability 0 must be
// empty and are left out.
func chiSquare(t *testing.T, counts []int, probs []float64) (stat, critical float64) {
	t.Helper()
	total := 0
	for _, c := range counts {
		total += c
	}
	cells := 0
	for i, c := range counts {
		if probs[i] == 0 {
			if c != 0 {
				t.Fatalf("cell %d has probability 0 but %d observations", i, c)
			}
			continue
		}
		e := probs[i] * float64(total)
		stat += (float64(c) - e) * (float64(c) - e) / e
		cells++
	}
	return stat, distuv.ChiSquared{K: float64(cells - 1)}.Quantile(1 - alpha)
}

func uniform(n int) []float64 {
	p := make([]float64, n)
	for i := range p {
		p[i] = 1 / float64(n)
	}
	return p
}

// histogram counts picks picks of p on the (unchanging) state l.
func histogram(p Policy, l *sim.Levels, r *sim.Rand) []int {
	counts := make([]int, l.N())
	for range picks {
		counts[p.Pick(view(l), Request{}, r)]++
	}
	return counts
}

// TestRegistryPicksInRange: every policy, every argument choice, picks a server in [0, n) on a changing state.
func TestRegistryPicksInRange(t *testing.T) {
	for _, n := range []int{1, 2, 7, 10} {
		for _, v := range variants(n) {
			r := sim.NewRand(uint64(n), 1)
			churn := sim.NewRand(uint64(n), 2)
			p := v.policy(t, Servers{N: n})
			l := sim.NewLevels(n)
			for i := range 2000 {
				k := p.Pick(view(l), Request{Now: float64(i)}, r)
				if k < 0 || k >= n {
					t.Fatalf("n=%d %s: pick %d = %d, out of [0, %d)", n, v.name, i, k, n)
				}
				l.Up(k, float64(i))
				if busy := l.Count(1); busy > 0 && churn.IntN(2) == 0 {
					l.Down(l.Busy(churn.IntN(busy)), float64(i))
				}
			}
		}
	}
}

// TestRegistryDeterministic: two fresh instances with identically seeded generators pick the same 1000 servers while
// the state changes under them.
func TestRegistryDeterministic(t *testing.T) {
	const n = 10
	for _, v := range variants(n) {
		pa, pb := v.policy(t, Servers{N: n}), v.policy(t, Servers{N: n})
		ra, rb := sim.NewRand(9, 9), sim.NewRand(9, 9)
		churn := sim.NewRand(9, 10)
		l := sim.NewLevels(n)
		for i := range 1000 {
			a, b := pa.Pick(view(l), Request{}, ra), pb.Pick(view(l), Request{}, rb)
			if a != b {
				t.Fatalf("%s: pick %d: %d vs %d from identical seeds", v.name, i, a, b)
			}
			l.Up(a, float64(i))
			if busy := l.Count(1); busy > 0 && churn.IntN(2) == 0 {
				l.Down(l.Busy(churn.IntN(busy)), float64(i))
			}
		}
	}
}

// TestRegistryUniformWhenAlike: when every server has the same queue (all empty, all at 3), every policy spreads its
// picks uniformly (chi-square goodness of fit over n = 10 servers), except the variants that break ties by list
// order, which pick server 0 every time, and the keyed ones, whose picks follow the key (one key here).
func TestRegistryUniformWhenAlike(t *testing.T) {
	const n = 10
	for _, q := range []int{0, 3} {
		lengths := make([]int, n)
		for i := range lengths {
			lengths[i] = q
		}
		l := levelsOf(lengths...)
		for i, v := range variants(n) {
			r := sim.NewRand(uint64(q), uint64(i))
			if v.keyed {
				continue
			}
			counts := histogram(v.policy(t, Servers{N: n}), l, r)
			if v.ordered {
				if counts[0] != picks {
					t.Errorf("all at %d, %s: ties by list order, but only %d of %d picks went to server 0: %v", q, v.name,
						counts[0], picks, counts)
				}
				continue
			}
			if stat, crit := chiSquare(t, counts, uniform(n)); stat > crit {
				t.Errorf("all at %d, %s: chi-square %.1f > %.1f (alpha %v): counts %v", q, v.name, stat, crit, alpha,
					counts)
			}
		}
	}
}

// TestRoundRobinSequence: 0, 1, …, n−1, 0, … whatever the loads.
func TestRoundRobinSequence(t *testing.T) {
	for _, n := range []int{1, 2, 7} {
		p := RoundRobinConfig{}.New(Servers{N: n})
		r := sim.NewRand(1, 1)
		l := sim.NewLevels(n)
		for i := range 5 * n {
			if k := p.Pick(view(l), Request{}, r); k != i%n {
				t.Fatalf("n=%d: pick %d = %d, want %d", n, i, k, i%n)
			}
			// Load the server just picked heavily, and another one: round robin must not care.
			for range 3 {
				l.Up(i%n, float64(i))
			}
			l.Up(r.IntN(n), float64(i))
		}
	}
}

// TestJSQ: always a shortest queue, on a changing state; ties uniform among the tied servers.
func TestJSQ(t *testing.T) {
	const n = 10
	p := JSQConfig{}.New(Servers{N: n})
	r := sim.NewRand(11, 11)
	churn := sim.NewRand(11, 12)
	l := sim.NewLevels(n)
	for i := range 5000 {
		k := p.Pick(view(l), Request{}, r)
		if m, _ := l.Shortest(); l.Len(k) != m {
			t.Fatalf("pick %d: server %d has %d jobs, the shortest has %d", i, k, l.Len(k), m)
		}
		l.Up(k, float64(i))
		for range 2 { // keep the queues uneven: arrivals elsewhere too
			l.Up(churn.IntN(n), float64(i))
		}
		for range 3 {
			if busy := l.Count(1); busy > 0 {
				l.Down(l.Busy(churn.IntN(busy)), float64(i))
			}
		}
	}

	// Ties: servers 1, 3 and 8 share the minimum.
	l = levelsOf(3, 1, 4, 1, 5, 9, 2, 6, 1, 3)
	probs := make([]float64, n)
	for _, k := range []int{1, 3, 8} {
		probs[k] = 1.0 / 3
	}
	counts := histogram(p, l, r)
	if stat, crit := chiSquare(t, counts, probs); stat > crit {
		t.Errorf("ties among {1, 3, 8}: chi-square %.1f > %.1f (alpha %v): counts %v", stat, crit, alpha, counts)
	}
}

func jsqdOf(d int, replacement bool, n int) Policy {
	return JSQdConfig{D: d, Replacement: replacement}.New(Servers{N: n})
}

// TestJSQdFullSample: with d = n distinct samples, JSQ(d) is JSQ: always a shortest queue.
func TestJSQdFullSample(t *testing.T) {
	for _, n := range []int{1, 2, 7, 10} {
		p := jsqdOf(n, false, n)
		r := sim.NewRand(uint64(n), 13)
		churn := sim.NewRand(uint64(n), 14)
		l := sim.NewLevels(n)
		for i := range 3000 {
			k := p.Pick(view(l), Request{}, r)
			if m, _ := l.Shortest(); l.Len(k) != m {
				t.Fatalf("n=%d pick %d: server %d has %d jobs, the shortest has %d", n, i, k, l.Len(k), m)
			}
			l.Up(k, float64(i))
			l.Up(churn.IntN(n), float64(i))
			if busy := l.Count(1); busy > 0 {
				l.Down(l.Busy(churn.IntN(busy)), float64(i))
			}
		}
	}
}

// TestJSQdExactLaws compares pick frequencies with the exact pick distribution on fixed uneven states.
func TestJSQdExactLaws(t *testing.T) {
	const n = 10
	uneven := []int{3, 1, 4, 1, 5, 9, 2, 6, 5, 3}
	for i, c := range []struct {
		name    string
		p       Policy
		lengths []int
		probs   []float64
	}{
		// d = 1 ignores the loads.
		{"d=1", jsqdOf(1, false, n), uneven, uniform(n)},
		{"d=1 replacement", jsqdOf(1, true, n), uneven, uniform(n)},
		// Lengths (0, 1, 2), d = 2. Distinct: server 0 wins the 2 of 3 pairs that hold it, server 1 the pair {1, 2}.
		// With replacement: P(0) = 1 − (2/3)², P(1) = (2/3)² − (1/3)², P(2) = (1/3)².
		{"n=3 d=2", jsqdOf(2, false, 3), []int{0, 1, 2}, []float64{2.0 / 3, 1.0 / 3, 0}},
		{"n=3 d=2 replacement", jsqdOf(2, true, 3), []int{0, 1, 2}, []float64{5.0 / 9, 3.0 / 9, 1.0 / 9}},
		// Ties: lengths (1, 0, 0, 2), d = 2 distinct. A pair holding server 1 or 2 picks a shortest; the pair {1, 2}
		// splits evenly: P(1) = P(2) = (2 + ½)/6; {0, 3} picks 0: P(0) = 1/6; 3 never.
		{"n=4 d=2 ties", jsqdOf(2, false, 4), []int{1, 0, 0, 2}, []float64{1.0 / 6, 2.5 / 6, 2.5 / 6, 0}},
	} {
		r := sim.NewRand(15, uint64(i))
		counts := histogram(c.p, levelsOf(c.lengths...), r)
		if stat, crit := chiSquare(t, counts, c.probs); stat > crit {
			t.Errorf("%s, lengths %v: chi-square %.1f > %.1f (alpha %v): counts %v, want probabilities %v",
				c.name, c.lengths, stat, crit, alpha, counts, c.probs)
		}
	}
}

// TestJSQdTwoServers: lengths (0, 5), d = 2. Without replacement both servers are sampled, so server 0 always wins.
// With replacement server 1 wins only when both samples hit it: probability exactly 1/4; its count must lie in the
// two-sided binomial acceptance region at alpha (exact binomial CDF from gonum distuv).
func TestJSQdTwoServers(t *testing.T) {
	l := levelsOf(0, 5)
	r := sim.NewRand(17, 17)
	if counts := histogram(jsqdOf(2, false, 2), l, r); counts[1] != 0 {
		t.Errorf("d=2 without replacement picked the longer server %d times in %d", counts[1], picks)
	}
	counts := histogram(jsqdOf(2, true, 2), l, r)
	b := distuv.Binomial{N: picks, P: 0.25}
	x := float64(counts[1])
	lower := b.CDF(x)       // P(X ≤ x)
	upper := 1 - b.CDF(x-1) // P(X ≥ x)
	if min(lower, upper) < alpha/2 {
		t.Errorf("d=2 with replacement: server 1 picked %d times in %d (expected %v): two-sided p < alpha = %v",
			counts[1], picks, picks/4, alpha)
	}
}

var snakeCase = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)

func TestRegistryEntries(t *testing.T) {
	names := Names()
	if len(names) != len(Registry) {
		t.Fatalf("Names() has %d names, Registry %d entries", len(names), len(Registry))
	}
	if len(Params) != numArgs {
		t.Fatalf("Params has %d columns, the arg constants %d", len(Params), numArgs)
	}
	params := map[string]model.Param{}
	for _, p := range Params {
		params[p.Name] = p
		if !p.Policy {
			t.Errorf("Params: %s is not marked Policy", p.Name)
		}
		if p.Default.Valid {
			t.Errorf("Params: %s has a column default; defaults are the policies' (Entry.Args)", p.Name)
		}
	}
	taken := map[string]bool{}
	seen := map[string]bool{}
	for i, e := range Registry {
		if names[i] != e.Name {
			t.Errorf("Names()[%d] = %q, Registry[%d].Name = %q", i, names[i], i, e.Name)
		}
		if !snakeCase.MatchString(e.Name) {
			t.Errorf("%q is not snake_case", e.Name)
		}
		if seen[e.Name] {
			t.Errorf("%q registered twice", e.Name)
		}
		seen[e.Name] = true
		if e.Doc == "" {
			t.Errorf("%s: empty Doc", e.Name)
		}
		if e.Build == nil {
			t.Errorf("%s: nil Build", e.Name)
		}
		got, ok := Lookup(e.Name)
		if !ok || got.Name != e.Name || got.Doc != e.Doc || !slices.Equal(got.ArgNames(), e.ArgNames()) {
			t.Errorf("Lookup(%q) = %+v, %v; want Registry[%d]", e.Name, got.Name, ok, i)
		}
		last := -1
		for _, a := range e.Args {
			p, ok := params[a.Name]
			if !ok {
				t.Errorf("%s takes %q, which is not in policy.Params", e.Name, a.Name)
				continue
			}
			if at := slices.IndexFunc(Params, func(q model.Param) bool { return q.Name == a.Name }); at <= last {
				t.Errorf("%s: Args not in Params order at %q", e.Name, a.Name)
			} else {
				last = at
			}
			if !e.Takes(a.Name) || e.Requires(a.Name) != a.Required {
				t.Errorf("%s: Takes/Requires(%q) disagree with Args", e.Name, a.Name)
			}
			if a.Required && a.Default.Valid {
				t.Errorf("%s: %s is required but has a default", e.Name, a.Name)
			}
			if a.Default.Valid && p.Kind == model.Enum && (a.Default.I < 0 || int(a.Default.I) >= len(p.Choices)) {
				t.Errorf("%s: default of %s: choice %d of %v", e.Name, a.Name, a.Default.I, p.Choices)
			}
			taken[a.Name] = true
		}
		if !slices.Equal(e.ArgNames(), func() []string {
			var ns []string
			for _, a := range e.Args {
				ns = append(ns, a.Name)
			}
			return ns
		}()) {
			t.Errorf("%s: ArgNames %v", e.Name, e.ArgNames())
		}
	}
	for p := range params {
		if !taken[p] {
			t.Errorf("policy.Params declares %q, which no policy takes", p)
		}
	}
	if e, ok := Lookup("no_such_policy"); ok {
		t.Errorf("Lookup(no_such_policy) = %+v, true; want false", e)
	}
	if e, _ := Lookup("jsq_d"); !e.Takes("d") || !e.Requires("d") || !e.Takes("replacement") || e.Requires("replacement") || e.Takes("n") {
		t.Errorf("jsq_d: Takes/Requires wrong: %+v", e.Args)
	}
	if e, _ := Lookup("random"); e.Takes("d") {
		t.Errorf("random: Takes(d) = true")
	}
	for name, want := range map[string]string{
		"random":        "-",
		"jsq_d":         "d (required), replacement = false",
		"least_request": "choice_count = 2, full_scan = false, active_request_bias = 1",
		"ewma":          "d, tie = first, alpha = 0.2, observe = completion",
	} {
		if e, _ := Lookup(name); e.Signature() != want {
			t.Errorf("%s: Signature() = %q, want %q", name, e.Signature(), want)
		}
	}
}

// The test tolerances rely on chi-square critical values being finite and sensible.
func TestChiSquareCritical(t *testing.T) {
	// 27.87716 is the tabulated χ²(0.999; 9) (NIST/SEMATECH e-Handbook §1.3.6.7.4 gives 27.877); recomputed by
	// bisection on the regularized lower incomplete gamma P(9/2, x/2) summed as its power series: 27.8771649.
	if c := (distuv.ChiSquared{K: 9}).Quantile(1 - alpha); math.Abs(c-27.8771649) > 1e-6 {
		t.Errorf("ChiSquared{K: 9}.Quantile(0.999) = %v, want 27.87716", c)
	}
}

// The rejection sampler (3 ≤ d ≤ 8, 4d ≤ n) draws a uniformly random d-subset: with one empty server among n = 12 and
// the rest equally loaded, d = 3 picks the empty one exactly when it is sampled, with probability d/n = 1/4, and the
// others uniformly otherwise. Tested with a two-sided normal approximation to the binomial at alphaPolicyRejection.
func TestJSQdRejectionSampler(t *testing.T) {
	const alphaPolicyRejection = 0.001
	const n, d, picks = 12, 3, 200_000
	l := sim.NewLevels(n)
	for k := 1; k < n; k++ {
		for range 5 {
			l.Up(k, 0)
		}
	}
	p := JSQdConfig{D: d}.New(Servers{N: n})
	r := sim.NewRand(21, 22)
	counts := make([]int, n)
	for range picks {
		counts[p.Pick(view(l), Request{}, r)]++
	}
	z := distuv.UnitNormal.Quantile(1 - alphaPolicyRejection/2)
	check := func(what string, got int, prob float64) {
		mean, sd := picks*prob, math.Sqrt(picks*prob*(1-prob))
		if math.Abs(float64(got)-mean) > z*sd {
			t.Errorf("%s: %d picks, expected %.0f ± %.0f", what, got, mean, z*sd)
		}
	}
	check("empty server", counts[0], float64(d)/n)
	for k := 1; k < n; k++ {
		check(fmt.Sprintf("server %d", k), counts[k], (1-float64(d)/n)/(n-1))
	}
}
