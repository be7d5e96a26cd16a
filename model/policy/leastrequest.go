package policy

import (
	"math"
	"math/bits"

	"lbsweep/model"
	"lbsweep/model/sim"
)

const leastRequestDoc = "Envoy's least request: equal weights: choice_count hosts sampled with replacement, a " +
	"sample replaces the candidate only with strictly fewer active requests (2 hosts, choice_count 2: the busier " +
	"host 25% of the time), or full_scan: every host, ties uniformly at random; unequal weights: an EDF schedule over " +
	"the dynamic weights weight/(active+1)^active_request_bias (Envoy v1.31.0 source/extensions/" +
	"load_balancing_policies/least_request/least_request_lb.cc; seed 002 §4)"

// leastRequest is Envoy's LeastRequestLoadBalancer (v1.31.0,
// source/extensions/load_balancing_policies/least_request/least_request_lb.cc), with active requests = the server's
// queue length (the balancer sees every request it sent and nothing else reaches the servers):
//   - equal weights, N_CHOICES (unweightedHostPickNChoices): choice_count hosts drawn uniformly with replacement; the
//     first is the candidate and a later sample replaces it only with strictly fewer active requests;
//   - equal weights, FULL_SCAN (unweightedHostPickFullScan): every host in order, the least active kept, ties
//     broken uniformly by reservoir sampling (Envoy PR #31507, released in 1.30). That is JSQ's law, so it is drawn
//     as jsq draws it, in O(1) from the sorted levels (one draw among the tied, not one per tie);
//   - unequal weights (EdfLoadBalancerBase with hostWeight()): an earliest-deadline-first schedule. Each host holds a
//     deadline; a pick takes the earliest (ties: earliest inserted), sets the schedule's clock to it and re-inserts
//     the host with deadline clock + 1/w', w' = weight/(active+1)^active_request_bias computed at the pick. Other
//     hosts' deadlines are not recomputed when their loads change, which is why Envoy documents this mode as slow to
//     react and never draining a host. Envoy starts a new schedule after a pseudo-random number of picks so that
//     proxies do not move in lockstep; with one balancer that offset is left out (all deadlines start at 1/weight).
type leastRequest struct {
	fullScan bool
	bias     float64
	weight   []float64 // nil: equal weights
	edf      edf
	nChoices jsqd // equal weights, N_CHOICES
}

// leastRequestArgs are least_request's arguments, with Envoy's defaults.
var leastRequestArgs = []Arg{
	{Name: "choice_count", Default: model.IntValue(2)},
	{Name: "full_scan", Default: model.BoolValue(false)},
	{Name: "active_request_bias", Default: model.FloatValue(1)},
}

// LeastRequestConfig is least_request's configuration (Envoy v1.31.0,
// api/envoy/extensions/load_balancing_policies/least_request/v3/least_request.proto).
type LeastRequestConfig struct {
	// ChoiceCount is the number of hosts sampled with replacement per pick (`choice_count`, default 2), 1 ≤
	// ChoiceCount ≤ 2^20.
	ChoiceCount int
	// FullScan scans every host instead (`full_scan`: Envoy's selection_method = FULL_SCAN; default N_CHOICES).
	FullScan bool
	// ActiveRequestBias is the exponent of the dynamic weight weight/(active+1)^bias used when the static weights
	// differ (`active_request_bias`, default 1), finite and ≥ 0.
	ActiveRequestBias float64
}

func buildLeastRequest(v Values) Config {
	return LeastRequestConfig{ChoiceCount: int(v[argChoiceCount].I), FullScan: v[argFullScan].B,
		ActiveRequestBias: v[argActiveRequestBias].F}
}

// maxChoiceCount bounds choice_count (a pick costs choice_count reads).
const maxChoiceCount = 1 << 20

// maxActiveRequestBias bounds active_request_bias, which Envoy leaves unbounded: beyond it the dynamic weight
// weight/(active+1)^bias underflows to 0 at the queue lengths an overloaded run reaches (10^8 jobs: 10^64 at bias 8),
// every EDF deadline becomes +Inf, the scheduler's clock jumps there and its picks stop depending on the loads, so
// the policy is load-blind without declaring it (a breaker test found bias = 2000 on unequal servers doing so).
const maxActiveRequestBias = 8

