package policy

import (
	"lbsweep/model/sim"
)

const jsqdDoc = "JSQ(d), the power of d choices: sample d servers uniformly (distinct, or with replacement as Envoy's " +
	"least request), join the shortest, ties uniformly at random (Mitzenmacher, IEEE TPDS 12(10), 2001; Vvedenskaya, " +
	"Dobrushin & Karpelevich, 1996)"

// maxRejection is the largest d sampled by rejection (a linear duplicate check); larger d use partial Fisher–Yates.
const maxRejection = 8

// jsqd samples in a uniformly random order and keeps the first strict minimum: the order is exchangeable, so the
// first minimum is uniform among the tied minima with no extra random number (as Envoy's strict less-than).
type jsqd struct {
	d       int
	replace bool
	idx     []int32 // large d without replacement: a permutation of 0..n−1 for partial Fisher–Yates
}

func newJSQd(a Args, _ Servers) Policy {
	return &jsqd{d: a.D, replace: a.Replacement} // idx is built on first use: only large d needs it
}

func (p *jsqd) Pick(l *sim.Levels, r *sim.Rand, _ float64) int {
	n := l.N()
	if p.replace {
		best := r.IntN(n)
		bq := l.Len(best)
		for range p.d - 1 {
			k := r.IntN(n)
			if q := l.Len(k); q < bq {
				best, bq = k, q
			}
		}
		return best
	}
	if p.d == 2 {
		return PickTwoChoices(l, r)
	}
	if 4*p.d <= n && p.d <= maxRejection {
		// Sequential draws, each redrawn until it is new: every draw is uniform over the servers not yet sampled,
		// so the sample is a uniformly random ordered d-subset (expected draws < d·4/3 since d ≤ n/4).
		var seen [maxRejection]int
		best, bq := -1, int32(0)
		for j := range p.d {
			k := r.IntNNew(n, seen[:j])
			seen[j] = k
			if q := l.Len(k); best < 0 || q < bq {
				best, bq = k, q
			}
		}
		return best
	}
	// Partial Fisher–Yates over a persistent permutation: each call's first d entries are a uniformly random
	// ordered d-subset whatever order earlier calls left behind.
	if p.idx == nil {
		p.idx = make([]int32, n)
		for i := range p.idx {
			p.idx[i] = int32(i)
		}
	}
	idx := p.idx
	best, bq := -1, int32(0)
	for j := range p.d {
		s := j + r.IntN(n-j)
		idx[j], idx[s] = idx[s], idx[j]
		k := int(idx[j])
		if q := l.Len(k); best < 0 || q < bq {
			best, bq = k, q
		}
	}
	return best
}
