package policy

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"lbsweep/model"
	"lbsweep/model/hashing"
	"lbsweep/model/sim"
)

// skewedKey draws a key with a heavy head (key 0 about a fifth of the time, then a long tail up to 9999), so that hot
// keys overload their owners and the bounded-load walk is exercised.
func skewedKey(r *sim.Rand) uint64 {
	if r.IntN(5) == 0 {
		return 0
	}
	return uint64(r.IntN(r.IntN(10_000) + 1))
}

// randomMask sets each server eligible with probability ½, at least one; nil one time in four.
func randomMask(r *sim.Rand, mask []bool) []bool {
	if r.IntN(4) == 0 {
		return nil
	}
	any := false
	for k := range mask {
		mask[k] = r.IntN(2) == 0
		any = any || mask[k]
	}
	if !any {
		mask[r.IntN(len(mask))] = true
	}
	return mask
}

// churn moves the loads: one departure from a random busy server half the time.
func churn(l *sim.Levels, r *sim.Rand, now float64) {
	if busy := l.Count(1); busy > 0 && r.IntN(2) == 0 {
		l.Down(l.Busy(r.IntN(busy)), now)
	}
}

// ownerByScan is the reference lookup, a linear scan of the ring in entry order: the owner of the first entry at or
// after position h whose owner is eligible, or of the first eligible entry when none is at or after h (the ring
// without the ineligible servers' entries, read off directly).
func ownerByScan(r *hashing.Ring, h uint64, eligible []bool) int {
	first := -1
	for i := range r.Entries() {
		s := r.Owner(i)
		if eligible != nil && !eligible[s] {
			continue
		}
		if first < 0 {
			first = s
		}
		if r.Position(i) >= h {
			return s
		}
	}
	return first
}

// ring_hash picks the ring's owner of the key's position (an independently built ring, Envoy's 1024 entries) when
// every server is eligible, and the reference owner of the ring without the ineligible servers under random masks,
// for equal and unequal weights; every pick draws no random number.
func TestRingHashOwner(t *testing.T) {
	for _, s := range []Servers{{N: 1}, {N: 7}, {N: 100}, {N: 7, Weight: []float64{5, 1, 1, 2, 2, 3, 1}}} {
		c := RingHashConfig{RingConfig{MinRingSize: 1024}}
		if err := c.Check(s); err != nil {
			t.Fatal(err)
		}
		p := c.New(s)
		ring := hashing.NewRing(hashing.RingConfig{N: s.N, Weights: s.Weight, MinRingSize: 1024})
		l := sim.NewLevels(s.N)
		r := sim.NewRand(1, uint64(s.N))
		mask := make([]bool, s.N)
		for i := range 20_000 {
			key := uint64(r.IntN(1 << 20))
			var m []bool
			if i%2 == 1 {
				m = randomMask(r, mask)
			}
			got := p.Pick(View{Loads: l, Eligible: m}, Request{Key: key}, nil) // nil Rand: a draw would panic
			if m == nil {
				if want := ring.Owner(ring.Find(KeyPosition(key))); got != want {
					t.Fatalf("n=%d: key %d: picked %d, ring owner %d", s.N, key, got, want)
				}
			}
			if want := ownerByScan(ring, KeyPosition(key), m); got != want {
				t.Fatalf("n=%d, mask %v: key %d: picked %d, the ring without the ineligible gives %d", s.N, m, key, got, want)
			}
		}
	}
}

