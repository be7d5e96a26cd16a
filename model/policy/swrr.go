package policy

import (
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
type SWRR struct {
	weight, effective, current []float64
}

// NewSWRR returns the balancer for the given weights (len ≥ 1, each > 0 and finite), all current weights 0.
func NewSWRR(weights []float64) *SWRR {
	s := &SWRR{
		weight:    append([]float64(nil), weights...),
		effective: append([]float64(nil), weights...),
		current:   make([]float64, len(weights)),
	}
	return s
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

// Next returns the next server, in O(n).
func (s *SWRR) Next() int { return s.next(nil) }

// next is Next over the eligible servers only (all when eligible is nil): the others are skipped as nginx skips down
// peers.
func (s *SWRR) next(eligible []bool) int {
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
	s.effective[k] = max(0, s.effective[k]-s.weight[k]/float64(maxFails))
}

// Current returns server k's current_weight (for tests and traces).
func (s *SWRR) Current(k int) float64 { return s.current[k] }

// Pick implements Policy: the next eligible server, whatever the loads.
func (s *SWRR) Pick(v View, _ Request, _ *sim.Rand) int { return s.next(v.Eligible) }
