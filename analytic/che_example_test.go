package analytic_test

import (
	"fmt"
	"math"

	"lbsweep/analytic"
)

// A cache of 20 keys under Zipf(1) popularity over 200 keys (ch-bounded's law): Che's approximation and the exact
// IRM LRU hit ratio agree to about 2·10^-4.
func ExampleCheHitRatio() {
	p := make([]float64, 200)
	sum := 0.0
	for i := range p {
		p[i] = 1 / float64(i+1)
		sum += p[i]
	}
	for i := range p {
		p[i] /= sum
	}
	che, exact := analytic.CheHitRatio(p, 20), analytic.LRUExactHitRatio(p, 20)
	fmt.Printf("t_C = %.2f requests, Che %.4f, exact %.4f, |error| < 5e-4: %v\n", analytic.CheTime(p, 20), che, exact, math.Abs(che-exact) < 5e-4)
	// Output: t_C = 29.14 requests, Che 0.4646, exact 0.4644, |error| < 5e-4: true
}
