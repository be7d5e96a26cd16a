package sim

import (
	"math"

	"github.com/DataDog/sketches-go/ddsketch"
	"github.com/DataDog/sketches-go/ddsketch/mapping"
	"github.com/DataDog/sketches-go/ddsketch/store"
)

// RelativeAccuracy is the sojourn percentiles' guaranteed relative error: a reported quantile x̃ of a true quantile x
// satisfies |x̃ − x| ≤ 0.001·x (DDSketch, Masson, Rim & Lee, VLDB 2019; DataDog/sketches-go). Memory is bounded by the
// logarithmic range of the values, not their number. The index mapping is the library's cubically interpolated one:
// the same guarantee as the logarithmic mapping without a math.Log per value (the logarithm was 40% of a run).
const RelativeAccuracy = 0.001

// Sojourns records sojourn times (mean exact, percentiles from a DDSketch with RelativeAccuracy).
type Sojourns struct {
	n   int64
	sum float64
	sk  *ddsketch.DDSketch
	// The sketch's own mapping and positive-value store, held as concrete types: a value in the indexable range goes
	// straight to its bin (the same index and count DDSketch.Add would record, without its four interface calls per
	// value); zero and out-of-range values take the sketch's own path.
	m        *mapping.CubicallyInterpolatedMapping
	pos      *store.DenseStore
	min, max float64
}

// NewSojourns returns an empty recorder.
func NewSojourns() *Sojourns {
	m, err := mapping.NewCubicallyInterpolatedMapping(RelativeAccuracy)
	if err != nil {
		panic("sim: " + err.Error())
	}
	pos := store.NewDenseStore()
	return &Sojourns{sk: ddsketch.NewDDSketch(m, pos, store.NewDenseStore()), m: m, pos: pos,
		min: m.MinIndexableValue(), max: m.MaxIndexableValue()}
}

// Add records one sojourn time x ≥ 0.
func (s *Sojourns) Add(x float64) {
	s.n++
	s.sum += x
	if x > s.min && x <= s.max {
		s.pos.Add(s.m.Index(x))
		return
	}
	if err := s.sk.Add(x); err != nil {
		panic("sim: sojourn " + err.Error())
	}
}

// Count is the number of recorded sojourns.
func (s *Sojourns) Count() int64 { return s.n }

// Mean is the exact mean; NaN when empty.
func (s *Sojourns) Mean() float64 {
	if s.n == 0 {
		return math.NaN()
	}
	return s.sum / float64(s.n)
}

// Quantile is the p-quantile (0 ≤ p ≤ 1) within RelativeAccuracy; NaN when empty. The rank convention is DDSketch's:
// the value at 0-based sorted position ⌊p·(count−1)⌋, which differs from the nearest-rank ⌈p·count⌉−1 by at most one
// position.
func (s *Sojourns) Quantile(p float64) float64 {
	if s.n == 0 {
		return math.NaN()
	}
	v, err := s.sk.GetValueAtQuantile(p)
	if err != nil {
		return math.NaN()
	}
	return v
}
