package hashing

import (
	"fmt"
	"math"
)

// DefaultTableSize is Envoy v1.31.0's default Maglev table_size (MaglevTable::DefaultTableSize; the paper's §5.3
// uses 65537 too).
const DefaultTableSize = 65537

// MaxTableSize is Envoy v1.31.0's bound on table_size (maglev.proto: "The table size must be prime number limited to
// 5000011", validate.rules lte 5000011). It also bounds the table's memory: 4 bytes a slot, 20 MB at the bound,
// where the 2^31−1 this package accepted before took 8 GB for one table.
const MaxTableSize = 5000011

// MaglevConfig configures a Maglev lookup table over N servers.
type MaglevConfig struct {
	N         int       // servers, 1 ≤ N ≤ TableSize
	Weights   []float64 // one per server, > 0, or nil for equal
	TableSize int       // a prime 2 ≤ M ≤ MaxTableSize (Envoy rejects a composite table_size); 0: DefaultTableSize
	Salt      uint64    // seeds each server's permutation (a host's "name")
}

func (c MaglevConfig) size() int {
	if c.TableSize == 0 {
		return DefaultTableSize
	}
	return c.TableSize
}

// Validate reports what is wrong with c, or nil: N ≥ 1, weights as for RingConfig, a prime table size (Envoy:
// "The table size of maglev must be prime number") of at most MaxTableSize (Envoy's bound) and N ≤ TableSize (else some servers get no
// entry; Envoy accepts this and documents it, this package rejects it).
func (c MaglevConfig) Validate() error {
	if c.N < 1 {
		return fmt.Errorf("hashing: maglev needs N ≥ 1 servers, got %d", c.N)
	}
	if err := validWeights(c.Weights, c.N); err != nil {
		return err
	}
	m := c.size()
	if m < 2 || m > MaxTableSize || !prime(uint64(m)) {
		return fmt.Errorf("hashing: maglev table_size %d is not a prime in [2, %d] (Envoy's bound)", m, MaxTableSize)
	}
	if c.N > m {
		return fmt.Errorf("hashing: %d servers exceed table_size %d", c.N, m)
	}
	return nil
}

// prime reports whether m is prime, by trial division (at most √m divisions: 2237 at MaxTableSize).
func prime(m uint64) bool {
	if m < 2 {
		return false
	}
	for d := uint64(2); d*d <= m; d++ {
		if m%d == 0 {
			return false
		}
	}
	return true
}

// Maglev is a Maglev lookup table (Eisenbud et al., "Maglev: A Fast and Reliable Software Network Load Balancer",
// NSDI 2016, §3.4, Pseudocode 1): each server s walks its own permutation of the M slots, offset + j·skip mod M,
// and servers take turns claiming their next free slot until all M are taken. A key's server is table[h mod M].
//
// It follows Envoy v1.31.0's OriginalMaglevTable (source/extensions/load_balancing_policies/maglev/maglev_lb.cc):
// offset = xxHash64(name) mod M, skip = xxHash64(name, seed 1) mod (M−1) + 1, servers visited in a fixed order, and
// weights by Envoy's rule: in round r = 1, 2, … server s claims a slot only when r·w_s ≥ its running target, which
// starts at 0 and grows by w_max per claim, so a server of weight w_max claims every round and one of weight w_max/3
// every third (the share of slots follows the weights; Envoy's docs: weights 1 and 2 give 21 846 and 43 691 of
// 65 537).
//
// Deviations: a server's name is name_s = Key(s, Salt) and offset = Key(name_s, 0) mod M, skip = Key(name_s, 1) mod
// (M−1) + 1; servers are visited in index order (Envoy sorts by host name, which the salt stands for). Envoy's
// CompactMaglevTable stores the same assignment in fewer bits. Maglev is not monotone: a join or a leave changes
// which slots the other servers win later in the fill, so some keys move between unchanged servers.
type Maglev struct {
	table  []int32
	count  []int
	probes int
}

// NewMaglev builds the table c describes. It panics only on an invalid config (callers Validate first). Cost: 2N
// Key evaluations and, for equal weights, about M·ln M slot probes in all (the paper's §3.4 bound), Probes().
func NewMaglev(c MaglevConfig) *Maglev {
	if err := c.Validate(); err != nil {
		panic(err)
	}
	m := uint64(c.size())
	shares, _ := normalized(c.Weights, c.N)
	wmax := 0.0
	for _, w := range shares {
		wmax = math.Max(wmax, w)
	}
	offset, skip, next := make([]uint64, c.N), make([]uint64, c.N), make([]uint64, c.N)
	target := make([]float64, c.N)
	for s := range offset {
		name := Key(uint64(s), c.Salt)
		offset[s] = Key(name, 0) % m
		skip[s] = Key(name, 1)%(m-1) + 1
	}
	g := &Maglev{table: make([]int32, m), count: make([]int, c.N)}
	for i := range g.table {
		g.table[i] = -1
	}
	filled := uint64(0)
	for round := 1; filled < m; round++ {
		for s := 0; s < c.N && filled < m; s++ {
			if float64(round)*shares[s] < target[s] {
				continue
			}
			target[s] += wmax
			slot := (offset[s] + skip[s]*next[s]) % m
			g.probes++
			for g.table[slot] >= 0 {
				next[s]++
				slot = (offset[s] + skip[s]*next[s]) % m
				g.probes++
			}
			g.table[slot] = int32(s)
			next[s]++
			g.count[s]++
			filled++
		}
	}
	return g
}

// Lookup returns the server of position h: table[h mod M]. O(1), no allocation.
func (g *Maglev) Lookup(h uint64) int { return int(g.table[h%uint64(len(g.table))]) }

// TableSize returns M, the number of slots.
func (g *Maglev) TableSize() int { return len(g.table) }

// Count returns the number of slots server s owns (between Envoy's min_entries_per_host and max_entries_per_host).
func (g *Maglev) Count(s int) int { return g.count[s] }

// Probes returns the number of slot probes the build made (≥ M: one per slot taken, plus one per occupied slot
// skipped).
func (g *Maglev) Probes() int { return g.probes }
