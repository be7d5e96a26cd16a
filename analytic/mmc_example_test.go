package analytic_test

import (
	"fmt"

	"lbsweep/analytic"
)

// Four workers at 70% load, mean service 10 ms (rates per ms): the
// probability of waiting, the mean and p99 sojourn, and the chance that an
// attempt misses a 100 ms timeout behind 5 ms hops each way.
func ExampleMMcSojournTail() {
	lambda, mu, c := 0.28, 0.1, 4
	fmt.Printf("P(wait) = %.4f\n", analytic.ErlangC(c, lambda/mu))
	fmt.Printf("mean = %.3f ms\n", analytic.MMcMeanSojourn(lambda, mu, c))
	fmt.Printf("p99 = %.3f ms\n", analytic.MMcSojournQuantile(lambda, mu, c, 0.99))
	tail := func(t float64) float64 { return analytic.MMcSojournTail(lambda, mu, c, t) }
	fmt.Printf("P(timeout) = %.3g\n", analytic.TimeoutProb(tail, 100-2*5))
	// Output:
	// P(wait) = 0.4287
	// mean = 13.572 ms
	// p99 = 54.926 ms
	// P(timeout) = 0.000344
}

// A bounded queue of 8 behind 4 workers at 1.25x overload: about a fifth of the
// arrivals are refused at once, and the admitted ones wait at most 8 slots.
func ExampleMMcKBlocking() {
	lambda, mu, c, K := 0.5, 0.1, 4, 12
	fmt.Printf("blocking = %.4f\n", analytic.MMcKBlocking(lambda, mu, c, K))
	fmt.Printf("mean = %.3f ms\n", analytic.MMcKMeanSojourn(lambda, mu, c, K))
	fmt.Printf("p99 = %.3f ms\n", analytic.MMcKSojournQuantile(lambda, mu, c, K, 0.99))
	// Output:
	// blocking = 0.2182
	// mean = 23.039 ms
	// p99 = 63.194 ms
}
