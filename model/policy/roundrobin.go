package policy

import (
	"lbsweep/model/sim"
)

const roundRobinDoc = "servers 0, 1, …, n−1, 0, … in turn, ignoring loads; with Poisson arrivals each server is an " +
	"E_n/M/1 queue (nginx's round robin with equal weights)"

// RoundRobinConfig is round_robin's configuration: it takes no arguments.
type RoundRobinConfig struct{}

func buildRoundRobin(Values) Config { return RoundRobinConfig{} }

// Check implements Config: nothing to check.
func (RoundRobinConfig) Check(Servers) error { return nil }

// New implements Config.
func (RoundRobinConfig) New(Servers) Policy { return &roundRobin{} }

// Traits implements Config: an equal split in the round-robin sequence (whatever the weights, which it ignores);
// eligibility honored.
func (RoundRobinConfig) Traits(Servers) Traits {
	return Traits{Split: SplitEqual, Sequence: RoundRobinSequence, Eligibility: true}
}

type roundRobin struct{ next int }

// Pick returns the cursor's server and advances it; with an eligibility mask, ineligible servers are skipped as nginx
// skips down peers (the cursor moves past them), so the eligible ones keep their cyclic order.
func (p *roundRobin) Pick(v View, _ Request, _ *sim.Rand) int {
	n := v.Loads.N()
	for range n {
		k := p.next
		p.next++
		if p.next == n {
			p.next = 0
		}
		if v.eligible(k) {
			return k
		}
	}
	panic("policy: round_robin: no eligible server")
}
