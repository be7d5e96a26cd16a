package policy

import (
	"lbsweep/model/sim"
)

const randomDoc = "uniform random server, ignoring loads (JSQ(1)); with identical servers each is an M/M/1 queue " +
	"(Mitzenmacher, Richa & Sitaraman survey, 2001, §4)"

// RandomConfig is random's configuration: it takes no arguments.
type RandomConfig struct{}

func buildRandom(Values) Config { return RandomConfig{} }

// Check implements Config: nothing to check.
func (RandomConfig) Check(Servers) error { return nil }

// New implements Config.
func (RandomConfig) New(Servers) Policy { return random{} }

// Traits implements Config: an equal split, the random family; eligibility honored.
func (RandomConfig) Traits(Servers) Traits {
	return Traits{Split: SplitEqual, Family: FamilyRandom, Eligibility: true}
}

type random struct{}

// Pick is PickRandom over all servers; with an eligibility mask, a uniform eligible server (O(n): the mask is
// counted, then the chosen one found).
func (random) Pick(v View, _ Request, r *sim.Rand) int {
	if v.Eligible == nil {
		return PickRandom(v.Loads, r)
	}
	m := 0
	for _, ok := range v.Eligible {
		if ok {
			m++
		}
	}
	j := r.IntN(m)
	for k, ok := range v.Eligible {
		if ok {
			if j == 0 {
				return k
			}
			j--
		}
	}
	panic("policy: random: no eligible server")
}
