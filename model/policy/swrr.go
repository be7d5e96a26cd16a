package policy

import (
	"math"

	"lbsweep/model/sim"
)

const smoothWRRDoc = "nginx's smooth weighted round robin: each pick adds every server's effective_weight to its " +
	"current_weight, takes the largest current_weight (strict >, so ties go to the earlier server) and subtracts the " +
	"total effective weight of the servers that took part; 5:1:1 gives a a b a c a a. Weights default to the service " +
	"rates; ignores loads (nginx 1.26.2 src/http/ngx_http_upstream_round_robin.c, ngx_http_upstream_get_peer(); " +
	"commit 52327e0, 2012; seed 002 §3)"

// SWRR is nginx's smooth weighted round robin over servers 0..n−1 (nginx release-1.26.2,
// src/http/ngx_http_upstream_round_robin.c, ngx_http_upstream_get_peer() and ngx_http_upstream_free_round_robin_peer();
// Maxim Dounin's commit 52327e0 "Upstream: smooth weighted round-robin balancing.", first in nginx 1.3.0).
//
// Per server it keeps the configured weight w, the effective_weight e (w unless failures de-rated it) and the
// current_weight c. Next does, over every server in list order: c += e; total += e; if e < w then e += 1 (capped at w
// for fractional weights); keep the first server with the largest c (strict greater-than); then c_best −= total.
// While no server fails the sum of the current weights stays 0, and every cycle of W = Σw picks (integer weights)
// picks server i exactly w_i times, with the picks of heavy servers spread out: 5:1:1 gives a a b a c a a, and equal
// weights give exactly the round-robin sequence 0, 1, …, n−1 (seed 000 §7.1). nginx skips the peers that are down,
// failed (max_fails within fail_timeout) or at max_conns before anything else, `if (peer->down) { continue; }`: they
// take no part in the pick (no current_weight added, no share of total). Here the view's eligibility mask plays that
// role; the reasons a peer is skipped are the model's.
//
// # One cycle, then O(1) per pick
//
// While every server takes part and none has failed, the state after P picks is the all-zero state it started from,
// for P = Σw/g picks when the weights are integers (g their greatest common divisor), so the sequence repeats with
// period P. When the weights are exact in binary (w·2^k an integer for some k ≤ maxCycleShift, so every sum is exact
// in float64) and P ≤ MaxCycle, the first period is computed in O(n) per pick and recorded, and its later picks are
// read from the record in O(1). The first pick over a subset of the servers (an eligibility mask) or a Fail leaves
// the record for good: the current weights are first restored to what the O(n) loop would hold after pos picks into
// the period, c_i = pos·w_i − (Σw)·(picks of i among them), exact for the same reason, so the sequence is the one the
// O(n) loop gives, pick for pick (a test compares them). The record is checked when the first period ends: if the
// state is not exactly zero again the record is dropped.
type SWRR struct {
	weight, effective, current []float64
	total                      float64 // Σ weight
	period                     int     // P when the weights allow a record (see above), else 0
	cycle                      []int32 // the picks of the period recorded so far
	pos                        int     // picks into the current period
	replay                     bool    // cycle is complete and current is stale: picks come from cycle[pos]
}

// MaxCycle bounds the period of smooth WRR that NewSWRR records (4 bytes a pick: 256 KiB at most).
const MaxCycle = 1 << 16

// maxCycleShift bounds k in w·2^k, the scaling that makes the weights integers.
const maxCycleShift = 20

// NewSWRR returns the balancer for the given weights (len ≥ 1, each > 0 and finite), all current weights 0.
func NewSWRR(weights []float64) *SWRR {
	s := &SWRR{
		weight:    append([]float64(nil), weights...),
		effective: append([]float64(nil), weights...),
		current:   make([]float64, len(weights)),
	}
	for _, w := range weights {
		s.total += w
	}
	s.period = cyclePeriod(weights)
	return s
}

// cyclePeriod returns the period P of the failure-free smooth WRR sequence over weights when it may be recorded
// (weights exact in binary, integer after scaling by 2^k, k ≤ maxCycleShift, and P ≤ MaxCycle), else 0.
func cyclePeriod(weights []float64) int {
	for k := 0; k <= maxCycleShift; k++ {
		scale := float64(uint64(1) << k)
		var sum, g uint64
		ok := true
		for _, w := range weights {
			x := w * scale
			if x != math.Trunc(x) || x > MaxCycle {
				ok = false
				break
			}
			sum += uint64(x)
			g = gcd(g, uint64(x))
		}
		if ok {
			if p := sum / g; p <= MaxCycle {
				return int(p)
			}
			return 0
		}
	}
	return 0
}

