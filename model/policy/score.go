package policy

import (
	"lbsweep/model"
	"lbsweep/model/hashing"
	"lbsweep/model/sim"
)

// scorer is the pick rule of seed 000's ScorePolicy.pick (§5.3), shared by the scoring policies (least_outstanding,
// ewma, ewma_success): score each candidate and take the lowest. The candidates are every server in list order
// (d = 0), or d distinct servers sampled uniformly in random order (power of d choices over the same score, the
// toy's rng.sample(fleet, d)). A tie on the lowest score goes to the first tied candidate in that order (TieFirst:
// Python's min, so list order decides a full scan's ties and the random sample order a sample's) or to a uniformly
// random tied one (TieRandom, by reservoir sampling: one draw per tie met, none when nothing ties), or to the tied
// one with the highest KeyTieWeight for the request's key (TieKey: rendezvous among the tied, no draw; the weights are
// hashed only once a tie is met).
//
// Sampling is a partial Fisher–Yates shuffle of a persistent permutation of 0..n−1: each pick's first d entries are a
// uniformly random ordered d-subset, whatever order earlier picks left behind (d draws per pick).
//
// With an eligibility mask the candidates are the eligible servers in list order (d = 0), or min(d, m) of the m
// eligible ones sampled the same way from the eligible list (O(n) per pick to build it).
type scorer struct {
	d    int
	tie  Tie
	all  []int // 0..n−1: a full scan's candidates
	perm []int // the permutation sampled from (d > 0)
	cand []int // the last pick's candidates
	elig []int // with an eligibility mask: the eligible servers
}

// scores is what a scoring policy supplies: server k's score now (lower is better).
type scores interface {
	score(l *sim.Levels, k int) float64
}

// ScoreConfig is the candidate rule the scoring policies share: the `d` and `tie` arguments.
type ScoreConfig struct {
	// D is the power-of-d sample size, 1 ≤ D ≤ n, or 0 (d null) for every server in list order.
	D int
	// Tie breaks ties on the lowest score (`tie`, default first; TieKey makes the policy keyed).
	Tie Tie
}

// scoreArgs are the arguments of ScoreConfig: d (null: every server) and tie (default first).
var scoreArgs = []Arg{
	{Name: "d"},
	{Name: "tie", Default: model.IntValue(int64(TieFirst))},
}

func scoreConfigOf(v Values) ScoreConfig {
	return ScoreConfig{D: int(v[argD].I), Tie: Tie(v[argTie].I)}
}

// check validates d: null, or 1 ≤ d ≤ n distinct servers (seed 000 §5.3's rng.sample(fleet, d), which raises
// ValueError "Sample larger than population or is negative" for d > n).
func (c ScoreConfig) check(s Servers) error {
	if c.D != 0 && (c.D < 1 || c.D > s.N) {
		return issue("d", "%d: need 1 ≤ d ≤ n (n = %d)", c.D, s.N)
	}
	return nil
}

// traits are the facts the candidate rule decides: one candidate (d = 1) ignores the loads; a full scan reads every
// server; eligibility is honored.
func (c ScoreConfig) traits(s Servers) Traits {
	t := Traits{Eligibility: true, Reads: c.D, Keyed: c.Tie == TieKey && c.D != 1} // one candidate never ties
	if c.D == 0 {
		t.Reads = s.N
	}
	if c.D == 1 {
		t.Split = SplitEqual
	}
	return t
}

func newScorer(c ScoreConfig, n int) scorer {
	s := scorer{d: c.D, tie: c.Tie, all: make([]int, n)}
	for k := range s.all {
		s.all[k] = k
	}
	if s.d > 0 {
		s.perm = append([]int(nil), s.all...)
	}
	return s
}

// KeyTieWeight is server k's rendezvous (highest random weight) weight for key under tie = key: hashing.Key(key, k),
// xxHash64 of the key seeded by the server index, so for one key the servers' weights are independent uniform draws
// and the highest among any tied set is a fixed server, uniform over the set across keys.
func KeyTieWeight(key uint64, k int) uint64 { return hashing.Key(key, uint64(k)) }

// pick returns the candidate with the lowest score under f; key is the request's key (read only with TieKey).
func (s *scorer) pick(v View, key uint64, r *sim.Rand, f scores) int {
	cand := s.all
	switch {
	case v.Eligible != nil:
		s.elig = s.elig[:0]
		for k, ok := range v.Eligible {
			if ok {
				s.elig = append(s.elig, k)
			}
		}
		if len(s.elig) == 0 {
			panic("policy: scoring policy: no eligible server")
		}
		cand = s.elig
		if s.d > 0 {
			d := min(s.d, len(cand))
			for j := range d {
				i := j + r.IntN(len(cand)-j)
				cand[j], cand[i] = cand[i], cand[j]
			}
			cand = cand[:d]
		}
	case s.d > 0:
		n := len(s.perm)
		for j := range s.d {
			i := j + r.IntN(n-j)
			s.perm[j], s.perm[i] = s.perm[i], s.perm[j]
		}
		cand = s.perm[:s.d]
	}
	s.cand = cand
	l := v.Loads
	best, low, tied := cand[0], f.score(l, cand[0]), 1
	var bw uint64 // with TieKey and tied > 1: best's KeyTieWeight
	for _, k := range cand[1:] {
		switch x := f.score(l, k); {
		case x < low:
			best, low, tied = k, x, 1
		case x == low && s.tie == TieRandom:
			tied++
			if r.IntN(tied) == 0 {
				best = k
			}
		case x == low && s.tie == TieKey:
			if tied++; tied == 2 {
				bw = KeyTieWeight(key, best)
			}
			if w := KeyTieWeight(key, k); w > bw {
				best, bw = k, w
			}
		}
	}
	return best
}

// Candidates implements Sampler.
func (s *scorer) Candidates() []int { return s.cand }