// Walking past an ineligible server is the ring rebuilt without it, and monotone: at 65 equal servers and Envoy's
// 1024 entries every server has ⌈1024/65⌉ = 16 entries, as at 64 (1024/64 = 16), so the ring over servers 0..63 is
// the 65-server ring less server 64's entries. (Not 100 → 99: ⌈1024/99⌉ = 11 too, but the floating-point running
// target gives one of the 99 servers a 12th entry.) With server 64 ineligible every key goes where the 64-server ring
// sends it; the keys that move are exactly server 64's, and their count over 10^5 keys is binomial with the share of
// the ring its 16 arcs cover (±4.5σ).
func TestRingHashIneligibleIsRebuiltRing(t *testing.T) {
	const n, keys = 65, 100_000
	p := RingHashConfig{RingConfig{MinRingSize: 1024}}.New(Servers{N: n})
	small := hashing.NewRing(hashing.RingConfig{N: n - 1, MinRingSize: 1024})
	full := hashing.NewRing(hashing.RingConfig{N: n, MinRingSize: 1024})
	for s := range n - 1 {
		if full.Count(s) != 16 || small.Count(s) != 16 {
			t.Fatalf("server %d: %d and %d entries, want 16 on both rings", s, full.Count(s), small.Count(s))
		}
	}
	mask := make([]bool, n)
	for k := range mask {
		mask[k] = k != n-1
	}
	l := sim.NewLevels(n)
	moved := 0
	for key := range uint64(keys) {
		before := p.Pick(View{Loads: l}, Request{Key: key}, nil)
		after := p.Pick(View{Loads: l, Eligible: mask}, Request{Key: key}, nil)
		if want := small.Owner(small.Find(KeyPosition(key))); after != want {
			t.Fatalf("key %d: %d without server %d, the rebuilt ring gives %d", key, after, n-1, want)
		}
		switch {
		case before != after && before != n-1:
			t.Fatalf("key %d moved from %d to %d, but only server %d left", key, before, after, n-1)
		case before != after:
			moved++
		}
	}
	// server n−1's share of the ring: the arcs ending at its entries.
	share := 0.0
	for i := range full.Entries() {
		if full.Owner(i) == n-1 {
			prev := full.Position((i + full.Entries() - 1) % full.Entries())
			share += float64(full.Position(i)-prev) / (1 << 64) // unsigned difference wraps for the first entry
		}
	}
	b := distuv.Binomial{N: keys, P: share}
	t.Logf("moved %d of %d keys; server %d covers %.5f of the ring (expected %.0f ± %.0f)", moved, keys, n-1, share, b.Mean(), b.StdDev())
	if sd := b.StdDev(); float64(moved) < b.Mean()-4.5*sd || float64(moved) > b.Mean()+4.5*sd {
		t.Errorf("%d keys moved, server %d's arcs cover %.4f of the ring: expected %.0f ± %.0f", moved, n-1, share, b.Mean(), 4.5*sd)
	}
}

// bounded_load's invariant (Mirrokni et al.): after every pick the server picked holds at most its cap
// ⌈(1+ε)(T+1)·w/W⌉, T the requests in flight before the pick, W the eligible weight (their count, equal weights), both
// recomputed here from scratch; and the pick is the first eligible server clockwise from the key's entry that is below
// its cap (every server walked past is ineligible or full), with a hot key, changing loads and random masks, for
// equal and unequal weights and several ε.
func TestBoundedLoadCap(t *testing.T) {
	sets := []Servers{{N: 1}, {N: 2}, {N: 10}, {N: 50}, {N: 10, Weight: []float64{4, 1, 1, 2, 2, 3, 1, 1, 1, 8}}}
	for _, s := range sets {
		// ε = 1e300: every cap is the requests in flight + 1 (BoundedLoadCap clamps; +Inf's int64 was MinInt64).
		for _, eps := range []float64{0.01, 0.25, 1, 1e300} {
			c := BoundedLoadConfig{RingConfig: RingConfig{MinRingSize: 1024}, Epsilon: eps}
			if err := c.Check(s); err != nil {
				t.Fatal(err)
			}
			p := c.New(s)
			ring := c.ring(s)
			w := s.weights()
			l := sim.NewLevels(s.N)
			r := sim.NewRand(3, uint64(s.N))
			mask := make([]bool, s.N)
			walked := 0
			for i := range 30_000 {
				m := randomMask(r, mask)
				key := skewedKey(r)
				inFlight, wSum := int64(0), 0.0
				for k := range s.N {
					inFlight += int64(l.Len(k))
					if m == nil || m[k] {
						wSum += w[k]
					}
				}
				capOf := func(k int) int64 { return BoundedLoadCap(eps, inFlight, w[k], wSum) }
				got := p.Pick(View{Loads: l, Eligible: m}, Request{Key: key, Now: float64(i)}, nil)
				want := -1
				for j, e := 0, ring.Find(KeyPosition(key)); j < ring.Entries(); j++ {
					k := ring.Owner(e + j)
					if (m == nil || m[k]) && int64(l.Len(k)) < capOf(k) {
						want = k
						break
					}
					walked++
				}
				if got != want {
					t.Fatalf("n=%d ε=%v pick %d: key %d got %d, the first eligible server below its cap is %d", s.N, eps, i, key, got, want)
				}
				l.Up(got, float64(i))
				if q := int64(l.Len(got)); q > capOf(got) {
					t.Fatalf("n=%d ε=%v pick %d: server %d holds %d > cap %d (in flight %d)", s.N, eps, i, got, q, capOf(got), inFlight+1)
				}
				churn(l, r, float64(i))
			}
			if s.N > 2 && walked == 0 {
				t.Errorf("n=%d ε=%v: no pick ever walked past a server: the test does not load the ring", s.N, eps)
			}
		}
	}
}

