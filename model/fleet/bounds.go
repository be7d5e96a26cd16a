package fleet

import (
	"fmt"

	"lbsweep/model"
	"lbsweep/model/policy"
)

// Bytes of the engine's state, for Bounds.
const (
	// serverBytes: a server (its class, its slots' header), its levels entry, the counts sent to it and its
	// outstanding requests, with the slices' growth by appending.
	serverBytes = 160
	// requestBytes: one request waiting behind busy slots or in flight in the pending events.
	requestBytes = 48
)

// Bounds implements model.Model: the servers' state and slots (8 B a slot), the policy's state, and, when the
// arrival rate exceeds the fleet's service rate (seed 000 allows it), the backlog of requests that builds up over
// the horizon. The same on both clocks: the tick clock's one extra buffer holds the responses retired at one tick,
// which are among the pending requests counted here; its work is by horizon too (Cost counts every tick).
func (Model) Bounds(p model.Point) model.Bounds {
	cs := classesOf(p)
	n := float64(p[pN].I)
	b := n * serverBytes
	capacity := 0.0 // requests per tick the fleet answers (a broken server answers after its error latency)
	for _, c := range cs {
		b += float64(c.count*c.slots) * 8
		capacity += float64(c.count*c.slots) / c.latency()
	}
	b += policy.StateBytes(configOf(p), int(p[pN].I))
	by, what := "servers", fmt.Sprintf("%d servers × about %.0f B", p[pN].I, b/max(n, 1))
	if over := p[pLambda].F - capacity; over > 0 {
		bb := requestBytes * over * p[pHorizon].F
		if bb > b {
			by, what = "lambda", fmt.Sprintf("a backlog of %.3g requests (λ above the fleet's capacity %.3g per tick)", over*p[pHorizon].F, capacity)
		}
		b += bb
	}
	return model.Bounds{Bytes: b, MemoryBy: by, MemoryWhat: what, WorkBy: "horizon"}
}
