package wrrseq

import (
	"fmt"

	"lbsweep/model"
	"lbsweep/model/policy"
)

// Bounds implements model.Model: per server its weight (as a float and an integer), its counts, its levels entry
// (about 60 B), the policy's state (policy.StateBytes), and for wrr_expanded the expanded list of W entries. The work
// grows with cycles (picks = cycles·W).
func (Model) Bounds(p model.Point) model.Bounds {
	s, err := setupOf(p)
	if err != nil {
		return model.Bounds{MemoryBy: "weights", WorkBy: "cycles"}
	}
	cfg, _ := policyOf(p, s)
	n := float64(s.n)
	// Per server: its state (about 60 B), and its weight as the spec's decoded value, in the point's key text and
	// in the row's weights list (about 200 B: a spec of 10^5 weights weighs about 28 MB in a sweep, measured).
	b := (60+200)*n + policy.StateBytes(cfg, s.n)
	if _, ok := cfg.(policy.WRRExpandedConfig); ok {
		b += 8 * float64(s.total)
	}
	return model.Bounds{Bytes: b, MemoryBy: "weights", MemoryWhat: fmt.Sprintf("%d servers × about %.0f B", s.n, b/max(n, 1)), WorkBy: "cycles"}
}
