package hashing

import (
	"fmt"
	"math"
)

// Bounded places keys by consistent hashing with bounded loads (Mirrokni, Thorup & Zadimoghaddam, "Consistent
// Hashing with Bounded Loads", SODA 2018, arXiv:1608.01350): with m keys over n servers, each server's capacity is
// c = ⌈(1+ε)·m/n⌉ (clamped to m, which changes nothing but the arithmetic); keys are placed one at a time, in order, each going to the first server clockwise from its
// position on the ring that has fewer than c keys. No server ever holds more than c keys: the cap is an invariant,
// and Place's callers can check it with Load and Cap.
//
// The knobs the field names: Envoy v1.31.0's hash_balance_factor f (an integer percentage ≥ 100, in
// ConsistentHashingLbConfig) and HAProxy's hash-balance-factor <factor> (since 1.7.0; same meaning) both cap a
// server at f/100 times the average, so ε = f/100 − 1 (f = 125 is ε = 0.25). Envoy computes its cap over active
// requests, slots = max(⌈⌈(a+1)·f/100⌉·w_s⌉, 1) for a requests active overall and normalized weight w_s; here
// m plays a, and weights give c_s = ⌈(1+ε)·m·w_s⌉.
//
// Deviations: the walk past a full server is the paper's clockwise walk over ring entries; Envoy instead probes the
// other hosts in a random order seeded by the key's hash (after arXiv:1908.08762, to avoid cascading overflow), so
// its walk lengths differ from these. Keys are placed in the order the caller gives them; a different order gives a
// different (equally capped) assignment, and the scheme is not monotone: a join changes c and so who overflows.
type Bounded struct {
	ring *Ring
	cap  []int
	load []int
}

// NewBounded prepares to place m ≥ 0 keys on ring r (over n servers, with the weights the ring was built with, nil
// for equal) with balance parameter ε ≥ 0. It panics on invalid arguments.
func NewBounded(r *Ring, n int, weights []float64, m int, epsilon float64) *Bounded {
	if !(epsilon >= 0) || math.IsInf(epsilon, 0) || m < 0 || n < 1 || len(r.count) != n {
		panic(fmt.Sprintf("hashing: bounded loads need ε ≥ 0 finite (%g), m ≥ 0 (%d) and the ring's n (%d)", epsilon, m, n))
	}
	if err := validWeights(weights, n); err != nil {
		panic(err)
	}
	shares, _ := normalized(weights, n)
	b := &Bounded{ring: r, cap: make([]int, n), load: make([]int, n)}
	for s, w := range shares {
		b.cap[s] = capOf((1+epsilon)*float64(m)*w, m)
	}
	return b
}

// capOf returns ⌈x⌉ clamped to m: no server can hold more than the m keys, so a larger cap binds nothing, and the
// clamp keeps a huge ε from overflowing the int conversion (ε = 10^12 made every cap negative, so no key found room).
func capOf(x float64, m int) int {
	if c := math.Ceil(x); c < float64(m) {
		return int(c)
	}
	return m
}

// Capacity returns ⌈(1+ε)·m/n⌉ for equal weights, the cap the paper states, clamped to m (a cap above m binds
// nothing).
func Capacity(m, n int, epsilon float64) int {
	return capOf((1+epsilon)*float64(m)/float64(n), m)
}

// Place assigns key hash h and returns its server and the ring entries visited (1 when the first is not full).
// It returns server −1 after a full turn of the ring finds every server full (more keys than the capacities hold,
// or servers without an entry).
func (b *Bounded) Place(h uint64) (server, steps int) {
	i := b.ring.Find(h)
	n := b.ring.Entries()
	for steps = 1; steps <= n; steps++ {
		s := b.ring.owner[i]
		if b.load[s] < b.cap[s] {
			b.load[s]++
			return int(s), steps
		}
		if i++; i == n {
			i = 0
		}
	}
	return -1, n
}

// Load returns the keys placed on server s so far.
func (b *Bounded) Load(s int) int { return b.load[s] }

// Cap returns server s's capacity c_s.
func (b *Bounded) Cap(s int) int { return b.cap[s] }
