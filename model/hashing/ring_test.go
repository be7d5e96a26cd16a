package hashing

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/cespare/xxhash/v2"
)

// TestKeyIsXXHash64 checks Key against the reference Go implementation of xxHash64 with a seed.
func TestKeyIsXXHash64(t *testing.T) {
	for _, c := range []struct{ key, salt uint64 }{{0, 0}, {1, 0}, {42, 7}, {math.MaxUint64, 1 << 63}, {12345678, 99}} {
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], c.key)
		d := xxhash.NewWithSeed(c.salt)
		d.Write(b[:])
		if got, want := Key(c.key, c.salt), d.Sum64(); got != want {
			t.Errorf("Key(%d, %d) = %#x, xxhash says %#x", c.key, c.salt, got, want)
		}
	}
}

// TestRingSizesFollowEnvoy checks the entry counts of Envoy v1.31.0's scale and running-sum rule.
func TestRingSizesFollowEnvoy(t *testing.T) {
	cases := []struct {
		name    string
		c       RingConfig
		entries int
		counts  []int // nil: all equal to entries/N
	}{
		// seed 002 §8: 100 equal hosts at the default minimum 1024 get ⌈10.24⌉ = 11 entries each.
		{"100 hosts at 1024", RingConfig{N: 100, MinRingSize: 1024}, 1100, nil},
		// 1000 hosts: ⌈1.024⌉ = 2 each (the v1 API doc's "a single virtual node" when hosts outnumber the minimum no
		// longer holds at v1.31.0).
		{"1000 hosts at 1024", RingConfig{N: 1000, MinRingSize: 1024}, 2000, nil},
		{"3 hosts at 1024", RingConfig{N: 3, MinRingSize: 1024}, 1026, nil},
		// ring_hash_lb.cc's own comment: 4 equal hosts, scale capped at 6 by maximum_ring_size → 2, 1, 2, 1.
		{"envoy comment", RingConfig{N: 4, MinRingSize: 6, MaxRingSize: 6}, 6, []int{2, 1, 2, 1}},
		// weights 1:2:1 (w_min = 1/4): scale = ⌈256⌉/0.25 = 1024, targets 256, 768, 1024.
		{"weights 1:2:1", RingConfig{N: 3, MinRingSize: 1024, Weights: []float64{1, 2, 1}}, 1024, []int{256, 512, 256}},
		// weights 1:3 at 10: w_min = 1/4, scale = ⌈2.5⌉/0.25 = 12 → 3, 9.
		{"weights 1:3", RingConfig{N: 2, MinRingSize: 10, Weights: []float64{1, 3}}, 12, []int{3, 9}},
		{"per host", RingConfig{N: 7, PerHost: 160}, 1120, nil},
		{"per host weighted", RingConfig{N: 2, PerHost: 100, Weights: []float64{1, 3}}, 200, []int{50, 150}},
	}
	for _, tc := range cases {
		r := NewRing(tc.c)
		if r.Entries() != tc.entries {
			t.Errorf("%s: %d entries, want %d", tc.name, r.Entries(), tc.entries)
		}
		for s := 0; s < tc.c.N; s++ {
			want := tc.entries / tc.c.N
			if tc.counts != nil {
				want = tc.counts[s]
			}
			if r.Count(s) != want {
				t.Errorf("%s: server %d has %d entries, want %d", tc.name, s, r.Count(s), want)
			}
		}
	}
}

// TestRingFind checks Find against a linear scan, at and between entry positions and past both ends, and Owner's
// wrap-around.
func TestRingFind(t *testing.T) {
	r := NewRing(RingConfig{N: 5, PerHost: 20, Salt: 3})
	linear := func(h uint64) int {
		for i := 0; i < r.Entries(); i++ {
			if r.Position(i) >= h {
				return i
			}
		}
		return 0
	}
	for i := 1; i < r.Entries(); i++ {
		if r.Position(i-1) > r.Position(i) {
			t.Fatalf("positions not sorted at %d", i)
		}
	}
	probes := []uint64{0, 1, math.MaxUint64, r.Position(0), r.Position(r.Entries() - 1), r.Position(r.Entries()-1) + 1}
	for i := 0; i < r.Entries(); i++ {
		probes = append(probes, r.Position(i), r.Position(i)-1, r.Position(i)+1)
	}
	for k := uint64(0); k < 1000; k++ {
		probes = append(probes, Key(k, 11))
	}
	for _, h := range probes {
		if got, want := r.Find(h), linear(h); got != want {
			t.Fatalf("Find(%#x) = %d, want %d", h, got, want)
		}
	}
	for i := 0; i < 3*r.Entries(); i++ {
		if r.Owner(i) != r.Owner(i%r.Entries()) {
			t.Fatalf("Owner(%d) does not wrap", i)
		}
	}
}

