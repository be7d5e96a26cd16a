package sim

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// alphaRand is the significance level of the sampler goodness-of-fit tests.
const alphaRand = 0.001

// Exp against the Exp(1) law: a chi-square test over 50 equiprobable bins of 10^6 draws, plus the first two moments.
func TestExpDistribution(t *testing.T) {
	r := NewRand(3, 4)
	const draws, bins = 1_000_000, 50
	var counts [bins]int
	sum, sum2 := 0.0, 0.0
	for range draws {
		x := r.Exp()
		if x < 0 || math.IsInf(x, 0) || math.IsNaN(x) {
			t.Fatalf("Exp() = %v", x)
		}
		sum += x
		sum2 += x * x
		k := int((1 - math.Exp(-x)) * bins) // CDF → equiprobable bin
		counts[min(k, bins-1)]++
	}
	chi := 0.0
	for _, c := range counts {
		e := float64(draws) / bins
		chi += (float64(c) - e) * (float64(c) - e) / e
	}
	if crit := (distuv.ChiSquared{K: bins - 1}).Quantile(1 - alphaRand); chi > crit {
		t.Errorf("chi-square %.1f > %.1f (alpha %v)", chi, crit, alphaRand)
	}
	// Mean 1 with standard error 1/√draws; z for two-sided alphaRand.
	z := distuv.UnitNormal.Quantile(1 - alphaRand/2)
	if m := sum / draws; math.Abs(m-1) > z/math.Sqrt(draws) {
		t.Errorf("mean %v", m)
	}
	// E[X²] = 2, Var(X²) = E[X⁴] − 4 = 20.
	if m2 := sum2 / draws; math.Abs(m2-2) > z*math.Sqrt(20.0/draws) {
		t.Errorf("second moment %v", m2)
	}
}

// The tail beyond the base layer's edge R is sampled exactly: P(X > R) = e^(−R).
func TestExpTail(t *testing.T) {
	r := NewRand(5, 6)
	const draws = 20_000_000
	p := math.Exp(-zigR)
	n := 0
	for range draws {
		if r.Exp() > zigR {
			n++
		}
	}
	mean, sd := draws*p, math.Sqrt(draws*p*(1-p))
	z := distuv.UnitNormal.Quantile(1 - alphaRand/2)
	if math.Abs(float64(n)-mean) > z*sd+1 {
		t.Errorf("%d draws beyond R, expected %.1f ± %.1f", n, mean, z*sd)
	}
}

func TestIntNUniform(t *testing.T) {
	r := NewRand(7, 8)
	for _, n := range []int{1, 2, 3, 7, 1000, 1 << 40} {
		const draws = 200_000
		bins := min(n, 50)
		counts := make([]int, bins)
		for range draws {
			k := r.IntN(n)
			if k < 0 || k >= n {
				t.Fatalf("IntN(%d) = %d", n, k)
			}
			counts[k*bins/n]++ // equal-width groups; exact for n ≤ 50, negligible bias for 1000 and 2^40
		}
		if bins < 2 {
			continue
		}
		chi := 0.0
		for _, c := range counts {
			e := float64(draws) / float64(bins)
			chi += (float64(c) - e) * (float64(c) - e) / e
		}
		if crit := (distuv.ChiSquared{K: float64(bins - 1)}).Quantile(1 - alphaRand); chi > crit {
			t.Errorf("IntN(%d): chi-square %.1f > %.1f", n, chi, crit)
		}
	}
}

// The stream is math/rand/v2's PCG: the same bits as rand.NewPCG with the same seeds.
func TestRandIsPCG(t *testing.T) {
	a, b := NewRand(11, 12), rand.NewPCG(11, 12)
	for range 100 {
		if a.Uint64() != b.Uint64() {
			t.Fatal("sim.Rand diverges from rand.PCG")
		}
	}
}

func BenchmarkExp(b *testing.B) {
	r := NewRand(1, 2)
	s := 0.0
	for range b.N {
		s += r.Exp()
	}
	_ = s
}

func BenchmarkExpFloat64Stdlib(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	s := 0.0
	for range b.N {
		s += r.ExpFloat64()
	}
	_ = s
}

func BenchmarkIntN(b *testing.B) {
	r := NewRand(1, 2)
	s := 0
	for range b.N {
		s += r.IntN(1000)
	}
	_ = s
}

func BenchmarkIntNStdlib(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	s := 0
	for range b.N {
		s += r.IntN(1000)
	}
	_ = s
}

// IntN2's two values are each uniform and independent of each other: a chi-square test on the joint 10×10 table.
func TestIntN2Uniform(t *testing.T) {
	r := NewRand(9, 10)
	for _, n := range []int{1, 2, 10, 1_000_000, 1<<32 - 1} {
		const draws = 300_000
		const bins = 10
		var joint [bins][bins]int
		for range draws {
			a, b := r.IntN2(n)
			if a < 0 || a >= n || b < 0 || b >= n {
				t.Fatalf("IntN2(%d) = %d, %d", n, a, b)
			}
			joint[a*min(n, bins)/n][b*min(n, bins)/n]++
		}
		k := min(n, bins)
		if k < 2 {
			continue
		}
		chi := 0.0
		e := float64(draws) / float64(k*k)
		for i := range k {
			for j := range k {
				chi += (float64(joint[i][j]) - e) * (float64(joint[i][j]) - e) / e
			}
		}
		if crit := (distuv.ChiSquared{K: float64(k*k - 1)}).Quantile(1 - alphaRand); chi > crit {
			t.Errorf("IntN2(%d): joint chi-square %.1f > %.1f", n, chi, crit)
		}
	}
}