func gcd(a, b uint64) uint64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// SmoothWRRConfig is smooth_wrr's configuration: it takes no arguments; its weights are the servers' (Servers.Weight).
type SmoothWRRConfig struct{}

func buildSmoothWRR(Values) Config { return SmoothWRRConfig{} }

// Check implements Config: the weights, finite and > 0 (nginx's `weight=number`, a positive integer; any positive
// ratio here).
func (SmoothWRRConfig) Check(s Servers) error { return s.checkWeights() }

// New implements Config.
func (SmoothWRRConfig) New(s Servers) Policy { return NewSWRR(s.weights()) }

// Traits implements Config: a weighted split; with equal weights the round-robin sequence, otherwise the smooth one;
// eligibility honored (nginx's skipped peers); every server read per pick.
func (SmoothWRRConfig) Traits(s Servers) Traits {
	t := Traits{Split: SplitWeighted, Sequence: SmoothSequence, Eligibility: true, Reads: s.N}
	if unequal(s) == nil {
		t.Sequence = RoundRobinSequence
	}
	return t
}

// Next returns the next server: in O(n), or in O(1) from the recorded period (see SWRR).
func (s *SWRR) Next() int { return s.next(nil) }

// next is Next over the eligible servers only (all when eligible is nil): the others are skipped as nginx skips down
// peers.
func (s *SWRR) next(eligible []bool) int {
	if s.period > 0 {
		if eligible == nil {
			return s.periodic()
		}
		s.leaveCycle()
	}
	return s.loop(eligible)
}

// periodic is a failure-free pick over every server while the period is recorded or replayed.
func (s *SWRR) periodic() int {
	if s.replay {
		k := int(s.cycle[s.pos])
		if s.pos++; s.pos == s.period {
			s.pos = 0
		}
		return k
	}
	k := s.loop(nil)
	s.cycle = append(s.cycle, int32(k))
	if s.pos++; s.pos == s.period {
		s.pos = 0
		for _, c := range s.current {
			if c != 0 { // not back at the start: no period to replay
				s.leaveCycle()
				return k
			}
		}
		s.replay = true
	}
	return k
}

// leaveCycle ends the recorded period for good, restoring the current weights a replay left stale.
func (s *SWRR) leaveCycle() {
	if s.replay {
		s.restore(s.current)
	}
	s.period, s.cycle, s.replay = 0, nil, false
}

// restore writes into c the current weights after pos picks into the period: pos·w_i − Σw·(picks of i among them).
func (s *SWRR) restore(c []float64) {
	for i := range c {
		c[i] = 0
	}
	for _, k := range s.cycle[:s.pos] {
		c[k]++
	}
	for i, w := range s.weight {
		c[i] = float64(s.pos)*w - s.total*c[i]
	}
}

// loop is nginx's O(n) pick.
func (s *SWRR) loop(eligible []bool) int {
	best, total := -1, 0.0
	for k := range s.weight {
		if eligible != nil && !eligible[k] {
			continue
		}
		s.current[k] += s.effective[k]
		total += s.effective[k]
		if s.effective[k] < s.weight[k] {
			s.effective[k] = min(s.effective[k]+1, s.weight[k])
		}
		if best < 0 || s.current[k] > s.current[best] {
			best = k
		}
	}
	if best < 0 {
		panic("policy: smooth_wrr: no eligible server")
	}
	s.current[best] -= total
	return best
}

// Fail de-rates server k after a failed request as nginx does with max_fails = maxFails ≥ 1: effective_weight −=
// weight/maxFails, floored at 0; it then recovers by 1 per pick (see Next). For models with failures.
func (s *SWRR) Fail(k, maxFails int) {
	s.leaveCycle()
	s.effective[k] = max(0, s.effective[k]-s.weight[k]/float64(maxFails))
}

// Current returns server k's current_weight (for tests and traces).
func (s *SWRR) Current(k int) float64 {
	if s.replay {
		c := make([]float64, len(s.weight))
		s.restore(c)
		return c[k]
	}
	return s.current[k]
}

// Pick implements Policy: the next eligible server, whatever the loads.
func (s *SWRR) Pick(v View, _ Request, _ *sim.Rand) int { return s.next(v.Eligible) }
