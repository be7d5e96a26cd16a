package resilience

import (
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"lbsweep/analytic"
	"lbsweep/model"
	"lbsweep/model/policy"
	"lbsweep/model/sim"
	"lbsweep/results/schema"
)

// The alias table draws Zipf(1) over 10 keys with the right frequencies: each of 10^6 draws' counts within 5
// binomial standard deviations of its expectation (a false alarm about once in 170 000 keys; fixed seed).
func TestZipfAlias(t *testing.T) {
	p := analytic.Zipf(10, 1)
	tab := newAlias(p)
	r := sim.NewRand(1, streamKeys)
	const draws = 1_000_000
	counts := make([]float64, len(p))
	for range draws {
		counts[tab.draw(r)]++
	}
	for i, x := range p {
		sd := math.Sqrt(draws * x * (1 - x))
		if math.Abs(counts[i]-draws*x) > 5*sd {
			t.Errorf("key %d: %v draws, want %v ± %v", i+1, counts[i], draws*x, 5*sd)
		}
	}
	u := newAlias(analytic.Zipf(7, 0)) // uniform: every column accepts itself
	for i, x := range u.prob {
		if math.Abs(x-1) > 1e-12 {
			t.Errorf("uniform alias column %d: probability %v, want 1", i, x)
		}
	}
}

// The array LRU agrees hit for hit with a plain most-recent-first list over a random key sequence, through clears.
func TestLRUAgainstList(t *testing.T) {
	const k, c = 30, 7
	l := newLRU(c, k)
	var list []uint64
	r := sim.NewRand(2, 3)
	tab := newAlias(analytic.Zipf(k, 0.9))
	for i := range 20_000 {
		if i%5000 == 4999 {
			l.clear()
			list = list[:0]
		}
		key := uint64(tab.draw(r)) + 1
		j := slices.Index(list, key)
		want := j >= 0
		if want {
			list = slices.Delete(list, j, j+1)
		} else if len(list) == c {
			list = list[:c-1]
		}
		list = slices.Insert(list, 0, key)
		if got := l.lookup(key); got != want {
			t.Fatalf("request %d (key %d): hit %v, want %v", i, key, got, want)
		}
	}
}

// One server's cache under Zipf keys is an LRU under the independent reference model (FIFO service starts in
// arrival order, and the keys are i.i.d.): its simulated hit ratio over 20 replications matches the exact IRM law
// (analytic.LRUExactHitRatio) within the 99.9% confidence half-width of the replications' mean, and Che's
// approximation within that half-width plus Che's computed error |Che − exact|.
func TestCacheSingleServerChe(t *testing.T) {
	const reps, k, c, s = 20, 100, 10, 0.8
	p := point(t, []model.Record{srvClass(t, 1)}, nil, "round_robin", "rate=50", "horizon=200000", "warmup=2000", "bin=0",
		"keys=100", "zipf=0.8", "cache=10", "hit_cost=0.5")
	var m, m2 float64
	for rep := range reps {
		o := run(t, p, uint64(rep+1))
		h := float64(o.hits[0]) / float64(o.lookups[0])
		m += h / reps
		m2 += h * h / reps
	}
	sd := math.Sqrt((m2 - m*m) * reps / (reps - 1))
	half := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: reps - 1}.Quantile(1-0.001/2) * sd / math.Sqrt(reps)
	pk := analytic.Zipf(k, s)
	exact, che := analytic.LRUExactHitRatio(pk, c), analytic.CheHitRatio(pk, c)
	t.Logf("simulated %.5f ± %.5f (99.9%%), exact %.5f, Che %.5f", m, half, exact, che)
	if math.Abs(m-exact) > half {
		t.Errorf("simulated %v ± %v, exact IRM law %v", m, half, exact)
	}
	if math.Abs(m-che) > half+math.Abs(che-exact) {
		t.Errorf("simulated %v ± %v, Che %v (its error %v)", m, half, che, che-exact)
	}
}

// Every policy at a point sees the same keys (common random numbers), in arrival order; with no keys they are 0.
func TestKeysCommonRandomNumbers(t *testing.T) {
	keysOf := func(pol string, set ...string) []uint64 {
		p := point(t, []model.Record{srvClass(t, 3)}, nil, pol, append([]string{"rate=100", "horizon=5000", "bin=0"}, set...)...)
		_, f := recordPolicy(t, p, 9)
		var ks []uint64
		for _, pk := range f.picks {
			if pk.req.Attempt == 0 {
				ks = append(ks, pk.req.Key)
			}
		}
		return ks
	}
	a, b := keysOf("round_robin", "keys=50"), keysOf("random", "keys=50")
	if len(a) == 0 || !slices.Equal(a, b) {
		t.Errorf("round_robin and random saw different keys (%d and %d requests)", len(a), len(b))
	}
	if slices.Max(a) > 50 || slices.Min(a) < 1 {
		t.Errorf("keys outside 1..50: %d..%d", slices.Min(a), slices.Max(a))
	}
	for _, x := range keysOf("random") {
		if x != 0 {
			t.Fatalf("no keys, but a request carried key %d", x)
		}
	}
}

