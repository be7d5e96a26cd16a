package hashing

import (
	"fmt"
	"math"
)

// Rendezvous is rendezvous or highest-random-weight hashing (Thaler & Ravishankar, "Using Name-Based Mappings to
// Increase Hit Rates", IEEE/ACM ToN 6(1), 1998): a key goes to the server whose score hash(key, server) is largest.
// O(N) score evaluations per lookup, no table beyond one name per server.
//
// Weights use the logarithmic method of Schindelhauer & Schomaker ("Weighted Distributed Hash Tables", SPAA 2005):
// with u_s ∈ (0, 1) the score hash scaled to the unit interval, the key goes to the server maximizing
// w_s / −ln u_s. Since −ln u_s / w_s is Exponential(w_s), the winner is s with probability exactly w_s / Σ w, and
// changing one server's weight moves keys only to or from it. With equal weights this is the plain maximum of the
// hashes (the same order, without the logarithm).
//
// Score: score(h, name_s) = mix(h ⊕ name_s) with name_s = Key(s, Salt), h the key's hash and mix the SplitMix64
// finalizer (Steele, Lea & Flood, OOPSLA 2014), a bijection with full avalanche at two multiplications, about a third
// of Key's cost: the N evaluations per lookup dominate rendezvous' cost. A join moves a key only to the new server
// (its score is the only new one) and a leave only from the leaving one: rendezvous is monotone both ways.
type Rendezvous struct {
	name    []uint64
	weights []float64 // nil: equal
}

// NewRendezvous builds rendezvous hashing over n servers with the given weights (nil: equal; else n values > 0).
// It panics on an invalid configuration.
func NewRendezvous(n int, weights []float64, salt uint64) *Rendezvous {
	if n < 1 {
		panic(fmt.Sprintf("hashing: rendezvous needs n ≥ 1 servers, got %d", n))
	}
	if err := validWeights(weights, n); err != nil {
		panic(err)
	}
	r := &Rendezvous{name: make([]uint64, n)}
	for s := range r.name {
		r.name[s] = Key(uint64(s), salt)
	}
	if weights != nil {
		r.weights = append([]float64(nil), weights...)
	}
	return r
}

// Lookup returns the server of key hash h; ties (probability ~N²/2^64) go to the lowest index. N score evaluations,
// no allocation.
func (r *Rendezvous) Lookup(h uint64) int {
	best := 0
	if r.weights == nil {
		top := score(h, r.name[0])
		for s := 1; s < len(r.name); s++ {
			if v := score(h, r.name[s]); v > top {
				best, top = s, v
			}
		}
		return best
	}
	top := math.Inf(-1)
	for s, nm := range r.name {
		u := (float64(score(h, nm)>>11) + 0.5) / (1 << 53) // in (0, 1)
		if v := r.weights[s] / -math.Log(u); v > top {
			best, top = s, v
		}
	}
	return best
}

// score is rendezvous' per-(key, server) hash: SplitMix64's finalizer of h ⊕ name.
func score(h, name uint64) uint64 {
	z := h ^ name
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}
