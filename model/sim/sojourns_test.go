package sim

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/DataDog/sketches-go/ddsketch"
	"github.com/DataDog/sketches-go/ddsketch/mapping"
	"github.com/DataDog/sketches-go/ddsketch/store"
)

// quantileSlack covers the floating-point rounding of the sketch's index mapping and its inverse (a handful of
// multiplications, each within an ulp, 1.1e-16), on top of the RelativeAccuracy it guarantees: 1e-12 relative is
// thousands of times that rounding and a billion times smaller than RelativeAccuracy.
const quantileSlack = 1e-12

// sketchRank is the 0-based rank of the order statistic Sojourns.Quantile estimates among n sorted values: DDSketch
// (sketches-go v1.4.8, DDSketch.GetValueAtQuantile) takes rank ⌊p·(n−1)⌋, the "lower" quantile.
func sketchRank(p float64, n int) int { return int(math.Floor(p * float64(n-1))) }

// nearestRank is the 0-based rank of the nearest-rank p-quantile, ⌈p·n⌉ − 1 (p > 0), rank 0 for p = 0.
func nearestRank(p float64, n int) int { return max(int(math.Ceil(p*float64(n)))-1, 0) }

// checkQuantiles compares s.Quantile(p) with the exact order statistic of sorted at the sketch's rank, which for
// these (p, n) is also the nearest-rank quantile (checked: the two conventions differ only when p·n is not an
// integer and its fractional part is below p).
func checkQuantiles(t *testing.T, name string, s *Sojourns, sorted []float64, ps []float64) {
	t.Helper()
	n := len(sorted)
	for _, p := range ps {
		rank := sketchRank(p, n)
		if nr := nearestRank(p, n); nr != rank {
			t.Fatalf("%s: p = %v, n = %d: nearest rank %d ≠ sketch rank %d; pick another p", name, p, n, nr, rank)
		}
		want := sorted[rank]
		got := s.Quantile(p)
		if tol := (RelativeAccuracy + quantileSlack) * want; math.Abs(got-want) > tol {
			t.Errorf("%s: Quantile(%v) = %.10g, want %.10g ± %.3g (RelativeAccuracy)", name, p, got, want, tol)
		}
	}
}

func TestSojournsExp(t *testing.T) {
	const n = 100_000
	r := rand.New(rand.NewPCG(3, 4))
	s := NewSojourns()
	xs := make([]float64, n)
	sum := 0.0
	for i := range xs {
		xs[i] = r.ExpFloat64()
		sum += xs[i]
		s.Add(xs[i])
	}
	if s.Count() != n {
		t.Fatalf("Count() = %d, want %d", s.Count(), n)
	}
	// Exact: the same additions in the same order.
	if got, want := s.Mean(), sum/n; got != want {
		t.Errorf("Mean() = %.17g, want %.17g", got, want)
	}
	slices.Sort(xs)
	checkQuantiles(t, "Exp(1)", s, xs, []float64{0, 0.001, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 0.999, 0.9999, 1})
}

// TestSojournsLadder: the values 1/64, 2/64, …, 1000/64 (dyadic, so the mean is exact) added in a shuffled order, and
// spanning 3 decades so the sketch's bins vary in width.
func TestSojournsLadder(t *testing.T) {
	const n = 1000
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = float64(i+1) / 64
	}
	shuffled := slices.Clone(xs)
	rand.New(rand.NewPCG(5, 6)).Shuffle(n, func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	s := NewSojourns()
	for _, x := range shuffled {
		s.Add(x)
	}
	// Σ (i/64), i = 1..1000 = 500500/64, exactly representable; the mean 500.5/64 too.
	if got, want := s.Mean(), 500.5/64; got != want {
		t.Errorf("Mean() = %v, want %v", got, want)
	}
	checkQuantiles(t, "ladder", s, xs, []float64{0, 0.001, 0.01, 0.05, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 0.999, 1})
}

// TestSojournsQuantileConvention pins which order statistic Quantile estimates when the nearest-rank and "lower"
// conventions disagree: with the 10 values 1..10 and p = 0.95, nearest rank is the 10th value (⌈9.5⌉ = 10) but the
// sketch returns the 9th (⌊0.95·9⌋ = 8, 0-based).
func TestSojournsQuantileConvention(t *testing.T) {
	s := NewSojourns()
	for i := 1; i <= 10; i++ {
		s.Add(float64(i))
	}
	if got := s.Quantile(0.95); math.Abs(got-9) > (RelativeAccuracy+quantileSlack)*9 {
		t.Errorf("Quantile(0.95) of 1..10 = %v, want 9 ± 0.1%% (rank ⌊p·(n−1)⌋)", got)
	}
}

