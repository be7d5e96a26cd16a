package policy

import (
	"fmt"
	"math"

	"lbsweep/model/sim"
)

const wrrExpandedDoc = "naive weighted round robin: each server repeated weight times in list order and the list " +
	"cycled (5:1:1 gives a a a a a b c); the contrast to smooth_wrr (seed 002 §3). Weights default to the service " +
	"rates, scaled to the smallest integers with the same ratios; ignores loads"

// ExpandedWRR is the naive weighted round robin: the expanded list holding server i w_i times (servers in order,
// each server's copies together), cycled. It has the right proportions and the worst burstiness: a server of weight
// w receives w consecutive requests. (Seed 002 §3: nginx before commit 52327e0 was as bursty.)
type ExpandedWRR struct {
	list []int32
	next int
}

// maxExpanded bounds the expanded list (the sum of the integer weights).
const maxExpanded = 1 << 24

// IntegerWeights scales positive weights to the smallest integers with the same ratios, within a relative 1e-9 (so
// 0.5 : 1 becomes 1 : 2). It fails when no multiplier up to 10^4 makes every weight an integer or the sum would
// exceed 2^24.
func IntegerWeights(w []float64) ([]int, error) {
	lo := math.Inf(1)
	for _, x := range w {
		lo = min(lo, x)
	}
	for m := 1; m <= 10_000; m++ {
		scale := float64(m) / lo // the smallest weight becomes m
		ints := make([]int, len(w))
		sum, ok := 0, true
		for i, x := range w {
			y := x * scale
			r := math.Round(y)
			if r > maxExpanded {
				return nil, fmt.Errorf("%d weights: the expanded list would hold more than %d entries (the integer weights in ratio must sum to at most 2^24)", len(w), maxExpanded)
			}
			if math.Abs(y-r) > 1e-9*y {
				ok = false
				break
			}
			ints[i] = int(r)
			sum += ints[i]
		}
		if ok {
			if sum > maxExpanded {
				return nil, fmt.Errorf("the integer weights sum to %d, more than %d", sum, maxExpanded)
			}
			return ints, nil
		}
	}
	return nil, fmt.Errorf("%d weights have no integer ratio with a smallest weight up to 10^4", len(w))
}

// NewExpandedWRR returns the expanded list for positive integer weights.
func NewExpandedWRR(weights []int) *ExpandedWRR {
	e := &ExpandedWRR{}
	for k, w := range weights {
		for range w {
			e.list = append(e.list, int32(k))
		}
	}
	return e
}

// WRRExpandedConfig is wrr_expanded's configuration: it takes no arguments; its weights are the servers'
// (Servers.Weight), scaled to the smallest integers with the same ratios (IntegerWeights).
type WRRExpandedConfig struct{}

func buildWRRExpanded(Values) Config { return WRRExpandedConfig{} }

// Check implements Config: the weights, finite and > 0, with an integer ratio whose expanded list holds at most 2^24
// entries (IntegerWeights).
func (WRRExpandedConfig) Check(s Servers) error {
	if err := s.checkWeights(); err != nil {
		return err
	}
	if _, err := IntegerWeights(s.weights()); err != nil {
		return issue("weights", "wrr_expanded: %v", err)
	}
	return nil
}

// New implements Config.
func (WRRExpandedConfig) New(s Servers) Policy {
	ints, err := IntegerWeights(s.weights())
	if err != nil {
		panic("policy: wrr_expanded: " + err.Error()) // Check refuses these weights first
	}
	return NewExpandedWRR(ints)
}

// Traits implements Config: a weighted split; with equal weights the expanded list is the round-robin sequence,
// otherwise the expanded one; eligibility honored.
func (WRRExpandedConfig) Traits(s Servers) Traits {
	t := Traits{Split: SplitWeighted, Sequence: ExpandedSequence, Eligibility: true}
	if unequal(s) == nil {
		t.Sequence = RoundRobinSequence
	}
	return t
}

// Next returns the next server of the cycled list.
func (e *ExpandedWRR) Next() int {
	k := e.list[e.next]
	e.next++
	if e.next == len(e.list) {
		e.next = 0
	}
	return int(k)
}

// Pick implements Policy: the next server of the list, whatever the loads; with an eligibility mask the entries of
// ineligible servers are skipped (at most one pass over the list).
func (e *ExpandedWRR) Pick(v View, _ Request, _ *sim.Rand) int {
	for range e.list {
		if k := e.Next(); v.eligible(k) {
			return k
		}
	}
	panic("policy: wrr_expanded: no eligible server")
}
