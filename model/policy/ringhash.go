package policy

import (
	"lbsweep/model"
	"lbsweep/model/hashing"
	"lbsweep/model/sim"
)

const ringHashDoc = "consistent hashing with virtual nodes (Karger et al., STOC 1997), after Envoy v1.31.0's RING_HASH: " +
	"min_ring_size entries over the servers (∝ weight), a request goes to the owner of the first entry clockwise " +
	"from its key's position; an ineligible server's keys go to the next eligible owner clockwise (the ring without it)"

// ringArgs is the ring's argument: min_ring_size (Envoy's minimum_ring_size, default 1024).
var ringArgs = []Arg{{Name: "min_ring_size", Default: model.IntValue(hashing.DefaultMinRingSize)}}

// ringHashArgs are ring_hash's arguments: the ring's.
var ringHashArgs = ringArgs

// KeySalt is the salt request keys are hashed with to their ring positions (KeyPosition). It differs from the rings'
// salt 0 on purpose: hashing.NewRing places server s's i-th entry at hashing.Key(s<<32|i, 0), so with salt 0 a small
// key k would sit exactly on an entry of server 0 (k < its entry count) and the hottest Zipf keys 0, 1, 2, … would all
// map to server 0. The constant is 2^64/φ (any fixed odd value other than 0 would do).
const KeySalt uint64 = 0x9e3779b97f4a7c15

// KeyPosition is the ring position of a request key, hashing.Key(key, KeySalt): what the ring policies look up.
func KeyPosition(key uint64) uint64 { return hashing.Key(key, KeySalt) }

// RingConfig is the ring the hashing policies share: its size (the `min_ring_size` argument).
type RingConfig struct {
	// MinRingSize is Envoy's minimum_ring_size: entries in the whole ring, 1 ≤ MinRingSize ≤ 8388608 (default
	// 1024); the ring has ⌈MinRingSize·w_k/w_min⌉-ish entries, at least one per server (hashing.NewRing).
	MinRingSize int
}

func ringConfigOf(v Values) RingConfig { return RingConfig{MinRingSize: int(v[argMinRingSize].I)} }

// check validates min_ring_size and the servers' weights: 1 ≤ min_ring_size ≤ 8M (Envoy v1.31.0's ring_hash.proto
// bounds minimum_ring_size by 8388608; 0 would leave the ring empty), and weights as every weighted policy takes them.
func (c RingConfig) check(s Servers) error {
	if c.MinRingSize < 1 || c.MinRingSize > hashing.DefaultMaxRingSize {
		return issue("min_ring_size", "%d: need 1 ≤ min_ring_size ≤ %d (Envoy's bound)", c.MinRingSize, hashing.DefaultMaxRingSize)
	}
	if err := s.checkWeights(); err != nil {
		return err
	}
	// Envoy's scale is min(⌈w_min·min_ring_size⌉/w_min, maximum_ring_size) for the smallest normalized weight w_min,
	// and its running sums in doubles can leave a server without an entry even when scale·w_min ≥ 1 (weights
	// 0.6000000000000001 and 0.2 at min_ring_size 2: 4 entries and 0): count them exactly (RingConfig.Counts, no
	// hashing, no sort), since the walks rely on every server owning an entry.
	if s.Weight != nil {
		for k, e := range (hashing.RingConfig{N: s.N, Weights: s.Weight, MinRingSize: c.MinRingSize}).Counts() {
			if e == 0 {
				return issue("weights", "server %d gets no entry on the ring (weight share %.3g, min_ring_size %d, at most %d entries)", k, s.Weight[k]/sum(s.Weight), c.MinRingSize, hashing.DefaultMaxRingSize)
			}
		}
	}
	return nil
}

// ring builds the ring over s (Salt 0: a fixed ring per point, as Envoy's over fixed host names; Envoy's default
// maximum_ring_size). Cost O(E log E) for E entries, once per run.
func (c RingConfig) ring(s Servers) *hashing.Ring {
	return hashing.NewRing(hashing.RingConfig{N: s.N, Weights: s.Weight, MinRingSize: c.MinRingSize})
}

// RingHashConfig is ring_hash's configuration: the ring.
type RingHashConfig struct{ RingConfig }

func buildRingHash(v Values) Config { return RingHashConfig{ringConfigOf(v)} }

// Check implements Config: min_ring_size and the weights.
func (c RingHashConfig) Check(s Servers) error { return c.check(s) }

// New implements Config: builds the ring.
func (c RingHashConfig) New(s Servers) Policy { return &ringHash{ring: c.ring(s)} }

// Traits implements Config: load-blind, following the key (SplitByKey), keyed, eligibility honored, no load read.
func (c RingHashConfig) Traits(Servers) Traits {
	return Traits{Split: SplitByKey, Eligibility: true, Keyed: true}
}

// ringHash is Envoy's RingHashLoadBalancer::Ring::chooseHost with attempt 0: the owner of the first entry at or after
// the key's position. Past an ineligible owner it walks clockwise to the next eligible one, which is the owner the
// same ring without the ineligible servers' entries gives: the ring stays monotone under ejection, so an ejected
// server's keys (and only those) move, each to its clockwise successor. Deviation: Envoy rebuilds the ring over the
// healthy hosts, which re-scales every host's entry count when ⌈min_ring_size/n⌉ changes (100 → 99 hosts at 1024:
// 11 each both times; 1024 → 1023 hosts: 1 → 2 each), moving other keys too; the walk never does.
type ringHash struct {
	ring *hashing.Ring
}

// sum returns Σ w (finite: checkWeights ran).
func sum(w []float64) float64 {
	t := 0.0
	for _, x := range w {
		t += x
	}
	return t
}

// Pick implements Policy: O(log E) to find the entry, plus the ineligible owners walked past; no allocation.
func (p *ringHash) Pick(v View, req Request, _ *sim.Rand) int {
	return walkEligible(p.ring, p.ring.Find(KeyPosition(req.Key)), v.Eligible)
}

// walkEligible returns the first eligible owner clockwise from entry i (every server, when eligible is nil). Every
// server owns at least one entry, so one turn of the ring meets every eligible server; it panics when none is.
func walkEligible(r *hashing.Ring, i int, eligible []bool) int {
	if eligible == nil {
		return r.Owner(i)
	}
	for j := range r.Entries() {
		if s := r.Owner(i + j); eligible[s] {
			return s
		}
	}
	panic("policy: ring policy: no eligible server")
}