// hash_p2c with k = 1 is ring_hash, pick for pick, under masks and changing loads (and draws nothing); with k = n and
// every server eligible it is jsq_d with d = 2 (PickTwoChoices), pick for pick from identically seeded streams; with
// 1 < k < n both drawn candidates are among the key's first k distinct eligible owners clockwise, and the pick is the
// less loaded of two distinct ones.
func TestHashP2CEquivalences(t *testing.T) {
	for _, n := range []int{1, 2, 10, 60} {
		s := Servers{N: n}
		ring := RingConfig{MinRingSize: 1024}
		one := HashP2CConfig{RingConfig: ring, K: 1}.New(s)
		rh := RingHashConfig{ring}.New(s)
		all := HashP2CConfig{RingConfig: ring, K: n}.New(s)
		two := JSQdConfig{D: 2}.New(s)
		l := sim.NewLevels(n)
		r, ra, rb := sim.NewRand(4, uint64(n)), sim.NewRand(5, uint64(n)), sim.NewRand(5, uint64(n))
		mask := make([]bool, n)
		for i := range 20_000 {
			key := skewedKey(r)
			m := randomMask(r, mask)
			v := View{Loads: l, Eligible: m}
			if a, b := one.Pick(v, Request{Key: key}, nil), rh.Pick(v, Request{Key: key}, nil); a != b {
				t.Fatalf("n=%d: key %d: candidates=1 picked %d, ring_hash %d", n, key, a, b)
			}
			if n >= 2 {
				if a, b := all.Pick(View{Loads: l}, Request{Key: key}, ra), two.Pick(View{Loads: l}, Request{}, rb); a != b {
					t.Fatalf("n=%d pick %d: candidates=n picked %d, two choices %d", n, i, a, b)
				}
			}
			l.Up(rh.Pick(v, Request{Key: key}, nil), float64(i))
			churn(l, r, float64(i))
		}
	}
	// 1 < k < n: the set, and two distinct draws from it.
	const n, k = 30, 4
	s := Servers{N: n}
	c := HashP2CConfig{RingConfig: RingConfig{MinRingSize: 1024}, K: k}
	p, ring := c.New(s), c.ring(s)
	l := sim.NewLevels(n)
	r, draws := sim.NewRand(6, 6), sim.NewRand(7, 7)
	mask := make([]bool, n)
	for i := range 20_000 {
		key := skewedKey(r)
		m := randomMask(r, mask)
		var set []int
		for j, e := 0, ring.Find(KeyPosition(key)); j < ring.Entries() && len(set) < k; j++ {
			if o := ring.Owner(e + j); (m == nil || m[o]) && !slices.Contains(set, o) {
				set = append(set, o)
			}
		}
		// replay the pick's draw to know the two candidates
		replay := *draws
		got := p.Pick(View{Loads: l, Eligible: m}, Request{Key: key}, draws)
		want := set[0]
		if len(set) > 1 {
			a, b := replay.IntN2(len(set), len(set)-1)
			if b >= a {
				b++
			}
			want = set[a]
			if l.Len(set[b]) < l.Len(set[a]) {
				want = set[b]
			}
		}
		if got != want {
			t.Fatalf("pick %d: key %d, set %v: picked %d, want %d", i, key, set, got, want)
		}
		l.Up(got, float64(i))
		churn(l, r, float64(i))
	}
}

