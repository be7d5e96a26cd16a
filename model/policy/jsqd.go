package policy

import (
	"lbsweep/model"
	"lbsweep/model/sim"
)

const jsqdDoc = "JSQ(d), the power of d choices: sample d servers uniformly (distinct, or with replacement as Envoy's " +
	"least request), join the shortest, ties uniformly at random (Mitzenmacher, IEEE TPDS 12(10), 2001; Vvedenskaya, " +
	"Dobrushin & Karpelevich, 1996)"

// jsqdArgs are jsq_d's arguments: d (required) and replacement (default false).
var jsqdArgs = []Arg{
	{Name: "d", Required: true},
	{Name: "replacement", Default: model.BoolValue(false)},
}

// JSQdConfig is jsq_d's configuration.
type JSQdConfig struct {
	// D is the number of servers sampled per arrival, 1 ≤ D ≤ n (the `d` argument).
	D int
	// Replacement samples with replacement (Envoy's least request); false: D distinct servers.
	Replacement bool
}

func buildJSQd(v Values) Config {
	return JSQdConfig{D: int(v[argD].I), Replacement: v[argReplacement].B}
}

// Check implements Config: 1 ≤ d ≤ n. The survey's JSQ(d) samples d ≥ 1 servers, d = 1 being random dispatch
// (Mitzenmacher, Richa & Sitaraman 2001, §4); more than n distinct samples do not exist, and with replacement d > n
// is refused alike.
func (c JSQdConfig) Check(s Servers) error {
	if c.D < 1 || c.D > s.N {
		return issue("d", "%d: need 1 ≤ d ≤ n (n = %d)", c.D, s.N)
	}
	return nil
}

// New implements Config.
func (c JSQdConfig) New(Servers) Policy {
	return &jsqd{d: c.D, replace: c.Replacement} // idx is built on first use: only large d needs it
}

// Traits implements Config: the JSQ(d) family; d = 1 (one sample) ignores the loads, an equal split. Eligibility is
// not honored.
func (c JSQdConfig) Traits(Servers) Traits {
	t := Traits{Family: FamilyJSQd, D: c.D, Reads: c.D}
	if c.D == 1 {
		t.Split = SplitEqual
	}
	return t
}

// maxRejection is the largest d sampled by rejection (a linear duplicate check); larger d use partial Fisher–Yates.
const maxRejection = 8

// jsqd samples in a uniformly random order and keeps the first strict minimum: the order is exchangeable, so the
// first minimum is uniform among the tied minima with no extra random number (as Envoy's strict less-than).
type jsqd struct {
	d       int
	replace bool
	idx     []int32 // large d without replacement: a permutation of 0..n−1 for partial Fisher–Yates
}

// Pick implements Policy (the view's eligibility is ignored).
func (p *jsqd) Pick(v View, _ Request, r *sim.Rand) int { return p.pick(v.Loads, r) }

func (p *jsqd) pick(l *sim.Levels, r *sim.Rand) int {
	n := l.N()
	if p.replace { // d = 2 is PickTwoSampled's pick, draw for draw (TestInlinePicksArePicks holds them to it)
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
