package hashing

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"
)

// xxHash64 primes (Collet, xxHash specification v0.1.1, §"XXH64").
const (
	prime1 uint64 = 11400714785074694791
	prime2 uint64 = 14029467366897019727
	prime3 uint64 = 1609587929392839161
	prime4 uint64 = 9650029242287828579
	prime5 uint64 = 2870177450012600261
)

// Key hashes a key with a salt to a 64-bit ring position: it is xxHash64 of the key's 8 little-endian bytes with the
// salt as xxHash's seed (the specification's path for an 8-byte input, so Key(k, s) equals
// xxhash.NewWithSeed(s).Write(le64(k)).Sum64(); a test checks it against github.com/cespare/xxhash/v2). Every
// output bit depends on every input bit (xxHash's avalanche), so positions of distinct (key, salt) pairs behave as
// independent uniform draws for the purposes of this package. Envoy v1.31.0 hashes host names and request keys with
// xxHash64 too (HashUtil::xxHash64, seed 0); here keys are integers, not strings.
func Key(key, salt uint64) uint64 {
	h := salt + prime5 + 8
	k := bits.RotateLeft64(key*prime2, 31) * prime1
	h ^= k
	h = bits.RotateLeft64(h, 27)*prime1 + prime4
	h ^= h >> 33
	h *= prime2
	h ^= h >> 29
	h *= prime3
	h ^= h >> 32
	return h
}

// Envoy v1.31.0 defaults for RingHashLbConfig (api/envoy/extensions/load_balancing_policies/ring_hash/v3/
// ring_hash.proto): minimum_ring_size 1024, maximum_ring_size 8M (8·1024·1024); both are bounded by 8M.
const (
	DefaultMinRingSize = 1024
	DefaultMaxRingSize = 8 * 1024 * 1024
)

// RingConfig configures a ring hash over N servers.
type RingConfig struct {
	N           int       // servers, ≥ 1
	Weights     []float64 // one per server, > 0, or nil for equal
	MinRingSize int       // Envoy minimum_ring_size: entries in the whole ring (Envoy v1.31 default 1024); 0: use PerHost
	MaxRingSize int       // Envoy maximum_ring_size (0: Envoy's default 8M)
	PerHost     int       // ketama-style replicas per host (when MinRingSize == 0)
	Salt        uint64    // seeds the positions (a host's "name"); 0 is a fixed, deterministic ring
}

// Validate reports what is wrong with c, or nil: N ≥ 1; Weights nil or N finite values > 0; MinRingSize ≥ 0,
// MaxRingSize ≥ 0 and, when both are set, MinRingSize ≤ MaxRingSize (Envoy rejects minimum_ring_size >
// maximum_ring_size); PerHost ≥ 1 when MinRingSize is 0. The ring's size is also capped at 2^31 entries.
func (c RingConfig) Validate() error {
	if c.N < 1 {
		return fmt.Errorf("hashing: ring needs N ≥ 1 servers, got %d", c.N)
	}
	if err := validWeights(c.Weights, c.N); err != nil {
		return err
	}
	if c.MinRingSize < 0 || c.MaxRingSize < 0 || c.PerHost < 0 {
		return errors.New("hashing: ring sizes must be ≥ 0")
	}
	if c.MinRingSize > c.maxRing() {
		return fmt.Errorf("hashing: minimum_ring_size (%d) > maximum_ring_size (%d)", c.MinRingSize, c.maxRing())
	}
	if c.MinRingSize == 0 {
		if c.PerHost < 1 {
			return errors.New("hashing: ring needs MinRingSize ≥ 1 or PerHost ≥ 1")
		}
		if float64(c.PerHost)*float64(c.N) > math.MaxInt32 {
			return fmt.Errorf("hashing: ring of %d×%d entries exceeds 2^31", c.PerHost, c.N)
		}
	}
	return nil
}

func (c RingConfig) maxRing() int {
	if c.MaxRingSize == 0 {
		return DefaultMaxRingSize
	}
	return c.MaxRingSize
}

