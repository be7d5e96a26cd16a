package analytic_test

import (
	"fmt"
	"math"

	"lbsweep/analytic"
)

// Expected number of bins with load >= i when 10^6 balls go into 10^6 bins:
// one choice (Poisson) against the greedy best of two.
func ExampleBinsTail() {
	const n = 1e6
	for _, d := range []int{1, 2} {
		fmt.Printf("d=%d:", d)
		for _, s := range analytic.BinsTail(1, d, 5) {
			fmt.Printf(" %.6g", n*s)
		}
		fmt.Println()
	}
	// Output:
	// d=1: 632121 264241 80301.4 18988.2 3659.85
	// d=2: 761594 229505 8895.26 6.04726 1.33457e-06
}

// Always-go-left with two groups: fewer bins reach load 3 and 4 than under
// greedy two-choice (8895 and 6.05).
func ExampleGoLeftTail() {
	for _, s := range analytic.GoLeftTail(1, 2, 5) {
		fmt.Printf(" %.6g", 1e6*s)
	}
	fmt.Println()
	// Output:
	// 771675 223850 4475.05 0.0515237 1.22292e-15
}

// The fluid maximum-load rule at m = n = 10^6, and under heavy load
// (m = 10^7, n = 10^4), where two choices keep the gap to the average small.
func ExampleFluidMaxLoad() {
	fmt.Println("d=1:        ", analytic.FluidMaxLoad(analytic.BinsTail(1, 1, 20), 1e6))
	fmt.Println("greedy d=2: ", analytic.FluidMaxLoad(analytic.BinsTail(1, 2, 20), 1e6))
	fmt.Println("go-left d=2:", analytic.FluidMaxLoad(analytic.GoLeftTail(1, 2, 20), 1e6))
	fmt.Println("heavy, greedy d=2: 1000 +", analytic.FluidMaxLoad(analytic.BinsTail(1000, 2, 1100), 1e4)-1000)
	// Output:
	// d=1:         9
	// greedy d=2:  4
	// go-left d=2: 3
	// heavy, greedy d=2: 1000 + 3
}

// Median maximum load of single-choice allocation with m = n.
func ExampleBinomialMaxLoad() {
	for e := 2; e <= 8; e += 2 {
		n := math.Pow(10, float64(e))
		fmt.Printf("n = 1e%d: %d\n", e, analytic.BinomialMaxLoad(n, n))
	}
	fmt.Println("m = 1e7, n = 1e4: 1000 +", analytic.BinomialMaxLoad(1e7, 1e4)-1000)
	// Output:
	// n = 1e2: 4
	// n = 1e4: 7
	// n = 1e6: 9
	// n = 1e8: 11
	// m = 1e7, n = 1e4: 1000 + 123
}

// Expected number of bins with load >= 8, 9, 10 for m = n = 10^6, exactly.
func ExampleBinomialTail() {
	s := analytic.BinomialTail(1e6, 1e6, 10)
	for i := 7; i < 10; i++ {
		fmt.Printf("n*s_%d = %.4f\n", i+1, 1e6*s[i])
	}
	// Output:
	// n*s_8 = 10.2490
	// n*s_9 = 1.1252
	// n*s_10 = 0.1114
}

// Leading asymptotic terms at n = 10^6 (the true maxima are 9, 4 and 3).
func ExampleAsymptoticMaxLoad() {
	fmt.Printf("d=1:         %.3f\n", analytic.AsymptoticMaxLoad(1e6, 1, false))
	fmt.Printf("greedy d=2:  %.3f\n", analytic.AsymptoticMaxLoad(1e6, 2, false))
	fmt.Printf("go-left d=2: %.3f\n", analytic.AsymptoticMaxLoad(1e6, 2, true))
	// Output:
	// d=1:         5.261
	// greedy d=2:  3.788
	// go-left d=2: 2.728
}
