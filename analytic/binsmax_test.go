package analytic

import (
	"math"
	"math/bits"
	"strconv"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// bruteMaxCDF returns P(max load <= k), k = 0..m, by enumerating all n^m
// allocations of m balls to n bins (each equally likely).
func bruteMaxCDF(m, n int) []float64 {
	count := make([]float64, m+1) // count[k]: allocations whose max is k
	loads := make([]int, n)
	var rec func(ball int)
	rec = func(ball int) {
		if ball == m {
			top := 0
			for _, l := range loads {
				top = max(top, l)
			}
			count[top]++
			return
		}
		for b := range loads {
			loads[b]++
			rec(ball + 1)
			loads[b]--
		}
	}
	rec(0)
	total := math.Pow(float64(n), float64(m))
	cdf := make([]float64, m+1)
	acc := 0.0
	for k, c := range count {
		acc += c
		cdf[k] = acc / total
	}
	return cdf
}

// dpMaxCDF returns P(max load <= k) by the recursion on bins, an algorithm
// independent of MultinomialMaxCDF's: given r balls left for the last b bins,
// the next bin's load is Binomial(r, 1/b); w[r] is the probability that the
// bins so far all hold <= k and leave r balls. Its terms come from log
// factorials of size up to m ln m, so its relative error is about n m ln m
// 2^-52 (dpRelErr).
func dpMaxCDF(m, n, k int) float64 {
	lf := make([]float64, m+1)
	for i := 1; i <= m; i++ {
		lf[i] = lf[i-1] + math.Log(float64(i))
	}
	lg := func(x int) float64 { return lf[x] }
	w := make([]float64, m+1)
	w[m] = 1
	for b := n; b > 1; b-- {
		next := make([]float64, m+1)
		lp, lq := math.Log(1/float64(b)), math.Log1p(-1/float64(b))
		for r, v := range w {
			if v == 0 {
				continue
			}
			for c := 0; c <= min(k, r); c++ {
				next[r-c] += v * math.Exp(lg(r)-lg(c)-lg(r-c)+float64(c)*lp+float64(r-c)*lq)
			}
		}
		w = next
	}
	p := 0.0 // the last bin takes the r balls left
	for r := 0; r <= min(k, m); r++ {
		p += w[r]
	}
	return p
}

// dpRelErr is dpMaxCDF's rounding error bound: n bins, each term's log of
// size up to m ln m + m rounded at 2^-52, ten ulps of slack for the sums.
func dpRelErr(m, n int) float64 {
	fm := float64(m)
	return 10 * float64(n) * (fm*math.Log(fm) + fm) * 0x1p-52
}

func TestMultinomialMaxCDFBruteForce(t *testing.T) {
	// Every allocation enumerated: 3^6 = 729 (the doc's 90, 510, 690 of
	// 729), 4^5, 2^9, 5^4, 6^5. The tolerance is the certified relative error
	// multiMaxRelErr (rounding is far below it).
	for _, c := range [][2]int{{6, 3}, {5, 4}, {9, 2}, {4, 5}, {5, 6}, {1, 3}, {7, 7}} {
		m, n := c[0], c[1]
		want := bruteMaxCDF(m, n)
		for k := -1; k <= m+1; k++ {
			w := 1.0
			switch {
			case k < 0:
				w = 0
			case k <= m:
				w = want[k]
			}
			within(t, "MultinomialMaxCDF(m, n, k) vs enumeration", MultinomialMaxCDF(m, n, k), w, multiMaxRelErr*w)
		}
	}
	within(t, "MultinomialMaxCDF(6, 3, 3)*729", 729*MultinomialMaxCDF(6, 3, 3), 510, 510*multiMaxRelErr)
}

func TestMultinomialMaxCDFRecursion(t *testing.T) {
	// Against the recursion on bins at sizes too large to enumerate, over
	// the whole support where the law is not negligible.
	for _, c := range [][2]int{{1000, 100}, {300, 300}, {600, 12}, {50, 1000}, {300, 7}} {
		m, n := c[0], c[1]
		tol := multiMaxRelErr + dpRelErr(m, n)
		for k := m / n; k <= m; k++ {
			want := dpMaxCDF(m, n, k)
			within(t, "MultinomialMaxCDF vs recursion on bins", MultinomialMaxCDF(m, n, k), want, tol*want)
			if want > 1-tol {
				break
			}
		}
	}
}

func TestMultinomialMaxCDFLaw(t *testing.T) {
	// A distribution function: 0 below, nondecreasing, reaching 1 (to the
	// certified error) by the computed path well before k = m, and never
	// above the independent-bins bound F(k)^n (negative association).
	for _, c := range [][2]int{{1000, 100}, {10000, 10000}, {100000, 1000}, {100, 100000}} {
		m, n := c[0], c[1]
		prev := 0.0
		reached := false
		for k := 0; k < m; k++ {
			p := MultinomialMaxCDF(m, n, k)
			if math.IsNaN(p) || p < prev*(1-multiMaxRelErr) || p > 1 {
				t.Fatalf("MultinomialMaxCDF(%d, %d, %d) = %g after %g", m, n, k, p, prev)
			}
			tail := BinomialTail(float64(m), float64(n), k+1)[k] // P(Bin >= k+1)
			if bound := math.Exp(float64(n) * math.Log1p(-tail)); p > bound*(1+multiMaxRelErr) {
				t.Errorf("MultinomialMaxCDF(%d, %d, %d) = %g above F(k)^n = %g", m, n, k, p, bound)
			}
			prev = p
			if float64(n)*tail < 1e-15 { // the union bound: P(max > k) <= n P(Bin > k)
				within(t, "MultinomialMaxCDF at the top of the support", p, 1, 1e-15+multiMaxRelErr)
				reached = true
				break
			}
		}
		if !reached {
			t.Errorf("MultinomialMaxCDF(%d, %d, k) never reached the top of its support", m, n)
		}
	}
	// Edge cases: an even allocation, too few bins, no balls, one bin.
	within(t, "MultinomialMaxCDF(6, 3, 2)", MultinomialMaxCDF(6, 3, 2), 90.0/729, 1e-15)
	for _, c := range [][4]int{{6, 3, 1, 0}, {0, 5, 0, 1}, {5, 1, 4, 0}, {5, 1, 5, 1}, {5, 2, -1, 0}} {
		within(t, "MultinomialMaxCDF edge", MultinomialMaxCDF(c[0], c[1], c[2]), float64(c[3]), 0)
	}
	// k·n wraps around to m in 64 bits (3·6148914691236517207 = 5 mod 2^64): not an even allocation. 5 balls in so
	// many bins: P(max ≥ 4) ≤ C(5, 4)·n^-3 < 2^-53, so the nearest double to P(max ≤ 3) is 1.
	within(t, "MultinomialMaxCDF(5, 6148914691236517207, 3)", MultinomialMaxCDF(5, 6148914691236517207, 3), 1, 0)
	for _, c := range [][2]int{{-1, 3}, {3, 0}} {
		if p := MultinomialMaxCDF(c[0], c[1], 2); !math.IsNaN(p) {
			t.Errorf("MultinomialMaxCDF(%d, %d, 2) = %g, want NaN", c[0], c[1], p)
		}
	}
}

func TestMultinomialMaxMedian(t *testing.T) {
	// m = 1000, n = 100: the exact median is 19 (recursion on bins:
	// P(max <= 18) = 0.488, P(max <= 19) = 0.715), where F(k)^n gives 18
	// (F(18)^100 = 0.5001).
	if got := MultinomialMaxMedian(1000, 100); got != 19 {
		t.Errorf("MultinomialMaxMedian(1000, 100) = %d, want 19", got)
	}
	if a := BinomialMaxLoad(1000, 100); a != 18 {
		t.Errorf("BinomialMaxLoad(1000, 100) = %d, want 18", a)
	}
	for _, c := range [][2]int{{1000, 100}, {300, 300}, {600, 12}, {50, 1000}} {
		m, n := c[0], c[1]
		k := MultinomialMaxMedian(m, n)
		if dpMaxCDF(m, n, k) < 0.5 || dpMaxCDF(m, n, k-1) >= 0.5 {
			t.Errorf("MultinomialMaxMedian(%d, %d) = %d: recursion gives P(<= k-1) = %g, P(<= k) = %g",
				m, n, k, dpMaxCDF(m, n, k-1), dpMaxCDF(m, n, k))
		}
	}
	// m = n: 4, 5, 7, 8, 9 for 10^2..10^6 (as the approximation).
	for e, want := range map[int]int{2: 4, 3: 5, 4: 7, 5: 8, 6: 9} {
		n := int(math.Pow(10, float64(e)))
		if got := MultinomialMaxMedian(n, n); got != want {
			t.Errorf("MultinomialMaxMedian(1e%d, 1e%d) = %d, want %d", e, e, got, want)
		}
	}
	if got := MultinomialMaxMedian(-1, 10); got != -1 {
		t.Errorf("MultinomialMaxMedian(-1, 10) = %d, want -1", got)
	}
	if got := MultinomialMaxMedian(0, 10); got != 0 {
		t.Errorf("MultinomialMaxMedian(0, 10) = %d, want 0", got)
	}
}

// BenchmarkMultinomialMaxMedian times the exact median at the model's bound
// m = n = MultinomialMaxExactBalls and at m = n = 10^4.
func BenchmarkMultinomialMaxMedian(b *testing.B) {
	for _, m := range []int{1e4, MultinomialMaxExactBalls} {
		b.Run("m=n="+strconv.Itoa(m), func(b *testing.B) {
			for range b.N {
				MultinomialMaxMedian(m, m)
			}
		})
	}
}

// TestPowCoefAllowance: the trimming allowance drops mass (its bound is above the floor-only one) and the bound holds
// against the floor-only coefficient, for m at the mean of S as MultinomialMaxCDF puts it; an allowance too large for
// the bound to meet 1e-9 falls back to the floor alone.
func TestPowCoefAllowance(t *testing.T) {
	for _, c := range [][3]int{{1000, 100, 19}, {100000, 100000, 8}, {1000000, 1000000, 9}, {300000, 1000, 360}, {54321, 777, 90}} {
		m, n, k := c[0], c[1], c[2]
		q, _ := truncPoisson(truncPoissonTilt(float64(m)/float64(n), k), k)
		floor, eFloor := powCoefWithin(q, n, m, 0)
		got, e := powCoef(q, n, m)
		if !(e > eFloor) {
			t.Errorf("m = %d, n = %d, k = %d: bound %g with the allowance, not above the floor's %g: nothing trimmed", m, n, k, e, eFloor)
		}
		if e > multiMaxRelErr*got {
			t.Errorf("m = %d, n = %d, k = %d: bound %g above 1e-9 of %g", m, n, k, e, got)
		}
		// Rounding is not in the bounds and differs between the two: allow the worst case MultinomialMaxCDF's doc
		// states, n times the law's relative rounding error of 2^-52 (measured here: at most 8.3e-14 relative).
		within(t, "powCoef against the floor alone", got, floor, e+eFloor+float64(n)*0x1p-52*floor)
		wide, eWide := powCoefWithin(q, n, m, 1)
		if wide != floor || eWide != eFloor {
			t.Errorf("m = %d, n = %d, k = %d: allowance 1 gave %g ± %g, want the floor's %g ± %g", m, n, k, wide, eWide, floor, eFloor)
		}
	}
}

// TestSquareFFT: squaring by FFT against the direct square, coefficient by coefficient, on binomial laws whose
// lengths straddle fftMin and reach the largest that MultinomialMaxCDF squares at m = n = 10^6 (about 10^4). The
// bound is the FFT's own (Higham, "Accuracy and Stability of Numerical Algorithms", 2nd ed., 2002, Theorem 24.2: a
// transform of length N = 2^t carries a relative error in the 2-norm of at most t·η/(1 − t·η), η = μ + γ₄(√2 + μ)
// ≈ 8·2^-52 with twiddle factors accurate to μ ≈ 2^-52): the forward transform, the pointwise square and the inverse
// give each coefficient of a·a an absolute error of at most 3·t·η·‖a‖₁·‖a‖₂, plus the direct square's own rounding
// of (len(a)+1)·2^-52 of ‖a‖₁·max(a).
func TestSquareFFT(t *testing.T) {
	plans := fftPlans{}
	for _, L := range []int{fftMin, 3001, 9800} {
		a := make([]float64, L)
		for i := range a {
			a[i] = distuv.Binomial{N: float64(L - 1), P: 0.4}.Prob(float64(i))
		}
		l1, l2, top := 0.0, 0.0, 0.0
		for _, v := range a {
			l1, l2, top = l1+v, l2+v*v, math.Max(top, v)
		}
		l2 = math.Sqrt(l2)
		m := 2*L - 2
		direct := squarePoly(wpoly{0, a}, m, nil)
		fft := squarePoly(wpoly{0, a}, m, plans)
		if len(fft.c) != len(direct.c) || fft.lo != direct.lo {
			t.Fatalf("L = %d: FFT square has %d coefficients from %d, direct %d from %d", L, len(fft.c), fft.lo, len(direct.c), direct.lo)
		}
		logN := float64(bits.Len(uint(2*L - 2)))
		tol := 3*logN*8*0x1p-52*l1*l2 + float64(L+1)*0x1p-52*l1*top
		worst, centre := 0.0, 0.0
		for i, d := range direct.c {
			worst, centre = math.Max(worst, math.Abs(fft.c[i]-d)), math.Max(centre, d)
		}
		if worst > tol {
			t.Errorf("L = %d: FFT square off by %g, above the bound %g", L, worst, tol)
		}
		t.Logf("L = %d: largest difference %.3g (bound %.3g), %.3g of the central coefficient", L, worst, tol, worst/centre)
	}
}

// TestPowCoefFFT: [x^m] q^n with the large squarings by FFT against the same with every squaring direct, for the
// (m, n, k) of TestPowCoefAllowance and the m = n cases of the model's grid. Each side's trimming carries its own
// certified bound and its rounding the n·2^-52 that MultinomialMaxCDF's doc states; the FFT's rounding
// (TestSquareFFT) must fit within them.
func TestPowCoefFFT(t *testing.T) {
	for _, c := range [][3]int{{1000, 100, 19}, {100000, 100000, 8}, {1000000, 1000000, 9}, {300000, 1000, 360}, {54321, 777, 90}, {1000000, 1000000, 8}, {10000, 10000, 7}} {
		m, n, k := c[0], c[1], c[2]
		q, _ := truncPoisson(truncPoissonTilt(float64(m)/float64(n), k), k)
		budget := powBudget(q, n) // powCoef's allowance
		direct, eD := powers{q: q, m: m, budget: budget}.coef(n)
		fft, eF := powers{q: q, m: m, budget: budget, plans: fftPlans{}}.coef(n)
		within(t, "[x^m] q^n by FFT against direct squares", fft, direct, eD+eF+float64(n)*0x1p-52*direct)
		t.Logf("m = %d, n = %d, k = %d: relative difference %.3g (bounds %.3g, %.3g)", m, n, k, math.Abs(fft-direct)/direct, eD/direct, eF/direct)
	}
}

// TestMultinomialMaxMedianTwoBins: with n = 2 the max load is max(X, m − X), X ~ Binomial(m, 1/2), so the exact
// median is the smallest k with P(m − k ≤ X ≤ k) ≥ 1/2 (gonum's Binomial). At m = 500,001 the law of Y is tilted
// to 250,000, so this exercises the long polynomials (their floor trim, products by FFT) and the median's gallop from
// the independent-bins start, far below (250,193 against 250,239); it took 20 s by steps of one.
func TestMultinomialMaxMedianTwoBins(t *testing.T) {
	for _, m := range []int{11, 1001, 500001} {
		b := distuv.Binomial{N: float64(m), P: 0.5}
		want := m
		for k := (m + 1) / 2; k <= m; k++ {
			if b.CDF(float64(k))-b.CDF(float64(m-k-1)) >= 0.5 {
				want = k
				break
			}
		}
		if got := MultinomialMaxMedian(m, 2); got != want {
			t.Errorf("MultinomialMaxMedian(%d, 2) = %d, want %d (the binomial law)", m, got, want)
		}
	}
}
