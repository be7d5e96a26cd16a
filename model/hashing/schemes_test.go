package hashing

import (
	"fmt"
	"math"
	"testing"
)

// scheme builds a lookup over n servers with a salt, for the invariants every scheme must meet.
type scheme struct {
	name     string
	build    func(n int, salt uint64) func(h uint64) int
	monotone bool // a join moves keys only to the new server
}

var schemes = []scheme{
	{"ring_per_host", func(n int, salt uint64) func(uint64) int {
		r := NewRing(RingConfig{N: n, PerHost: 40, Salt: salt})
		return func(h uint64) int { return r.Owner(r.Find(h)) }
	}, true},
	{"ring_min_size", func(n int, salt uint64) func(uint64) int {
		r := NewRing(RingConfig{N: n, MinRingSize: 1024, Salt: salt})
		return func(h uint64) int { return r.Owner(r.Find(h)) }
	}, true}, // n = 100 → 101 keeps 11 entries per host
	{"maglev", func(n int, salt uint64) func(uint64) int {
		g := NewMaglev(MaglevConfig{N: n, TableSize: 5003, Salt: salt})
		return g.Lookup
	}, false},
	{"jump", func(n int, _ uint64) func(uint64) int {
		return func(h uint64) int { b, _ := Jump(h, n); return b }
	}, true},
	{"rendezvous", func(n int, salt uint64) func(uint64) int { return NewRendezvous(n, nil, salt).Lookup }, true},
	{"rendezvous_weighted", func(n int, salt uint64) func(uint64) int {
		w := make([]float64, n)
		for i := range w {
			w[i] = 1 + float64(i%3)
		}
		return NewRendezvous(n, w, salt).Lookup
	}, true}, // the join adds a weight, so shares are renormalized, but keys still move only to the new server
	{"multi_probe", func(n int, salt uint64) func(uint64) int { return NewMultiProbe(n, DefaultProbes, salt).Lookup }, true},
}

// TestSchemesDeterministicInRangeMonotone checks, for every scheme: lookups are in [0, n) and reproducible across
// builds of one configuration, and, where the scheme promises it, a join (n = 100 → 101) moves keys only to the new
// server. Maglev's moves are measured and logged, not asserted (it is not monotone).
func TestSchemesDeterministicInRangeMonotone(t *testing.T) {
	const n, keys = 100, 50000
	for _, sc := range schemes {
		a, b := sc.build(n, 7), sc.build(n, 7)
		after := sc.build(n+1, 7)
		moved, wrong := 0, 0
		for k := uint64(0); k < keys; k++ {
			h := Key(k, 3)
			s := a(h)
			if s < 0 || s >= n {
				t.Fatalf("%s: key %d → server %d, out of [0, %d)", sc.name, k, s, n)
			}
			if b(h) != s {
				t.Fatalf("%s: key %d → %d, then %d on a rebuild", sc.name, k, s, b(h))
			}
			if u := after(h); u != s {
				moved++
				if u != n {
					wrong++
				}
			}
		}
		t.Logf("%s: join moved %.4f of keys (ideal 1/(n+1) = %.4f), %d of them between old servers", sc.name, float64(moved)/keys, 1.0/(n+1), wrong)
		if sc.monotone && wrong > 0 {
			t.Errorf("%s: %d keys moved between unchanged servers on a join", sc.name, wrong)
		}
		if moved == 0 {
			t.Errorf("%s: no key moved to the new server", sc.name)
		}
	}
}

// TestLeaveMovesOnlyTheLeaversKeys: removing the last server moves only its keys, for the schemes that promise it
// (jump only for the last bucket).
func TestLeaveMovesOnlyTheLeaversKeys(t *testing.T) {
	const n = 50
	for _, sc := range schemes {
		if !sc.monotone {
			continue
		}
		before, after := sc.build(n, 11), sc.build(n-1, 11)
		for k := uint64(0); k < 20000; k++ {
			h := Key(k, 5)
			if s := before(h); s != n-1 && after(h) != s {
				t.Fatalf("%s: key %d on server %d moved to %d when server %d left", sc.name, k, s, after(h), n-1)
			}
		}
	}
}

// TestMaglevEqualWeightsFillEvenly: with equal weights every server claims one slot per round, so counts differ by at
// most one and sum to M.
func TestMaglevEqualWeightsFillEvenly(t *testing.T) {
	for _, n := range []int{1, 3, 100, 1000} {
		g := NewMaglev(MaglevConfig{N: n, Salt: uint64(n)})
		lo, hi, sum := math.MaxInt, 0, 0
		for s := 0; s < n; s++ {
			lo, hi, sum = min(lo, g.Count(s)), max(hi, g.Count(s)), sum+g.Count(s)
		}
		if sum != DefaultTableSize || hi-lo > 1 || lo != DefaultTableSize/n {
			t.Errorf("n = %d: counts in [%d, %d], sum %d", n, lo, hi, sum)
		}
		if g.Probes() < DefaultTableSize {
			t.Errorf("n = %d: %d probes for %d slots", n, g.Probes(), DefaultTableSize)
		}
	}
}