func TestSojournsEmpty(t *testing.T) {
	s := NewSojourns()
	if s.Count() != 0 {
		t.Errorf("Count() = %d, want 0", s.Count())
	}
	if m := s.Mean(); !math.IsNaN(m) {
		t.Errorf("empty Mean() = %v, want NaN", m)
	}
	for _, p := range []float64{0, 0.5, 0.99, 1} {
		if q := s.Quantile(p); !math.IsNaN(q) {
			t.Errorf("empty Quantile(%v) = %v, want NaN", p, q)
		}
	}
}

// TestSojournsZero: zero sojourns (a job that arrives and leaves at the same simulated time) are recorded, counted in
// the mean, and reported as exactly 0 by the quantiles that fall on them.
func TestSojournsZero(t *testing.T) {
	s := NewSojourns()
	for range 3 {
		s.Add(0)
	}
	s.Add(4)
	if s.Count() != 4 || s.Mean() != 1 {
		t.Errorf("Count, Mean = %d, %v; want 4, 1", s.Count(), s.Mean())
	}
	for _, p := range []float64{0, 0.5, 0.66} { // ranks ⌊p·3⌋ = 0, 1, 1: zeros
		if q := s.Quantile(p); q != 0 {
			t.Errorf("Quantile(%v) = %v, want 0", p, q)
		}
	}
	if q := s.Quantile(1); math.Abs(q-4) > (RelativeAccuracy+quantileSlack)*4 {
		t.Errorf("Quantile(1) = %v, want 4 ± 0.1%%", q)
	}
}

// The counted fast path gives exactly the quantiles of a plain DDSketch fed one value at a time with the same mapping,
// for values spread over sixteen decades (so the counts widen both ways, from either end) and with quantiles read
// between additions (so counts are moved into the sketch more than once).
func TestSojournsEqualsDDSketch(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for _, first := range []float64{1e-6, 1, 1e9} {
		s := NewSojourns()
		ref := ddsketch.NewDDSketch(sojournMapping(), store.NewDenseStore(), store.NewDenseStore())
		add := func(x float64) {
			s.Add(x)
			if err := ref.Add(x); err != nil {
				t.Fatal(err)
			}
		}
		add(first)
		for i := range 50_000 {
			add(math.Pow(10, 16*r.Float64()-7) * r.ExpFloat64())
			if i%9_999 == 0 {
				add(0)
			}
			if i%12_345 == 0 || i == 49_999 {
				for _, p := range []float64{0, 0.01, 0.5, 0.9, 0.99, 0.999, 1} {
					want, err := ref.GetValueAtQuantile(p)
					if err != nil {
						t.Fatal(err)
					}
					if got := s.Quantile(p); got != want {
						t.Fatalf("first %g, after %d values: Quantile(%v) = %v, DDSketch gives %v", first, i, p, got, want)
					}
				}
			}
		}
	}
}

// The shifted mapping's bins are the default mapping's, relabelled: values from 2^-64 to 10^12 land in bins whose
// bounds are the default's (to rounding), at indices ≥ 0 and shifted by one constant.
func TestSojournMappingShift(t *testing.T) {
	def, err := mapping.NewLinearlyInterpolatedMapping(RelativeAccuracy)
	if err != nil {
		t.Fatal(err)
	}
	m := sojournMapping()
	r := NewRand(11, 12)
	shift := m.Index(1) - def.Index(1)
	for range 100_000 {
		x := math.Exp2(-64 + 104*r.Float64())
		i, j := m.Index(x), def.Index(x)
		if i < 0 || i-j != shift {
			t.Fatalf("x = %g: index %d, default %d (shift %d)", x, i, j, shift)
		}
		// The bounds come from 2^((index − offset)/multiplier) with index and offset below 10^5 (rounded within
		// 1.5·10^-11) and a multiplier of about 500: the exponents agree within 10^-13, the bounds within 10^-13
		// relative; 10^-12 leaves a factor of 10.
		if lo, dlo := m.LowerBound(i), def.LowerBound(j); math.Abs(lo-dlo) > 1e-12*dlo {
			t.Fatalf("x = %g: lower bound %g, default %g", x, lo, dlo)
		}
	}
}
