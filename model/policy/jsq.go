package policy

import (
	"lbsweep/model/sim"
)

const jsqDoc = "join the shortest queue: scan all n servers, ties uniformly at random (optimal for identical " +
	"exponential servers with fresh information: Winston, J. Appl. Prob. 14(1), 1977); O(1) per pick through the " +
	"sorted levels"

// JSQConfig is jsq's configuration: it takes no arguments.
type JSQConfig struct{}

func buildJSQ(Values) Config { return JSQConfig{} }

// Check implements Config: nothing to check.
func (JSQConfig) Check(Servers) error { return nil }

// New implements Config.
func (JSQConfig) New(Servers) Policy { return jsq{} }

// Traits implements Config: load-aware, the JSQ family; eligibility honored (by a scan when a mask is set).
func (JSQConfig) Traits(Servers) Traits {
	return Traits{Family: FamilyJSQ, Eligibility: true, Reads: 1}
}

type jsq struct{}

// Pick is PickShortest; with an eligibility mask, a shortest eligible queue by a scan in list order, ties uniform by
// reservoir sampling (O(n)).
func (jsq) Pick(v View, _ Request, r *sim.Rand) int {
	if v.Eligible == nil {
		return PickShortest(v.Loads, r)
	}
	best, low, tied := -1, int32(0), 0
	for k, ok := range v.Eligible {
		if !ok {
			continue
		}
		switch q := v.Loads.Len(k); {
		case best < 0 || q < low:
			best, low, tied = k, q, 1
		case q == low:
			tied++
			if r.IntN(tied) == 0 {
				best = k
			}
		}
	}
	if best < 0 {
		panic("policy: jsq: no eligible server")
	}
	return best
}
