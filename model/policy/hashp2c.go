package policy

import (
	"lbsweep/model"
	"lbsweep/model/hashing"
	"lbsweep/model/sim"
)

const hashP2CDoc = "seed 001's hybrid of affinity and balance: hash the key to its candidate set, the first k distinct " +
	"eligible servers clockwise on the ring (candidates = k), then two choices within it: two distinct candidates " +
	"drawn at random, the one with fewer outstanding requests wins, ties to the first drawn (k = 1 is ring_hash, " +
	"k = n two choices)"

// DefaultCandidates is hash_p2c's default candidate set size.
//
// k = 2 is the smallest set in which two choices can choose, and with it the hybrid is the balanced allocation of
// Azar, Broder, Karlin & Upfal (1994/1999) in its hashing reading: every key has two fixed servers and goes to the
// less loaded, so the maximum load over distinct keys drops from log n/log log n to log log n/log 2 while each key's
// requests touch at most two caches (seed 001: "the set's size trades locality against balance"). Larger k buys
// little balance (log log n/log 2 is already most of the gain; two probes per pick whatever k) and spreads each key
// over more caches.
const DefaultCandidates = 2

// hashP2CArgs are hash_p2c's arguments: the ring's min_ring_size and candidates (default 2).
var hashP2CArgs = append(append([]Arg(nil), ringArgs...), Arg{Name: "candidates", Default: model.IntValue(DefaultCandidates)})

// HashP2CConfig is hash_p2c's configuration: the ring and the candidate set's size.
type HashP2CConfig struct {
	RingConfig
	// K is the candidate set's size, 1 ≤ K ≤ n (the `candidates` argument).
	K int
}

func buildHashP2C(v Values) Config {
	return HashP2CConfig{RingConfig: ringConfigOf(v), K: int(v[argCandidates].I)}
}

// Check implements Config: the ring's arguments and 1 ≤ k ≤ n (a ring over n servers has n distinct owners).
func (c HashP2CConfig) Check(s Servers) error {
	if c.K < 1 || c.K > s.N {
		return issue("candidates", "%d: need 1 ≤ candidates ≤ n (n = %d)", c.K, s.N)
	}
	return c.check(s)
}

// New implements Config: builds the ring and the per-pick scratch (allocated once).
func (c HashP2CConfig) New(s Servers) Policy {
	p := &hashP2C{ring: c.ring(s), k: c.K, seen: make([]uint32, s.N), cand: make([]int, 0, c.K)}
	if c.K == s.N {
		p.all = make([]int, s.N)
		for i := range p.all {
			p.all[i] = i
		}
	}
	return p
}

// Traits implements Config: eligibility honored; with k = 1 it is ring_hash (load-blind, by key, keyed, no read);
// with 1 < k < n load-aware and keyed, two reads per pick; with k = n > 1 it is two choices over the eligible servers,
// which never reads the key (not keyed).
func (c HashP2CConfig) Traits(s Servers) Traits {
	if c.K == 1 {
		return Traits{Split: SplitByKey, Eligibility: true, Keyed: true}
	}
	return Traits{Eligibility: true, Keyed: c.K < s.N, Reads: 2}
}

// hashP2C collects the key's candidates by walking the ring clockwise from its entry, skipping ineligible servers and
// servers already met (marked in seen with the pick's generation stamp, so nothing is cleared per pick), until k are
// found or the ring is done (fewer than k eligible: all of them). Two distinct candidates are then drawn uniformly in
// order (PickTwoChoices' draw), the first kept unless the second has strictly fewer outstanding requests.
//
// With k = n the set is every eligible server whatever the key, so the ring is not read: the candidates are the
// eligible servers in index order (0..n−1 with no mask, and the pick is then PickTwoChoices draw for draw; an O(n)
// pass over a mask otherwise). One candidate (k = 1, or one eligible server) is picked with no draw: ring_hash's
// pick.
//
// Cost: O(log E) to find the entry and about k + (k²/2n)·(E/n) entries walked (owners met twice are skipped), two
// reads; no allocation.
type hashP2C struct {
	ring *hashing.Ring
	k    int
	all  []int    // 0..n−1 when k = n
	seen []uint32 // seen[s] == gen: s is already a candidate of this pick
	gen  uint32
	cand []int // this pick's candidates, ring order
}

// Pick implements Policy.
func (p *hashP2C) Pick(v View, req Request, r *sim.Rand) int {
	cand := p.all
	switch {
	case cand == nil:
		cand = p.candidates(v.Eligible, p.ring.Find(KeyPosition(req.Key)))
	case v.Eligible != nil:
		cand = p.cand[:0]
		for k, ok := range v.Eligible {
			if ok {
				cand = append(cand, k)
			}
		}
		p.cand = cand
	}
	switch len(cand) {
	case 0:
		panic("policy: hash_p2c: no eligible server")
	case 1:
		return cand[0]
	}
	m := len(cand)
	a, b := r.IntN2(m, m-1)
	if b >= a {
		b++
	}
	if l := v.Loads; l.Len(cand[b]) < l.Len(cand[a]) {
		return cand[b]
	}
	return cand[a]
}

// candidates returns the first k distinct eligible owners clockwise from entry i (all eligible servers when fewer).
func (p *hashP2C) candidates(eligible []bool, i int) []int {
	if p.gen++; p.gen == 0 { // the stamp wrapped: forget every mark
		clear(p.seen)
		p.gen = 1
	}
	c := p.cand[:0]
	for j := 0; j < p.ring.Entries() && len(c) < p.k; j++ {
		s := p.ring.Owner(i + j)
		if p.seen[s] == p.gen || eligible != nil && !eligible[s] {
			continue
		}
		p.seen[s] = p.gen
		c = append(c, s)
	}
	p.cand = c
	return c
}
