package subsetting

import (
	"fmt"

	"lbsweep/model"
)

// Bounds implements model.Model: the run keeps per backend its connection count, a permutation entry and its load
// (16 B); the subsets are drawn one client at a time, never stored. The theory, computed once per point, holds the
// exact law of a backend's connections over 0..clients and its extremes' distributions (four arrays of clients + 1
// float64): at clients = 2^24 that is half a gigabyte.
func (Model) Bounds(p model.Point) model.Bounds {
	c, b := float64(p[pClients].I), float64(p[pBackends].I)
	run, theory := 16*b, 32*(c+1)
	if theory > run {
		return model.Bounds{Bytes: run + theory, MemoryBy: "clients", MemoryWhat: fmt.Sprintf("the theory's four laws over 0..%d connections × 8 B", p[pClients].I), WorkBy: "clients"}
	}
	return model.Bounds{Bytes: run + theory, MemoryBy: "backends", MemoryWhat: fmt.Sprintf("%d backends × 16 B", p[pBackends].I), WorkBy: "clients"}
}