// Random dispatch thins the key stream at random: every server's cache is an IRM LRU under the whole Zipf law, and
// theory_hit_ratio (Che) matches the simulated hit ratio over 10 replications within the 99.9% half-width plus Che's
// computed error against the exact law.
func TestCacheRandomDispatchTheory(t *testing.T) {
	const reps = 10
	p := point(t, []model.Record{srvClass(t, 3)}, nil, "random", "rate=150", "horizon=100000", "warmup=2000", "bin=0",
		"keys=100", "zipf=1", "cache=10")
	theory := (Model{}).Theory(p)
	if theory == nil {
		t.Fatal("no theory for random dispatch with caches")
	}
	row := metrics.NewRow().Row()
	theory(row)
	got := metrics.Edit(row).Get(colTheoryHitRatio)
	var m, m2 float64
	for rep := range reps {
		o := run(t, p, uint64(rep+1))
		var h, l int64
		for k := range o.hits {
			h, l = h+o.hits[k], l+o.lookups[k]
		}
		x := float64(h) / float64(l)
		m += x / reps
		m2 += x * x / reps
	}
	sd := math.Sqrt((m2 - m*m) * reps / (reps - 1))
	half := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: reps - 1}.Quantile(1-0.001/2) * sd / math.Sqrt(reps)
	pk := analytic.Zipf(100, 1)
	che, exact := analytic.CheHitRatio(pk, 10), analytic.LRUExactHitRatio(pk, 10)
	t.Logf("simulated %.5f ± %.5f (99.9%%), Che %.5f, exact %.5f", m, half, che, exact)
	if !got.Valid || math.Abs(got.F-che) > 1e-12 {
		t.Errorf("theory_hit_ratio %v, want Che's %v", got, che)
	}
	if math.Abs(m-che) > half+math.Abs(che-exact) {
		t.Errorf("simulated %v ± %v, Che %v (error %v)", m, half, che, che-exact)
	}
}

// modKeys sends key r to the (r mod m)-th eligible server, m the eligible count: a hash whose join moves most keys.
type modKeys struct{}

func (modKeys) Pick(v policy.View, r policy.Request, _ *sim.Rand) int {
	var ok []int
	for k := range v.Loads.N() {
		if v.Eligible == nil || v.Eligible[k] {
			ok = append(ok, k)
		}
	}
	return ok[int(r.Key)%len(ok)]
}

// keys_moved counts, of the keys requested before and after the first add, those whose server changed: with r mod
// 2 against r mod 3 over keys 1..60, all requested on both sides, the keys with r mod 6 ∉ {0, 1} move: exactly 2/3.
func TestKeysMoved(t *testing.T) {
	p := point(t, []model.Record{srvClass(t, 2), srvClass(t, 1, "active=false")}, []model.Record{entry(t, 5000, "add")},
		"random", "rate=200", "horizon=10000", "bin=0", "keys=60", "zipf=0")
	o := simulateWith(t, p, 1, modKeys{})
	if o.keysBoth != 60 || o.keysMoved != 40 {
		t.Errorf("keys_both %d, moved %d: want 60 and 40", o.keysBoth, o.keysMoved)
	}
}

// A kill empties the server's cache: with every key fitting, the misses are exactly the distinct keys before the
// kill and again after the restart (all 10 requested on both sides at 100 requests/s over 4 s each).
func TestKillEmptiesCache(t *testing.T) {
	p := point(t, []model.Record{srvClass(t, 1)}, []model.Record{entry(t, 4000, "kill"), entry(t, 4100, "restart")},
		"random", "rate=100", "horizon=8100", "bin=0", "keys=10", "zipf=0", "cache=10")
	o := run(t, p, 3)
	if miss := o.lookups[0] - o.hits[0]; miss != 20 {
		t.Errorf("%d misses in %d lookups, want 20 (10 keys, cold twice)", miss, o.lookups[0])
	}
}

// theoryOf returns point p's theory column col (null when none).
func theoryOf(p model.Point, col schema.Column) schema.Cell {
	theory := (Model{}).Theory(p)
	if theory == nil {
		return schema.Cell{}
	}
	row := metrics.NewRow().Row()
	theory(row)
	return metrics.Edit(row).Get(col)
}

