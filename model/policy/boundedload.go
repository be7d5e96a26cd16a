package policy

import (
	"math"

	"lbsweep/model"
	"lbsweep/model/hashing"
	"lbsweep/model/sim"
)

const boundedLoadDoc = "consistent hashing with bounded loads (Mirrokni, Thorup & Zadimoghaddam, SODA 2018), seed 004's " +
	"form: each server's cap is ⌈(1+ε)(in flight + 1)/servers⌉ (∝ weight when weighted), and a request walks " +
	"clockwise on the ring from its key past full and ineligible servers (Envoy's hash_balance_factor and HAProxy's " +
	"hash-balance-factor = 100·(1+ε))"

// DefaultEpsilon is bounded_load's default slack, seed 004's ε = 0.25 (Envoy hash_balance_factor 125).
const DefaultEpsilon = 0.25

// boundedLoadArgs are bounded_load's arguments: the ring's min_ring_size and epsilon (default 0.25).
var boundedLoadArgs = append(append([]Arg(nil), ringArgs...), Arg{Name: "epsilon", Default: model.FloatValue(DefaultEpsilon)})

// BoundedLoadConfig is bounded_load's configuration: the ring and ε.
type BoundedLoadConfig struct {
	RingConfig
	// Epsilon is the slack ε > 0, finite (the `epsilon` argument): caps are (1+ε) times the mean load after the
	// pick. Envoy's hash_balance_factor (percent, ≥ 100) and HAProxy's hash-balance-factor (since 1.7.0: percent of
	// the average over the active servers, > 100) are the same knob, 100·(1+ε).
	Epsilon float64
}

func buildBoundedLoad(v Values) Config {
	return BoundedLoadConfig{RingConfig: ringConfigOf(v), Epsilon: v[argEpsilon].F}
}

// Check implements Config: the ring's arguments, and 0 < ε < ∞: the paper's capacity factor c = 1+ε > 1, and
// HAProxy's hash-balance-factor must exceed 100 (0 disables it). Envoy v1.31.0 accepts hash_balance_factor = 100
// (ε = 0, every cap at the mean rounded up, which still leaves room somewhere); that boundary is not offered.
func (c BoundedLoadConfig) Check(s Servers) error {
	if !(c.Epsilon > 0) || math.IsInf(c.Epsilon, 1) {
		return issue("epsilon", "%v: need a finite ε > 0", c.Epsilon)
	}
	return c.check(s)
}

// New implements Config: builds the ring and the normalized weights.
func (c BoundedLoadConfig) New(s Servers) Policy {
	w := s.weights()
	total := 0.0
	for _, x := range w {
		total += x
	}
	return &boundedLoad{ring: c.ring(s), slack: 1 + c.Epsilon, w: w, wAll: total, equal: s.Weight == nil}
}

// Traits implements Config: load-aware, keyed, eligibility honored. Reads is n, the bound (a walk past every full
// server); a typical pick reads one or a few (the paper bounds the expected probes per request by O(1/ε²)).
func (c BoundedLoadConfig) Traits(s Servers) Traits {
	return Traits{Eligibility: true, Keyed: true, Reads: s.N}
}

// boundedLoad walks the ring from the key's entry and takes the first eligible server whose outstanding count is
// below its cap ⌈(1+ε)(T + 1)·w_k/W⌉, where T is the balancer's requests in flight (View.Loads' Total, every server's
// outstanding requests, the ineligible ones' included: they are still the balancer's, as Envoy's cluster-wide
// upstream_rq_active) and W the eligible servers' total weight (with equal weights W = m, the eligible count: seed
// 004's ⌈(1+ε)(in flight + 1)/servers⌉; Envoy normalizes the weights over the healthy hosts alike). Counting only the
// eligible servers keeps the caps' sum above the load to place, so some eligible server is always below its cap:
// were every one full, their loads would sum to ≥ Σ cap ≥ (1+ε)(T+1) > T. After each pick the chosen server holds at
// most its cap (with T+1 in flight), the invariant of Mirrokni et al.
//
// Cost: O(1) for T (a running total), O(log E) to find the entry, one read per server walked. With an eligibility
// mask, W needs an O(n) pass over it, which is skipped while the first eligible server is below the smallest cap it
// could have (W over every server ≥ W over the eligible ones).
//
// Deviations from Envoy v1.31.0 (BoundedLoadHashingLoadBalancer::chooseHost): Envoy accepts a host with active ≤
// slots (so one past the cap) and, past an overloaded host, probes the others in a random order seeded by the hash
// (Chen et al. 2019's random jumps, against cascaded overflow) rather than clockwise, falling back to the least
// overloaded; here full means active ≥ cap, the walk is clockwise (seed 004, the paper's linear probing), and no
// fallback is needed.
type boundedLoad struct {
	ring  *hashing.Ring
	slack float64   // 1 + ε
	w     []float64 // weights, all 1 when equal
	wAll  float64   // Σ w over every server
	equal bool
}

// Pick implements Policy; no allocation.
func (p *boundedLoad) Pick(v View, req Request, _ *sim.Rand) int {
	l := v.Loads
	mass := p.slack * float64(l.Total()+1) // (1+ε)(T+1)
	wSum, exact := p.wAll, v.Eligible == nil
	i := p.ring.Find(KeyPosition(req.Key))
	for j := range p.ring.Entries() {
		k := p.ring.Owner(i + j)
		if !v.eligible(k) {
			continue
		}
		q := float64(l.Len(k))
		if q < math.Ceil(mass*p.w[k]/wSum) {
			return k
		}
		if !exact {
			wSum, exact = p.eligibleWeight(v.Eligible), true
			if q < math.Ceil(mass*p.w[k]/wSum) {
				return k
			}
		}
	}
	panic("policy: bounded_load: no eligible server below its cap (no eligible server)")
}

// eligibleWeight is W, the eligible servers' total weight (their count with equal weights).
func (p *boundedLoad) eligibleWeight(eligible []bool) float64 {
	if p.equal {
		m := 0
		for _, ok := range eligible {
			if ok {
				m++
			}
		}
		return float64(m)
	}
	sum := 0.0
	for k, ok := range eligible {
		if ok {
			sum += p.w[k]
		}
	}
	return sum
}

// BoundedLoadCap returns server k's cap under bounded_load with slack ε when inFlight requests are outstanding before the pick
// and eligibleWeight is the eligible servers' total weight (their count, with equal weights w = 1):
// ⌈(1+ε)(inFlight + 1)·w/eligibleWeight⌉. Models and tests use it to check the invariant.
// A cap above inFlight + 1 binds nothing (no server can hold more than every request), so it is clamped there: a
// huge ε made the product +Inf, whose int64 conversion is undefined (math.MinInt64 on amd64, a false violation).
func BoundedLoadCap(epsilon float64, inFlight int64, w, eligibleWeight float64) int64 {
	if c := math.Ceil((1 + epsilon) * float64(inFlight+1) * w / eligibleWeight); c < float64(inFlight+1) {
		return int64(c)
	}
	return inFlight + 1
}