// TestRingDeterministicAndSalted checks that equal configs build identical rings and that salts give different ones.
func TestRingDeterministicAndSalted(t *testing.T) {
	c := RingConfig{N: 10, MinRingSize: 1024, Salt: 5}
	a, b := NewRing(c), NewRing(c)
	c.Salt = 6
	d := NewRing(c)
	same := 0
	for i := 0; i < a.Entries(); i++ {
		if a.Position(i) != b.Position(i) || a.Owner(i) != b.Owner(i) {
			t.Fatalf("entry %d differs between two builds of one config", i)
		}
		if a.Position(i) == d.Position(i) {
			same++
		}
	}
	if same > 0 {
		t.Errorf("salts 5 and 6 share %d positions", same)
	}
}

// TestRingJoinIsMonotone checks that adding a server moves keys only to it, where the entry counts of the others do
// not change (PerHost; MinRingSize 1024 from 100 to 101 hosts: 11 entries each both times).
func TestRingJoinIsMonotone(t *testing.T) {
	for _, pair := range [][2]RingConfig{
		{{N: 20, PerHost: 50, Salt: 9}, {N: 21, PerHost: 50, Salt: 9}},
		{{N: 100, MinRingSize: 1024, Salt: 9}, {N: 101, MinRingSize: 1024, Salt: 9}},
	} {
		before, after := NewRing(pair[0]), NewRing(pair[1])
		moved := 0
		for k := uint64(0); k < 100000; k++ {
			h := Key(k, 1)
			s, u := before.Owner(before.Find(h)), after.Owner(after.Find(h))
			if s != u {
				moved++
				if u != pair[1].N-1 {
					t.Fatalf("N %d→%d: key %d moved from %d to %d, not to the new server", pair[0].N, pair[1].N, k, s, u)
				}
			}
		}
		if moved == 0 {
			t.Errorf("N %d→%d: no key moved to the new server", pair[0].N, pair[1].N)
		}
	}
}

// TestRingKeysFollowArcs checks that the share of keys a server receives matches the share of the ring its arcs
// cover (the gap before each of its entries): with 2·10^5 keys, a binomial count's 99.9% interval (z = 3.29) is
// applied to each of 10 servers (Bonferroni: family-wise α ≈ 0.01).
func TestRingKeysFollowArcs(t *testing.T) {
	r := NewRing(RingConfig{N: 10, PerHost: 3, Salt: 21})
	arc := make([]float64, 10)
	for i := 0; i < r.Entries(); i++ {
		var gap uint64
		if i == 0 {
			gap = r.Position(0) - r.Position(r.Entries()-1) // wraps mod 2^64
		} else {
			gap = r.Position(i) - r.Position(i-1)
		}
		arc[r.Owner(i)] += float64(gap) / math.Exp2(64)
	}
	const m = 200000
	counts := make([]float64, 10)
	for k := uint64(0); k < m; k++ {
		counts[r.Owner(r.Find(Key(k, 77)))]++
	}
	for s, p := range arc {
		sd := math.Sqrt(m * p * (1 - p))
		if d := math.Abs(counts[s] - m*p); d > 3.29*sd {
			t.Errorf("server %d: %g keys, arc predicts %.0f ± %.0f", s, counts[s], m*p, sd)
		}
	}
}

// TestRingValidate lists the configs NewRing rejects.
func TestRingValidate(t *testing.T) {
	for _, c := range []RingConfig{
		{N: 0, PerHost: 1},
		{N: 2},
		{N: 2, MinRingSize: -1},
		{N: 2, MinRingSize: 10, MaxRingSize: 5},
		{N: 2, PerHost: 1, Weights: []float64{1}},
		{N: 2, PerHost: 1, Weights: []float64{1, 0}},
		{N: 2, PerHost: 1, Weights: []float64{1, math.NaN()}},
		{N: 2, PerHost: 1, Weights: []float64{1, math.Inf(1)}},
	} {
		if c.Validate() == nil {
			t.Errorf("%+v: Validate accepted it", c)
		}
	}
	if err := (RingConfig{N: 1, MinRingSize: 1024}).Validate(); err != nil {
		t.Errorf("a one-server ring: %v", err)
	}
}

func BenchmarkRingFind(b *testing.B) {
	r := NewRing(RingConfig{N: 1000, MinRingSize: 1024})
	b.ResetTimer()
	s := 0
	for i := 0; i < b.N; i++ {
		s += r.Owner(r.Find(Key(uint64(i), 1)))
	}
	_ = s
}