// validWeights checks that w is nil or holds n finite positive values.
func validWeights(w []float64, n int) error {
	if w == nil {
		return nil
	}
	if len(w) != n {
		return fmt.Errorf("hashing: %d weights for %d servers", len(w), n)
	}
	for i, x := range w {
		if !(x > 0) || math.IsInf(x, 0) {
			return fmt.Errorf("hashing: weight %d is %g, want a finite value > 0", i, x)
		}
	}
	return nil
}

// normalized returns w scaled to sum to 1 (equal shares when w is nil) and its minimum. When the finite weights'
// sum overflows to +Inf (weights near math.MaxFloat64, which made every share 0), they are divided by their maximum
// first; otherwise the plain x/Σw, so the shares of every other configuration are unchanged to the bit.
func normalized(w []float64, n int) (shares []float64, min float64) {
	shares = make([]float64, n)
	if w == nil {
		for i := range shares {
			shares[i] = 1 / float64(n)
		}
		return shares, 1 / float64(n)
	}
	top, sum := 1.0, 0.0
	for _, x := range w {
		sum += x
	}
	if math.IsInf(sum, 1) {
		top, sum = 0, 0
		for _, x := range w {
			top = math.Max(top, x)
		}
		for _, x := range w {
			sum += x / top
		}
	}
	min = math.Inf(1)
	for i, x := range w {
		shares[i] = x / top / sum
		min = math.Min(min, shares[i])
	}
	return shares, min
}

// Ring is a consistent-hash ring: a sorted array of entry positions, each owned by one server. A key belongs to the
// first entry clockwise from its position (the entry with the smallest position ≥ the key's, wrapping to entry 0).
//
// It follows Envoy v1.31.0's RingHashLoadBalancer::Ring (source/extensions/load_balancing_policies/ring_hash/
// ring_hash_lb.cc): with MinRingSize set, the scale is min(⌈w_min·MinRingSize⌉ / w_min, MaxRingSize) for the
// smallest normalized weight w_min, and hosts in index order receive entries while a running count is below the
// running target Σ scale·w_i, so every host gets ⌈…⌉-or-⌊…⌋ entries and equal hosts get exactly
// ⌈MinRingSize/N⌉ each (100 hosts, 1024 → 11 each, 1100 entries). With MinRingSize 0 the same running sums use
// scale PerHost·N, so equal hosts get PerHost entries each (the ketama reading: a fixed number of points per host).
// Lookup is Envoy's: the first entry whose position is ≥ the key's hash, or entry 0 past the last.
//
// Deviations: Envoy hashes the strings "<host address>_<i>" with xxHash64; here the position of host s's i-th entry
// is Key(s<<32|i, Salt), so the salt plays the host names' part and positions of distinct (s, i) are independent
// draws. Equal positions (probability ≈ entries²/2^65) are ordered by server index (Envoy's std::sort leaves them
// unordered). Envoy's locality weighting, host priorities and health are out of scope: Weights are the hosts'
// effective weights.
//
// Monotonicity: an entry's position depends only on (s, i, Salt), so adding a server adds its entries and moves keys
// only to it, provided the other hosts keep their entry counts: with PerHost, always; with MinRingSize, when
// ⌈MinRingSize/N⌉ does not change (e.g. 100 → 101 hosts at 1024: 11 each both times), and with equal weights.
// Envoy's double arithmetic can add one entry: at 99 equal hosts and 1024, scale = 1089 but the first host's target
// scale·(1/99) is just above 11, so it gets 12 entries and the ring 1090 (this ring reproduces it, as Envoy's code
// computes it; Envoy's size gauge still reports 1089); a change of N that does this moves some keys between
// unchanged hosts (100 → 99 does).
type Ring struct {
	pos   []uint64 // sorted entry positions
	owner []int32  // owner[i] is the server of entry i
	count []int    // entries per server
	// index[b] is the first entry whose position is ≥ b<<shift: Find starts there and scans, about one entry per
	// bucket since there are at least as many buckets as entries (up to 2^20 buckets).
	index []int32
	shift uint
}

