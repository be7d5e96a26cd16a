package policy

import (
	"lbsweep/model/sim"
)

// scorer is the pick rule of seed 000's ScorePolicy.pick (§5.3), shared by the scoring policies (least_outstanding,
// ewma, ewma_success): score each candidate and take the lowest. The candidates are every server in list order
// (d = 0), or d distinct servers sampled uniformly in random order (power of d choices over the same score, the
// toy's rng.sample(fleet, d)). A tie on the lowest score goes to the first tied candidate in that order (TieFirst:
// Python's min, so list order decides a full scan's ties and the random sample order a sample's) or to a uniformly
// random tied one (TieRandom, by reservoir sampling: one draw per tie met, none when nothing ties).
//
// Sampling is a partial Fisher–Yates shuffle of a persistent permutation of 0..n−1: each pick's first d entries are a
// uniformly random ordered d-subset, whatever order earlier picks left behind (d draws per pick).
type scorer struct {
	d    int
	tie  Tie
	all  []int // 0..n−1: a full scan's candidates
	perm []int // the permutation sampled from (d > 0)
	cand []int // the last pick's candidates
}

// scores is what a scoring policy supplies: server k's score now (lower is better).
type scores interface {
	score(l *sim.Levels, k int) float64
}

func newScorer(a Args, n int) scorer {
	s := scorer{d: a.D, tie: a.Tie, all: make([]int, n)}
	for k := range s.all {
		s.all[k] = k
	}
	if s.d > 0 {
		s.perm = append([]int(nil), s.all...)
	}
	return s
}

// pick returns the candidate with the lowest score under f.
func (s *scorer) pick(l *sim.Levels, r *sim.Rand, f scores) int {
	cand := s.all
	if s.d > 0 {
		n := len(s.perm)
		for j := range s.d {
			i := j + r.IntN(n-j)
			s.perm[j], s.perm[i] = s.perm[i], s.perm[j]
		}
		cand = s.perm[:s.d]
	}
	s.cand = cand
	best, low, tied := cand[0], f.score(l, cand[0]), 1
	for _, k := range cand[1:] {
		switch x := f.score(l, k); {
		case x < low:
			best, low, tied = k, x, 1
		case x == low && s.tie == TieRandom:
			tied++
			if r.IntN(tied) == 0 {
				best = k
			}
		}
	}
	return best
}

// Candidates implements Sampler.
func (s *scorer) Candidates() []int { return s.cand }