// ring_hash sends each key to one server, so each server's cache is an IRM LRU over the keys its ring owns:
// theory_hit_ratio (Che per server, traffic-weighted) matches the simulated hit ratio over 10 replications within the
// 99.9% half-width plus Che's error against the exact law computed the same way.
func TestCacheRingHashTheory(t *testing.T) {
	const reps, k, c, s = 10, 200, 10, 0.9
	p := point(t, []model.Record{srvClass(t, 4)}, nil, "ring_hash", "rate=200", "horizon=100000", "warmup=2000", "bin=0",
		"keys=200", "zipf=0.9", "cache=10")
	got := theoryOf(p, colTheoryHitRatio)
	cfg := configOf(p)
	own := keyOwners(p, cfg)([]bool{true, true, true, true})
	pk := analytic.Zipf(k, s)
	che, exact := 0.0, 0.0
	for srv := range 4 {
		var q []float64
		total := 0.0
		for r, o := range own {
			if o == srv {
				q = append(q, pk[r])
				total += pk[r]
			}
		}
		for i := range q {
			q[i] /= total
		}
		che += total * analytic.CheHitRatio(q, c)
		exact += total * analytic.LRUExactHitRatio(q, c)
	}
	if !got.Valid || math.Abs(got.F-che) > 1e-12 {
		t.Fatalf("theory_hit_ratio %v, want %v", got, che)
	}
	var m, m2 float64
	for rep := range reps {
		o := run(t, p, uint64(rep+1))
		var h, l int64
		for j := range o.hits {
			h, l = h+o.hits[j], l+o.lookups[j]
		}
		x := float64(h) / float64(l)
		m += x / reps
		m2 += x * x / reps
	}
	sd := math.Sqrt((m2 - m*m) * reps / (reps - 1))
	half := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: reps - 1}.Quantile(1-0.001/2) * sd / math.Sqrt(reps)
	t.Logf("simulated %.5f ± %.5f (99.9%%), Che %.5f, exact %.5f", m, half, che, exact)
	if math.Abs(m-che) > half+math.Abs(che-exact) {
		t.Errorf("simulated %v ± %v, Che %v (error %v)", m, half, che, che-exact)
	}
}

// ring_hash is deterministic: when every key is requested before and after the add, keys_moved is exactly the ring's
// share of keys whose owner changes (theory_keys_moved), and only to the new server.
func TestRingKeysMovedExact(t *testing.T) {
	p := point(t, []model.Record{srvClass(t, 5), srvClass(t, 1, "active=false")}, []model.Record{entry(t, 10000, "add")},
		"ring_hash", "rate=500", "horizon=20000", "bin=0", "keys=100", "zipf=0")
	o := run(t, p, 1)
	want := theoryOf(p, colTheoryKeysMoved)
	if o.keysBoth != 100 || !want.Valid || float64(o.keysMoved)/100 != want.F {
		t.Errorf("keys_both %d, moved %d; theory %v", o.keysBoth, o.keysMoved, want)
	}
	t.Logf("moved %d of 100 keys (1/(n+1) = %.3f)", o.keysMoved, 1.0/6)
}

// Keyed policies need keys; caches, zipf and hit_cost need what they refine.
func TestKeysCheck(t *testing.T) {
	for _, c := range []struct {
		pol   string
		set   []string
		param string
	}{
		{"ring_hash", nil, "policy"},
		{"random", []string{"zipf=1"}, "zipf"},
		{"random", []string{"cache=5"}, "cache"},
		{"random", []string{"keys=10", "hit_cost=0.5"}, "hit_cost"},
		{"random", []string{"keys=10", "cache=5", "hit_cost=1.5"}, "hit_cost"},
		{"random", []string{"keys=0"}, "keys"},
	} {
		p := raw(t, []model.Record{srvClass(t, 2)}, nil, c.pol, append([]string{"rate=10", "horizon=1000"}, c.set...)...)
		if err := (Model{}).Resolve(p); err != nil {
			t.Fatal(err)
		}
		_, err := (Model{}).Check(p, model.CheckOptions{})
		if is, ok := err.(model.Issue); !ok || is.Param != c.param {
			t.Errorf("%s %v: %v, want an issue on %s", c.pol, c.set, err, c.param)
		}
	}
}

// The capacity check counts a hit at hit_cost of a miss and credits the caches with at most their Zipf head: 2
// servers of 1 worker at 20 ms each serve 100 misses/s. At 150/s all misses would be 150%; caches of 5 keys each
// hold at most the 10 hottest of 10 keys (uniform: mass 1), so the bound is 150%·0.1 = 15%: accepted. With keys =
// 100 uniform, the head is 10%, the bound 150%·(1 − 0.9·0.1) = 136.5%: refused on rate. Without caches: refused.
func TestKeysCapacityCheck(t *testing.T) {
	for _, c := range []struct {
		set []string
		ok  bool
	}{
		{[]string{"keys=10", "zipf=0", "cache=5"}, true},
		{[]string{"keys=100", "zipf=0", "cache=5"}, false},
		{[]string{"keys=10", "zipf=0"}, false},
	} {
		p := raw(t, []model.Record{srvClass(t, 2)}, nil, "random", append([]string{"rate=150", "mean=20", "workers=1", "horizon=1000"}, c.set...)...)
		if err := (Model{}).Resolve(p); err != nil {
			t.Fatal(err)
		}
		_, err := (Model{}).Check(p, model.CheckOptions{})
		if c.ok && err != nil {
			t.Errorf("%v: %v, want accepted (the caches' bound is below capacity)", c.set, err)
		}
		if is, isIssue := err.(model.Issue); !c.ok && (!isIssue || is.Param != "rate") {
			t.Errorf("%v: %v, want an issue on rate", c.set, err)
		}
	}
}
