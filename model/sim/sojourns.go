package sim

import (
	"github.com/DataDog/sketches-go/ddsketch"
)

// RelativeAccuracy is the sojourn percentiles' guaranteed relative error: a reported quantile x̃ of a true quantile x
// satisfies |x̃ − x| ≤ 0.001·x (DDSketch, Masson, Rim & Lee, VLDB 2019; DataDog/sketches-go). Memory is bounded by the
// logarithmic range of the values, not their number.
const RelativeAccuracy = 0.001

// Sojourns records sojourn times (mean exact, percentiles from a DDSketch with RelativeAccuracy).
type Sojourns struct {
	n   int64
	sum float64
	sk  *ddsketch.DDSketch
}

// NewSojourns returns an empty recorder.
func NewSojourns() *Sojourns {
	sk, err := ddsketch.LogUnboundedDenseDDSketch(RelativeAccuracy)
	if err != nil {
		panic("sim: " + err.Error())
	}
	return &Sojourns{sk: sk}
}

// Add records one sojourn time x ≥ 0.
func (s *Sojourns) Add(x float64) {
	s.n++
	s.sum += x
	if err := s.sk.Add(x); err != nil {
		panic("sim: sojourn " + err.Error())
	}
}

// Count is the number of recorded sojourns.
func (s *Sojourns) Count() int64 { return s.n }

// Mean is the exact mean; NaN when empty.
func (s *Sojourns) Mean() float64 {
	if s.n == 0 {
		return nan()
	}
	return s.sum / float64(s.n)
}

// Quantile is the p-quantile (0 ≤ p ≤ 1) within RelativeAccuracy; NaN when empty.
func (s *Sojourns) Quantile(p float64) float64 {
	if s.n == 0 {
		return nan()
	}
	v, err := s.sk.GetValueAtQuantile(p)
	if err != nil {
		return nan()
	}
	return v
}
