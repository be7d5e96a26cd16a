package placement

import (
	"fmt"
	"math"

	"lbsweep/model"
)

// Bounds implements model.Model: the two schemes built (before and after the change) dominate; the keys are hashed
// and placed one at a time, never stored. A ring entry costs about 36 B while the ring is built and indexed (its
// 16-B build record, an 8-B position, a 4-B owner and up to 8 B of the position index); a Maglev slot 4 B in each of
// the two tables; every scheme keeps a few 8-B values per server. A weighted ring has up to max/min weight times the
// entries of an equal one.
func (Model) Bounds(p model.Point) model.Bounds {
	n := float64(p[pN].I) + 1
	b := 2 * 64 * n // per-server arrays: counts, shares, weights, names (both schemes)
	by, what := "n", fmt.Sprintf("%d servers", p[pN].I)
	switch Scheme(p[pScheme].I) {
	case Ring, Bounded:
		entries := n
		if p[pMinRingSize].Valid {
			entries = max(entries, float64(p[pMinRingSize].I))
		} else if p[pPerHost].Valid {
			entries *= float64(p[pPerHost].I)
		}
		if p[pWeights].Valid && len(p[pWeights].L) > 0 {
			lo, hi := math.Inf(1), 0.0
			for _, w := range p[pWeights].L {
				lo, hi = min(lo, w), max(hi, w)
			}
			if lo > 0 {
				entries *= hi / lo
			}
		}
		entries = min(entries, 8<<20) // Envoy's maximum_ring_size
		b += 2 * 36 * entries
		by, what = "min_ring_size", fmt.Sprintf("two rings of about %.3g entries × 36 B", entries)
		if p[pPerHost].Valid {
			by = "per_host"
		}
	case Maglev:
		m := float64(p[pTableSize].I)
		b += 2*4*m + 32*n
		by, what = "table_size", fmt.Sprintf("two Maglev tables of %d slots × 4 B", p[pTableSize].I)
	}
	return model.Bounds{Bytes: b, MemoryBy: by, MemoryWhat: what, WorkBy: "m"}
}