// TestMaglevWeightsAsEnvoyDocuments: Envoy's docs (v1.31.0, arch_overview/upstream/load_balancing/load_balancers):
// "if host A has a weight of 1 and host B has a weight of 2, then host A will have 21,846 entries and host B will
// have 43,691 entries".
func TestMaglevWeightsAsEnvoyDocuments(t *testing.T) {
	for salt := uint64(0); salt < 5; salt++ {
		g := NewMaglev(MaglevConfig{N: 2, Weights: []float64{1, 2}, Salt: salt})
		if g.Count(0) != 21846 || g.Count(1) != 43691 {
			t.Errorf("salt %d: counts %d, %d; Envoy documents 21846, 43691", salt, g.Count(0), g.Count(1))
		}
	}
}

// TestMaglevValidate lists rejected tables.
func TestMaglevValidate(t *testing.T) {
	for _, c := range []MaglevConfig{{N: 0}, {N: 2, TableSize: 65536}, {N: 2, TableSize: 1}, {N: 8, TableSize: 7}, {N: 2, Weights: []float64{1, -1}},
		// Envoy's bound: the next prime above 5000011, and the largest int32 prime (an 8 GB table before the bound).
		{N: 2, TableSize: 5000077}, {N: 2, TableSize: 2147483647}} {
		if c.Validate() == nil {
			t.Errorf("%+v accepted", c)
		}
	}
	if err := (MaglevConfig{N: 2, TableSize: MaxTableSize}).Validate(); err != nil {
		t.Errorf("Envoy's largest table_size refused: %v", err)
	}
	if !prime(65537) || prime(65535) || !prime(2) || prime(1) {
		t.Error("prime is wrong")
	}
}

// binomialCheck fails when a count is outside its binomial 99.9% interval (z = 3.29), for counts[i] of trials with
// success probability p[i]; with ≤ 10 cells the family-wise α is ≤ 0.01 (Bonferroni).
func binomialCheck(t *testing.T, what string, counts []float64, p []float64, trials float64) {
	t.Helper()
	for i := range counts {
		sd := math.Sqrt(trials * p[i] * (1 - p[i]))
		if d := math.Abs(counts[i] - trials*p[i]); d > 3.29*sd {
			t.Errorf("%s: cell %d has %g, expected %.0f ± %.0f", what, i, counts[i], trials*p[i], sd)
		}
	}
}

// TestJumpIsExactlyUniform: every bucket's probability is exactly 1/n (Lamping & Veach §2), so counts of m hashed
// keys are Multinomial(m; 1/n, …).
func TestJumpIsExactlyUniform(t *testing.T) {
	const n, m = 10, 200000
	counts := make([]float64, n)
	steps := 0
	for k := uint64(0); k < m; k++ {
		b, s := Jump(Key(k, 9), n)
		counts[b]++
		steps += s
	}
	p := make([]float64, n)
	for i := range p {
		p[i] = 1.0 / n
	}
	binomialCheck(t, "jump", counts, p, m)
	// Jumps per key: 1 + Σ_{j=1}^{n-1} Bernoulli(1/(j+1)), independent (the key lands in bucket j with probability
	// 1/(j+1) given it reached j+1 buckets), so the mean is H_n and the variance Σ p(1−p); z = 3.89 is α = 10^-4.
	hn, v := 0.0, 0.0
	for j := 1; j <= n; j++ {
		hn += 1 / float64(j)
		if j > 1 {
			v += 1 / float64(j) * (1 - 1/float64(j))
		}
	}
	if mean, sd := float64(steps)/m, math.Sqrt(v/m); math.Abs(mean-hn) > 3.89*sd {
		t.Errorf("jump: %.4f steps per key, expected H_n = %.4f ± %.4f", mean, hn, sd)
	}
}

// TestRendezvousWeightedShares: the logarithmic method gives server s a share w_s/Σw exactly.
func TestRendezvousWeightedShares(t *testing.T) {
	w := []float64{1, 2, 3, 4}
	r := NewRendezvous(4, w, 13)
	const m = 200000
	counts := make([]float64, 4)
	for k := uint64(0); k < m; k++ {
		counts[r.Lookup(Key(k, 1))]++
	}
	binomialCheck(t, "weighted rendezvous", counts, []float64{0.1, 0.2, 0.3, 0.4}, m)
}

