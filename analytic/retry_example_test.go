package analytic_test

import (
	"fmt"
	"math"

	"lbsweep/analytic"
)

// Seed 004's retry storm on one worker of 5 ms mean service (rates per ms):
// 70% load, a 100 ms timeout behind 5 ms hops, three retries. Three states:
// healthy, the threshold, and the metastable one where every attempt times
// out and each request makes four. A 10% retry budget leaves only the
// healthy state.
func ExampleMMcRetryFixedPoints() {
	lam, mu, c := 0.14, 0.2, 1
	slack := 100.0 - 2*5
	for _, budget := range []float64{math.Inf(1), 0.1} {
		fmt.Println("budget", budget)
		for _, f := range analytic.MMcRetryFixedPoints(lam, mu, c, slack, 3, budget) {
			fmt.Printf("  x = %.4f/ms, %.3f attempts/request, p = %.4f, stable %v, saturated %v\n",
				f.Load, f.Attempts, f.TimeoutProb, f.Stable, f.Saturated)
		}
	}
	// Output:
	// budget +Inf
	//   x = 0.1407/ms, 1.005 attempts/request, p = 0.0048, stable true, saturated false
	//   x = 0.1843/ms, 1.316 attempts/request, p = 0.2429, stable false, saturated false
	//   x = 0.5600/ms, 4.000 attempts/request, p = 1.0000, stable true, saturated true
	// budget 0.1
	//   x = 0.1407/ms, 1.005 attempts/request, p = 0.0048, stable true, saturated false
}