// The key tie-break keeps a key's requests together when loads tie: least_outstanding with tie = key and a full scan
// sends every request for one key to the same server on equal loads (the highest KeyTieWeight), the servers so chosen
// uniform over keys (chi-square, alpha); with d = 2 on equal loads a key goes to the better-ranked of two random
// servers in its own rendezvous order, so the rank j (1 = its top) has probability 2(n−j)/(n(n−1)) (chi-square), and
// a key's two consecutive requests meet on one server with probability Σ_j p_j² = 2(2n−1)/(3n(n−1)), against 1/n with
// tie = random. Loads unequal: the tie-break does not change the pick.
func TestKeyTieBreakLocality(t *testing.T) {
	const n, keys = 10, 20_000
	i64 := func(x int) model.Value { return model.IntValue(int64(x)) }
	l := levelsOf(2, 2, 2, 2, 2, 2, 2, 2, 2, 2)
	full := configOf(t, "least_outstanding", map[string]model.Value{"tie": i64(int(TieKey))}).New(Servers{N: n})
	pair := configOf(t, "least_outstanding", map[string]model.Value{"tie": i64(int(TieKey)), "d": i64(2)}).New(Servers{N: n})
	r := sim.NewRand(8, 8)
	where := make([]int, n)
	ranks := make([]int, n)
	for key := range uint64(keys) {
		top := 0
		for k := range n {
			if KeyTieWeight(key, k) > KeyTieWeight(key, top) {
				top = k
			}
		}
		for range 3 {
			if got := full.Pick(view(l), Request{Key: key}, r); got != top {
				t.Fatalf("key %d: full scan on equal loads picked %d, its rendezvous top is %d", key, got, top)
			}
		}
		where[top]++
		got := pair.Pick(view(l), Request{Key: key}, r)
		rank := 0 // servers with a higher weight than the one picked
		for k := range n {
			if KeyTieWeight(key, k) > KeyTieWeight(key, got) {
				rank++
			}
		}
		ranks[rank]++
	}
	if stat, crit := chiSquare(t, where, uniform(n)); stat > crit {
		t.Errorf("rendezvous tops over keys: chi-square %.1f > %.1f: %v", stat, crit, where)
	}
	probs := make([]float64, n)
	for j := range probs {
		probs[j] = 2 * float64(n-1-j) / float64(n*(n-1))
	}
	if stat, crit := chiSquare(t, ranks, probs); stat > crit {
		t.Errorf("d = 2 ranks: chi-square %.1f > %.1f: %v, want ∝ %v", stat, crit, ranks, probs)
	}
	// Unequal loads: the strict minimum wins whatever the key.
	lo := levelsOf(3, 1, 2, 1, 4, 5, 1, 2, 2, 9)
	for key := range uint64(200) {
		got := full.Pick(view(lo), Request{Key: key}, r)
		if lo.Len(got) != 1 {
			t.Fatalf("key %d: picked %d with %d outstanding, the minimum is 1", key, got, lo.Len(got))
		}
	}
}

