package subsetting

import (
	"fmt"
	"math"

	"lbsweep/model"
)

// Bounds implements model.Model: the run keeps per backend its connection count, a permutation entry and its load
// (16 B); the subsets are drawn one client at a time, never stored. The theory, computed once per point, holds the
// exact law of a backend's connections and its extremes' distributions (four float64 arrays over the counts the
// law reaches): at clients = 2^24 with subsets of every backend that is half a gigabyte.
func (Model) Bounds(p model.Point) model.Bounds {
	c, b := float64(p[pClients].I), float64(p[pBackends].I)
	// The laws run over 0..x_max, where the binomial's terms underflow to 0 beyond about 39 standard deviations
	// above its mean (e^-745): the whole of 0..clients only when the subsets hold every backend.
	q := min(float64(configOf(p).k)/max(b, 1), 1)
	laws := min(c+1, c*q+39*math.Sqrt(c*q*(1-q))+64)
	run, theory := 16*b, 32*laws
	if theory > run {
		return model.Bounds{Bytes: run + theory, MemoryBy: "clients", MemoryWhat: fmt.Sprintf("the theory's four laws over 0..%d connections × 8 B", p[pClients].I), WorkBy: "clients"}
	}
	return model.Bounds{Bytes: run + theory, MemoryBy: "backends", MemoryWhat: fmt.Sprintf("%d backends × 16 B", p[pBackends].I), WorkBy: "clients"}
}
