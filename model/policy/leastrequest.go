package policy

import (
	"math"

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

func newLeastRequest(a Args, s Servers) Policy {
	p := &leastRequest{fullScan: a.FullScan, bias: a.ActiveRequestBias,
		nChoices: jsqd{d: a.ChoiceCount, replace: true}}
	if s.Weight != nil {
		for _, w := range s.Weight[1:] {
			if w != s.Weight[0] {
				p.weight = append([]float64(nil), s.Weight...)
				break
			}
		}
	}
	if p.weight != nil {
		for k, w := range p.weight {
			p.edf.add(w, int32(k))
		}
	}
	return p
}

func (p *leastRequest) Pick(l *sim.Levels, r *sim.Rand, now float64) int {
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
		return jsq{}.Pick(l, r, now) // FULL_SCAN's law is JSQ's: a least-loaded host, ties uniform
	}
	return p.nChoices.Pick(l, r, now) // N_CHOICES is JSQ(d) with replacement, d = choice_count
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