// Traits.Keyed is declared by exactly the policies that read the key: a registry-wide check that picks with keys 0
// and 1 differ somewhere (over 64 key pairs, fixed loads, identically seeded generators) exactly when Keyed; and
// CheckUnkeyed refuses them with an Issue naming policy.
func TestRegistryKeyedDeclared(t *testing.T) {
	const n = 10
	l := levelsOf(1, 1, 1, 0, 0, 0, 2, 2, 2, 1)
	for _, v := range variants(n) {
		c := v.config(t)
		tr := c.Traits(Servers{N: n})
		if tr.Keyed != v.keyed {
			t.Errorf("%s: Traits.Keyed = %v, variant keyed %v", v.name, tr.Keyed, v.keyed)
		}
		pa, pb := c.New(Servers{N: n}), c.New(Servers{N: n})
		ra, rb := sim.NewRand(2, 2), sim.NewRand(2, 2)
		differ := false
		for key := range uint64(64) {
			if pa.Pick(view(l), Request{Key: 2 * key}, ra) != pb.Pick(view(l), Request{Key: 2*key + 1}, rb) {
				differ = true
			}
		}
		if differ != tr.Keyed {
			t.Errorf("%s: picks depend on the key = %v, but Traits.Keyed = %v", v.name, differ, tr.Keyed)
		}
		err := CheckUnkeyed(tr, v.e.Name)
		var is model.Issue
		if tr.Keyed != (err != nil) || err != nil && (!errors.As(err, &is) || is.Param != "policy") {
			t.Errorf("%s: CheckUnkeyed = %v", v.name, err)
		}
	}
}

// The keyed policies' arguments are checked: min_ring_size, epsilon, candidates, and the weights a ring can place.
func TestKeyedChecks(t *testing.T) {
	s := Servers{N: 4}
	for _, tc := range []struct {
		c     Config
		s     Servers
		param string
	}{
		{RingHashConfig{RingConfig{MinRingSize: 0}}, s, "min_ring_size"},
		{RingHashConfig{RingConfig{MinRingSize: hashing.DefaultMaxRingSize + 1}}, s, "min_ring_size"},
		{RingHashConfig{RingConfig{MinRingSize: 1024}}, Servers{N: 2, Weight: []float64{1, 1e-9}}, "weights"},
		{RingHashConfig{RingConfig{MinRingSize: 1024}}, Servers{N: 2, Weight: []float64{1}}, "weights"},
		// Envoy's doubles: scale·w_min = 1 passes the share bound, but the running sums give the ring 4 entries and 0
		// (hashing.RingConfig.Counts); a walk with server 0 ejected then panicked.
		{RingHashConfig{RingConfig{MinRingSize: 2}}, Servers{N: 2, Weight: []float64{0.6000000000000001, 0.2}}, "weights"},
		{BoundedLoadConfig{RingConfig{MinRingSize: 2}, 0.25}, Servers{N: 2, Weight: []float64{0.6000000000000001, 0.2}}, "weights"},
		{BoundedLoadConfig{RingConfig{MinRingSize: 1024}, 0}, s, "epsilon"},
		{BoundedLoadConfig{RingConfig{MinRingSize: 1024}, -1}, s, "epsilon"},
		{HashP2CConfig{RingConfig{MinRingSize: 1024}, 0}, s, "candidates"},
		{HashP2CConfig{RingConfig{MinRingSize: 1024}, 5}, s, "candidates"},
	} {
		err := tc.c.Check(tc.s)
		var is model.Issue
		if !errors.As(err, &is) || is.Param != tc.param {
			t.Errorf("%#v over %+v: Check = %v, want an issue for %s", tc.c, tc.s, err, tc.param)
		}
	}
	for _, c := range []Config{RingHashConfig{RingConfig{1}}, BoundedLoadConfig{RingConfig{1}, 1e-9}, HashP2CConfig{RingConfig{1}, 4}} {
		if err := c.Check(s); err != nil {
			t.Errorf("%#v: %v", c, err)
		}
	}
}

