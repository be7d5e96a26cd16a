package analytic_test

import (
	"fmt"

	"lbsweep/analytic"
)

// Random dispatch makes every server an M/M/1 queue.
func ExampleMM1MeanSojourn() {
	fmt.Printf("T = %.4f\n", analytic.MM1MeanSojourn(0.9, 1))
	// Output: T = 10.0000
}

// The p99 of M/M/1 is ln(100)/(1-lambda).
func ExampleMM1SojournQuantile() {
	fmt.Printf("p99 = %.4f\n", analytic.MM1SojournQuantile(0.9, 1, 0.99))
	// Output: p99 = 46.0517
}

func ExampleMM1Tail() {
	for i, s := range analytic.MM1Tail(0.9, 3) {
		fmt.Printf("P(Q >= %d) = %.4f\n", i+1, s)
	}
	// Output:
	// P(Q >= 1) = 0.9000
	// P(Q >= 2) = 0.8100
	// P(Q >= 3) = 0.7290
}

// With two choices the tail falls doubly exponentially: s_4 = 0.9^15 and
// s_6 = 0.9^63 (seed document 002 §1).
func ExampleJSQdTail() {
	for _, d := range []int{1, 2} {
		fmt.Printf("d=%d:", d)
		for _, s := range analytic.JSQdTail(0.9, d, 6) {
			fmt.Printf(" %.4g", s)
		}
		fmt.Println()
	}
	// Output:
	// d=1: 0.9 0.81 0.729 0.6561 0.5905 0.5314
	// d=2: 0.9 0.729 0.4783 0.2059 0.03815 0.00131
}

// T_2(0.9) = 2.614 and T_3(0.9) = 2.028 (seed document 002 §2), against 10 for
// random dispatch.
func ExampleJSQdMeanSojourn() {
	for _, d := range []int{1, 2, 3} {
		fmt.Printf("T_%d(0.9) = %.4f\n", d, analytic.JSQdMeanSojourn(0.9, d))
	}
	// Output:
	// T_1(0.9) = 10.0000
	// T_2(0.9) = 2.6141
	// T_3(0.9) = 2.0279
}

func ExampleJSQdSojournCDF() {
	for _, t := range []float64{1, 3, 10} {
		fmt.Printf("P(T <= %g) = %.4f\n", t, analytic.JSQdSojournCDF(0.9, 2, t))
	}
	// Output:
	// P(T <= 1) = 0.2217
	// P(T <= 3) = 0.6516
	// P(T <= 10) = 0.9958
}

func ExampleJSQdSojournQuantile() {
	fmt.Printf("p50 = %.4f\n", analytic.JSQdSojournQuantile(0.9, 2, 0.5))
	fmt.Printf("p99 = %.4f\n", analytic.JSQdSojournQuantile(0.9, 2, 0.99))
	// Output:
	// p50 = 2.2019
	// p99 = 8.7910
}

// Round robin over 100 servers: each server is an E_100/M/1 queue.
func ExampleRoundRobinSigma() {
	fmt.Printf("sigma = %.6f\n", analytic.RoundRobinSigma(0.9, 100))
	// Output: sigma = 0.808679
}

func ExampleRoundRobinMeanSojourn() {
	fmt.Printf("T = %.4f\n", analytic.RoundRobinMeanSojourn(0.9, 100))
	// Output: T = 5.2268
}

func ExampleRoundRobinSojournQuantile() {
	fmt.Printf("p99 = %.4f\n", analytic.RoundRobinSojournQuantile(0.9, 100, 0.99))
	// Output: p99 = 24.0704
}

func ExampleRoundRobinTail() {
	for i, s := range analytic.RoundRobinTail(0.9, 100, 3) {
		fmt.Printf("P(Q >= %d) = %.4f\n", i+1, s)
	}
	// Output:
	// P(Q >= 1) = 0.9000
	// P(Q >= 2) = 0.7278
	// P(Q >= 3) = 0.5886
}
