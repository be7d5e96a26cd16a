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

// The generator is xoshiro256**: from the state (1, 2, 3, 4) it gives the reference implementation's first outputs
// (prng.di.unimi.it/xoshiro256starstar.c), and NewRand(seed, 0) is seeded as the C reference's rng_seed(seed)
// (shared/anchors/supermarket.c: four SplitMix64 outputs from seed), values computed with that C code for seed 42.
func TestRandIsXoshiro256StarStar(t *testing.T) {
	r := &Rand{s0: 1, s1: 2, s2: 3, s3: 4}
	for i, want := range []uint64{11520, 0, 1509978240, 1215971899390074240} {
		if got := r.Uint64(); got != want {
			t.Errorf("state (1,2,3,4): value %d = %d, want %d", i, got, want)
		}
	}
	r = NewRand(42, 0)
	for i, want := range []uint64{0x15780b2e0c2ec716, 0x6104d9866d113a7e, 0xae17533239e499a1} {
		if got := r.Uint64(); got != want {
			t.Errorf("NewRand(42, 0): value %d = %#016x, want %#016x", i, got, want)
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

// IntN2's two values are each uniform and independent of each other: a chi-square test on the joint table of up to
// 10×10 cells, with equal and unequal bounds (the bounds near 2^32 reject a half about half the time).
func TestIntN2Uniform(t *testing.T) {
	r := NewRand(9, 10)
	for _, c := range [][2]int{{1, 1}, {2, 2}, {10, 10}, {1_000_000, 1_000_000}, {1<<32 - 1, 1<<32 - 1},
		{10, 9}, {2, 1}, {1000, 999}, {1<<31 + 1, 7}, {5, 1<<31 + 1}} {
		n, m := c[0], c[1]
		const draws = 300_000
		const bins = 10
		kn, km := min(n, bins), min(m, bins)
		var joint [bins][bins]int
		for range draws {
			a, b := r.IntN2(n, m)
			if a < 0 || a >= n || b < 0 || b >= m {
				t.Fatalf("IntN2(%d, %d) = %d, %d", n, m, a, b)
			}
			joint[a*kn/n][b*km/m]++
		}
		if kn*km < 2 {
			continue
		}
		chi := 0.0
		for i := range kn {
			for j := range km {
				// expected count of cell (i, j): the share of [0, n) and of [0, m) that maps to it
				e := float64(draws) * cellShare(i, kn, n) * cellShare(j, km, m)
				chi += (float64(joint[i][j]) - e) * (float64(joint[i][j]) - e) / e
			}
		}
		if crit := (distuv.ChiSquared{K: float64(kn*km - 1)}).Quantile(1 - alphaRand); chi > crit {
			t.Errorf("IntN2(%d, %d): joint chi-square %.1f > %.1f", n, m, chi, crit)
		}
	}
}

// cellShare is the fraction of the values v in [0, n) with v·k/n = i (integer division).
func cellShare(i, k, n int) float64 {
	first := func(i int) int { return (i*n + k - 1) / k } // the smallest v with v·k/n ≥ i
	return float64(first(i+1)-first(i)) / float64(n)
}

// The by-value forms draw the same stream as the *Rand methods, slow paths included: n near 2^63 rejects about one
// draw in four in IntN, and n, m near 2^32 about as often in IntN2.
func TestStepMatchesPointerForms(t *testing.T) {
	for _, n := range []int{1, 7, 1000, 1 << 40, 3 << 61} {
		p, v := NewRand(5, 9), *NewRand(5, 9)
		for i := range 20000 {
			var k int
			if v, k = v.StepIntN(n); k != p.IntN(n) {
				t.Fatalf("n = %d, draw %d: StepIntN and IntN differ", n, i)
			}
			var u uint64
			if v, u = v.Step(); u != p.Uint64() {
				t.Fatalf("n = %d, draw %d: Step and Uint64 differ", n, i)
			}
		}
		if v != *p {
			t.Fatalf("n = %d: the states differ after the draws", n)
		}
	}
	for _, nm := range [][2]int{{1, 1}, {1000, 10}, {3 << 30, 1 << 31}, {1<<32 - 1, 1<<32 - 3}} {
		p, v := NewRand(5, 9), *NewRand(5, 9)
		for i := range 20000 {
			var a, b int
			v, a, b = v.StepIntN2(nm[0], nm[1])
			if pa, pb := p.IntN2(nm[0], nm[1]); a != pa || b != pb {
				t.Fatalf("n, m = %v, draw %d: StepIntN2 and IntN2 differ", nm, i)
			}
		}
		if v != *p {
			t.Fatalf("n, m = %v: the states differ after the draws", nm)
		}
	}
}
