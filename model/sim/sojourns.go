package sim

import (
	"math"

	"github.com/DataDog/sketches-go/ddsketch"
	"github.com/DataDog/sketches-go/ddsketch/mapping"
	"github.com/DataDog/sketches-go/ddsketch/store"
)

// RelativeAccuracy is the sojourn percentiles' guaranteed relative error: a reported quantile x̃ of a true quantile x
// satisfies |x̃ − x| ≤ 0.001·x (DDSketch, Masson, Rim & Lee, VLDB 2019; DataDog/sketches-go). Memory is bounded by the
// logarithmic range of the values, not their number. The index mapping is the library's linearly interpolated one:
// the same guarantee as the logarithmic mapping from the float's exponent and significand bits, with no math.Log
// and no polynomial per value (the README's performance section says what each cost), for about 1.44 times the logarithmic mapping's bins (about 10,000 eight-byte bins for values from 10^-3 to 10^3).
const RelativeAccuracy = 0.001

// Sojourns records sojourn times (mean exact, percentiles from a DDSketch with RelativeAccuracy).
type Sojourns struct {
	n   int64
	sum float64
	sk  *ddsketch.DDSketch
	// The sketch's own mapping and positive-value store, held as concrete types. A value in the indexable range is
	// counted in counts[index − off] by the sketch's own mapping; the counts move into the sketch's store (one
	// AddWithCount per index, the same bins and totals as one DDSketch.Add per value, since counts below 2^53 add
	// exactly) before any quantile is read. Zero and out-of-range values take the sketch's own path.
	m        *mapping.LinearlyInterpolatedMapping
	pos      *store.DenseStore
	min, max float64
	counts   []uint64
	off      int
}

// sojournMapping is the library's linearly interpolated mapping for RelativeAccuracy with its index offset raised by
// a whole number of bins, enough that every value from 2^-64 up maps to an index ≥ 0. The bins and the quantiles
// are the default mapping's (a whole-number shift only relabels the bins); what changes is that the mapping's floor
// of a negative index, a branch taken for every value below 1 and so mispredicted for about half the sojourns of a
// run, is never taken.
func sojournMapping() *mapping.LinearlyInterpolatedMapping {
	def, err := mapping.NewLinearlyInterpolatedMapping(RelativeAccuracy)
	if err != nil {
		panic("sim: " + err.Error())
	}
	pb := def.ToProto()
	m, err := mapping.NewLinearlyInterpolatedMappingWithGamma(pb.Gamma, pb.IndexOffset+math.Ceil(64/math.Log2(pb.Gamma)))
	if err != nil {
		panic("sim: " + err.Error())
	}
	return m
}

// NewSojourns returns an empty recorder.
func NewSojourns() *Sojourns {
	m := sojournMapping()
	pos := store.NewDenseStore()
	return &Sojourns{sk: ddsketch.NewDDSketch(m, pos, store.NewDenseStore()), m: m, pos: pos,
		min: m.MinIndexableValue(), max: m.MaxIndexableValue()}
}

// Add records one sojourn time x ≥ 0.
func (s *Sojourns) Add(x float64) {
	s.n++
	s.sum += x
	if x > s.min && x <= s.max {
		i := s.m.Index(x)
		if j := i - s.off; uint(j) < uint(len(s.counts)) {
			s.counts[j]++
			return
		}
		s.widen(i)
		s.counts[i-s.off]++
		return
	}
	if err := s.sk.Add(x); err != nil {
		panic("sim: sojourn " + err.Error())
	}
}

// widen grows counts to cover index i (at least doubling, so that growth is amortised O(1)).
func (s *Sojourns) widen(i int) {
	if len(s.counts) == 0 {
		s.counts, s.off = make([]uint64, 1024), i-512
		return
	}
	lo, hi := min(i, s.off), max(i+1, s.off+len(s.counts))
	grow := max(hi-lo, 2*len(s.counts))
	if i < s.off {
		lo = hi - grow
	}
	c := make([]uint64, grow)
	copy(c[s.off-lo:], s.counts)
	s.counts, s.off = c, lo
}

// flush moves the counts into the sketch's store.
func (s *Sojourns) flush() {
	for j, c := range s.counts {
		if c > 0 {
			s.pos.AddWithCount(s.off+j, float64(c))
			s.counts[j] = 0
		}
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
	s.flush()
	v, err := s.sk.GetValueAtQuantile(p)
	if err != nil {
		return math.NaN()
	}
	return v
}