// TestBoundedCapHolds: every server ends at or below ⌈(1+ε)m/n⌉, all keys are placed, and ε = 0 with n | m fills
// every server exactly.
func TestBoundedCapHolds(t *testing.T) {
	for _, c := range []struct {
		n, m int
		eps  float64
	}{{100, 10000, 0.25}, {100, 10000, 0}, {37, 5000, 0.1}, {10, 7, 0.5}, {5, 0, 0.25}} {
		r := NewRing(RingConfig{N: c.n, MinRingSize: 1024, Salt: 1})
		b := NewBounded(r, c.n, nil, c.m, c.eps)
		for k := 0; k < c.m; k++ {
			if s, steps := b.Place(Key(uint64(k), 2)); s < 0 || steps < 1 {
				t.Fatalf("%+v: key %d not placed", c, k)
			}
		}
		total, cp := 0, Capacity(c.m, c.n, c.eps)
		for s := 0; s < c.n; s++ {
			total += b.Load(s)
			if b.Load(s) > cp || b.Cap(s) != cp {
				t.Errorf("%+v: server %d holds %d, cap %d (%d)", c, s, b.Load(s), cp, b.Cap(s))
			}
			if c.eps == 0 && c.m%c.n == 0 && b.Load(s) != c.m/c.n {
				t.Errorf("%+v: server %d holds %d, want exactly %d", c, s, b.Load(s), c.m/c.n)
			}
		}
		if total != c.m {
			t.Errorf("%+v: %d keys placed", c, total)
		}
	}
}

// TestBoundedFullRing: a key past every capacity finds no server.
func TestBoundedFullRing(t *testing.T) {
	r := NewRing(RingConfig{N: 2, PerHost: 3})
	b := NewBounded(r, 2, nil, 2, 0)
	b.Place(1)
	b.Place(2)
	if s, _ := b.Place(3); s != -1 {
		t.Errorf("third key placed on %d past capacity", s)
	}
}

// Benchmarks: 10^3 servers, keys hashed with Key; b.N keys, reported as keys/s.
func BenchmarkSchemes(b *testing.B) {
	const n = 1000
	for _, sc := range schemes {
		if sc.name == "rendezvous_weighted" {
			continue
		}
		f := sc.build(n, 1)
		b.Run(sc.name, func(b *testing.B) {
			s := 0
			for i := 0; i < b.N; i++ {
				s += f(Key(uint64(i), 1))
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "keys/s")
			_ = fmt.Sprint(s > 0)
		})
	}
	b.Run("bounded", func(b *testing.B) {
		r := NewRing(RingConfig{N: n, MinRingSize: 1024, Salt: 1})
		bd := NewBounded(r, n, nil, b.N, 0.25)
		for i := 0; i < b.N; i++ {
			bd.Place(Key(uint64(i), 1))
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "keys/s")
	})
}

// TestHugeWeights: finite weights whose sum overflows (3 × 10^308) build the same tables as equal weights; before,
// the shares were x/+Inf = 0 and the ring panicked in makeslice, Maglev and rendezvous on the joining host's +Inf
// mean weight upstream.
func TestHugeWeights(t *testing.T) {
	w := []float64{1e308, 1e308, 1e308}
	r, e := NewRing(RingConfig{N: 3, Weights: w, MinRingSize: 1024}), NewRing(RingConfig{N: 3, MinRingSize: 1024})
	if r.Entries() != e.Entries() || r.Count(0) != e.Count(0) {
		t.Errorf("ring with weights 1e308: %d entries (%d on host 0), equal weights: %d (%d)", r.Entries(), r.Count(0), e.Entries(), e.Count(0))
	}
	g := NewMaglev(MaglevConfig{N: 3, Weights: w, TableSize: 65537})
	if g.Count(0)+g.Count(1)+g.Count(2) != 65537 || g.Count(0) < 21845 || g.Count(0) > 21846 {
		t.Errorf("maglev with weights 1e308: counts %d, %d, %d", g.Count(0), g.Count(1), g.Count(2))
	}
}

// TestBoundedHugeEpsilon: a huge ε caps nothing (every cap is m, the plain ring's placement); before, ⌈(1+ε)m/n⌉
// overflowed the int conversion to a negative cap and no key found room.
func TestBoundedHugeEpsilon(t *testing.T) {
	for _, eps := range []float64{1e12, 1e300, math.MaxFloat64} {
		r := NewRing(RingConfig{N: 10, MinRingSize: 1024, Salt: 3})
		b := NewBounded(r, 10, nil, 1000, eps)
		if Capacity(1000, 10, eps) != 1000 {
			t.Errorf("ε = %g: Capacity %d, want m = 1000", eps, Capacity(1000, 10, eps))
		}
		for k := uint64(0); k < 1000; k++ {
			h := Key(k, 5)
			if s, steps := b.Place(h); s != r.Owner(r.Find(h)) || steps != 1 {
				t.Fatalf("ε = %g: key %d on server %d after %d steps, the ring says %d", eps, k, s, steps, r.Owner(r.Find(h)))
			}
		}
	}
}