// maxIndexBits bounds a ring's index at 2^20 buckets (4 MiB); bigger rings scan Entries()/2^20 entries a bucket.
const maxIndexBits = 20

// NewRing builds the ring c describes. It panics only on an invalid config (callers Validate first).
// Cost: one Key evaluation per entry and a sort, O(E log E) for E entries.
func NewRing(c RingConfig) *Ring {
	if err := c.Validate(); err != nil {
		panic(err)
	}
	count := c.Counts()
	size := 0
	for _, k := range count {
		size += k
	}
	type entry struct {
		pos   uint64
		owner int32
	}
	entries := make([]entry, 0, size)
	for s, k := range count {
		for i := range k {
			entries = append(entries, entry{Key(uint64(s)<<32|uint64(i), c.Salt), int32(s)})
		}
	}
	slices.SortFunc(entries, func(a, b entry) int {
		if a.pos != b.pos {
			if a.pos < b.pos {
				return -1
			}
			return 1
		}
		return int(a.owner) - int(b.owner)
	})
	r := &Ring{pos: make([]uint64, len(entries)), owner: make([]int32, len(entries)), count: count}
	for i, e := range entries {
		r.pos[i], r.owner[i] = e.pos, e.owner
	}
	b := min(bits.Len(uint(len(entries))), maxIndexBits) // 2^b ≥ entries, up to the bound
	r.shift = 64 - uint(b)
	r.index = make([]int32, 1<<b)
	j := 0
	for k := range r.index {
		lo := uint64(k) << r.shift
		for j < len(r.pos) && r.pos[j] < lo {
			j++
		}
		r.index[k] = int32(j)
	}
	return r
}

// Counts returns the entries per server of the ring c describes, without building it (one addition per entry, no
// hashing or sort; the counts do not depend on the salt): Envoy's scale and running sums of the Ring comment. A
// server can get 0 entries when its normalized weight times the scale is near or below 1 (a huge weight ratio,
// PerHost with unequal weights, or Envoy's double rounding at a small MinRingSize). It panics only on an invalid
// config (callers Validate first).
func (c RingConfig) Counts() []int {
	if err := c.Validate(); err != nil {
		panic(err)
	}
	shares, wmin := normalized(c.Weights, c.N)
	var scale float64
	if c.MinRingSize > 0 {
		scale = math.Min(math.Ceil(wmin*float64(c.MinRingSize))/wmin, float64(c.maxRing()))
	} else {
		scale = float64(c.PerHost) * float64(c.N)
	}
	count := make([]int, c.N)
	current, target := 0.0, 0.0
	for s, w := range shares {
		target += scale * w
		for current < target {
			current++
			count[s]++
		}
	}
	return count
}

// Entries returns the number of entries on the ring (Envoy's ring_hash_lb.size gauge).
func (r *Ring) Entries() int { return len(r.pos) }

// Find returns the index of the first entry clockwise from position h: the smallest i with Position(i) ≥ h, or 0 when
// h is past the last entry (Envoy's chooseHost with attempt 0; Envoy binary-searches, this ring looks up a bucket
// index of the top bits and scans from there, the same answer). O(1) expected for rings of up to 2^20 entries, no
// allocation.
func (r *Ring) Find(h uint64) int {
	j := int(r.index[h>>r.shift])
	for j < len(r.pos) && r.pos[j] < h {
		j++
	}
	if j == len(r.pos) {
		return 0
	}
	return j
}

// Owner returns the server of entry i, for any i ≥ 0 (taken mod Entries(), so a caller can walk clockwise past the
// end).
func (r *Ring) Owner(i int) int {
	if i >= len(r.owner) {
		i %= len(r.owner)
	}
	return int(r.owner[i])
}

// Position returns entry i's position on the ring, for 0 ≤ i < Entries().
func (r *Ring) Position(i int) uint64 { return r.pos[i] }

// Count returns the number of entries server s owns (between Envoy's min_hashes_per_host and max_hashes_per_host).
func (r *Ring) Count(s int) int { return r.count[s] }