// A pick allocates nothing, for each keyed policy, with and without a mask.
func TestKeyedPicksAllocateNothing(t *testing.T) {
	const n = 100
	l := levelsOf(make([]int, n)...)
	for k := range n {
		for range k % 7 {
			l.Up(k, 0)
		}
	}
	mask := make([]bool, n)
	for k := range mask {
		mask[k] = k%3 != 0
	}
	for _, v := range variants(n) {
		if !v.keyed {
			continue
		}
		p := v.policy(t, Servers{N: n})
		r := sim.NewRand(1, 1)
		key := uint64(0)
		for _, m := range [][]bool{nil, mask} {
			if a := testing.AllocsPerRun(200, func() { key++; p.Pick(View{Loads: l, Eligible: m}, Request{Key: key}, r) }); a != 0 {
				t.Errorf("%s, mask %v: %v allocations per pick", v.name, m != nil, a)
			}
		}
	}
}

// BenchmarkKeyedPick: ns per pick of each keyed policy at n = 10, 100, 1000 (Envoy's 1024-entry ring), random keys,
// loads moving (one arrival per pick, a departure from a random busy server per pick once 2n are in flight).
func BenchmarkKeyedPick(b *testing.B) {
	i64 := func(x int) model.Value { return model.IntValue(int64(x)) }
	for _, n := range []int{10, 100, 1000} {
		for _, pc := range []struct {
			name string
			set  map[string]model.Value
		}{
			{"ring_hash", nil},
			{"bounded_load", nil},
			{"hash_p2c", nil},
			{"least_outstanding", map[string]model.Value{"tie": i64(int(TieKey)), "d": i64(2)}},
		} {
			b.Run(fmt.Sprintf("%s/n=%d", pc.name, n), func(b *testing.B) {
				p := configOf(b, pc.name, pc.set).New(Servers{N: n})
				l := sim.NewLevels(n)
				r, keys := sim.NewRand(1, 2), sim.NewRand(3, 4)
				b.ReportAllocs()
				for i := 0; b.Loop(); i++ {
					k := p.Pick(View{Loads: l}, Request{Key: uint64(keys.IntN(1 << 20))}, r)
					l.Up(k, 0)
					if l.Total() > int64(2*n) {
						l.Down(l.Busy(keys.IntN(l.Count(1))), 0)
					}
				}
			})
		}
	}
}

// Consecutive keys 0, 1, 2, … (a Zipf law's hottest) land on the ring as independent uniform positions: none of keys
// 0..99999 sits exactly on an entry (for independent positions the chance of any is about 10^5·1100/2^64 ≈ 6·10^-12;
// with the rings' own salt 0 for keys, keys 0..10 would sit on server 0's entries, since hashing.NewRing places entry
// i of server 0 at Key(i, 0)), and the keys each of 100 servers owns follow the shares its arcs cover (chi-square,
// alpha).
func TestKeyPositionsIndependentOfRing(t *testing.T) {
	const n, keys = 100, 100_000
	ring := hashing.NewRing(hashing.RingConfig{N: n, MinRingSize: 1024})
	probs := make([]float64, n)
	for i := range ring.Entries() {
		prev := ring.Position((i + ring.Entries() - 1) % ring.Entries())
		probs[ring.Owner(i)] += float64(ring.Position(i)-prev) / (1 << 64)
	}
	counts := make([]int, n)
	for key := range uint64(keys) {
		h := KeyPosition(key)
		i := ring.Find(h)
		if ring.Position(i) == h {
			t.Fatalf("key %d sits exactly on entry %d (server %d)", key, i, ring.Owner(i))
		}
		counts[ring.Owner(i)]++
	}
	if stat, crit := chiSquare(t, counts, probs); stat > crit {
		t.Errorf("keys per server against arc shares: chi-square %.1f > %.1f", stat, crit)
	}
}