// Check implements Config: choice_count, active_request_bias and the weights.
func (c LeastRequestConfig) Check(s Servers) error {
	// Envoy: "The number of random healthy hosts from which the host with the fewest active requests will be chosen.
	// Defaults to 2" and `[(validate.rules).uint32 = {gte: 2}]`. Deviation: 1 is accepted here, the load-blind
	// baseline (one sample: random dispatch); the upper bound is ours (a pick costs choice_count reads).
	if c.ChoiceCount < 1 || c.ChoiceCount > maxChoiceCount {
		return issue("choice_count", "%d: need 1 ≤ choice_count ≤ %d", c.ChoiceCount, maxChoiceCount)
	}
	// Envoy: "active_request_bias must be greater than or equal to 0.0." Deviation: at most maxActiveRequestBias here.
	if !(c.ActiveRequestBias >= 0 && c.ActiveRequestBias <= maxActiveRequestBias) {
		return issue("active_request_bias", "%v: need 0 ≤ bias ≤ %v", c.ActiveRequestBias, float64(maxActiveRequestBias))
	}
	return s.checkWeights()
}

// unequal returns the static weights when they differ, nil when they are all equal (Envoy's EDF mode is for unequal
// weights only).
func unequal(s Servers) []float64 {
	if s.Weight == nil {
		return nil
	}
	for _, w := range s.Weight[1:] {
		if w != s.Weight[0] {
			return s.Weight
		}
	}
	return nil
}

// New implements Config.
func (c LeastRequestConfig) New(s Servers) Policy {
	p := &leastRequest{fullScan: c.FullScan, bias: c.ActiveRequestBias,
		nChoices: jsqd{d: c.ChoiceCount, replace: true}}
	if w := unequal(s); w != nil {
		p.weight = append([]float64(nil), w...)
		for k, w := range p.weight {
			p.edf.add(w, int32(k))
		}
	}
	return p
}

// Traits implements Config. Load-aware, except where the picks ignore the loads: one sample with equal weights
// (random), and with unequal weights a bias of 0, where Envoy "doesn't consider the number of active requests at the
// time it picks a host and behaves like the Round Robin Load Balancer" (a weighted split). No theory family is
// declared: N_CHOICES is JSQ(choice_count) with replacement and FULL_SCAN has JSQ's law, but the theory columns
// beside least_request rows have always been null and declaring them would change the datasets. Eligibility is not
// honored.
func (c LeastRequestConfig) Traits(s Servers) Traits {
	var t Traits
	switch {
	case unequal(s) != nil:
		t.Reads = bits.Len(uint(s.N)) // the EDF heap: O(log n)
		if c.ActiveRequestBias == 0 {
			t.Split = SplitWeighted
		}
	case c.FullScan:
		t.Reads = 1 // JSQ's law from the sorted levels
	default:
		t.Reads = c.ChoiceCount
		if c.ChoiceCount == 1 {
			t.Split = SplitEqual
		}
	}
	return t
}

// Pick implements Policy (the view's eligibility is ignored).
func (p *leastRequest) Pick(v View, _ Request, r *sim.Rand) int {
	l := v.Loads
	if p.weight != nil {
		return p.edf.pickAndAdd(func(k int32) float64 {
			w, active := p.weight[k], float64(l.Len(int(k)))+1
			switch p.bias {
			case 0:
				return w
			case 1:
				return w / active
			}
			return w / math.Pow(active, p.bias)
		})
	}
	if p.fullScan {
		return PickShortest(l, r) // FULL_SCAN's law is JSQ's: a least-loaded host, ties uniform
	}
	return p.nChoices.pick(l, r) // N_CHOICES is JSQ(d) with replacement, d = choice_count
}

// edf is Envoy's EdfScheduler (source/common/upstream/edf_scheduler.h): a min-heap of (deadline, insertion order),
// here sim.Events with the host as payload (its ties are Envoy's: earliest inserted first), and a clock that jumps
// to each picked deadline.
type edf struct {
	heap  sim.Events[int32]
	clock float64
}

// add schedules host at clock + 1/weight.
func (e *edf) add(weight float64, host int32) { e.heap.Push(e.clock+1/weight, host) }

// pickAndAdd removes the earliest entry, advances the clock to its deadline, re-adds its host with the weight
// weightOf returns now, and returns the host.
func (e *edf) pickAndAdd(weightOf func(host int32) float64) int {
	deadline, host := e.heap.Pop()
	e.clock = deadline
	e.add(weightOf(host), host)
	return int(host)
}
