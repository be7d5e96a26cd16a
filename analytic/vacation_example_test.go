package analytic_test

import (
	"fmt"

	"lbsweep/analytic"
)

// Seed 004's gc-ewma: a 300 ms pause every 2 s on a server of 10 ms mean
// service (rates per ms). Its capacity falls by 15%, its p99 is at least
// 290 ms whatever the load, and round robin over 5 servers (a fifth of the
// requests on the paused one) keeps the fleet's p99 above 210 ms.
func ExampleVacationSojournQuantileBound() {
	mu, pause, period := 0.1, 300.0, 2000.0
	fmt.Printf("capacity %.3f/ms\n", analytic.VacationCapacity(mu, pause, period))
	fmt.Printf("paused server p99 >= %.1f ms\n", analytic.VacationSojournQuantileBound(mu, pause, period, 1, 0.99))
	fmt.Printf("fleet of 5, round robin, p99 >= %.1f ms\n", analytic.VacationSojournQuantileBound(mu, pause, period, 0.2, 0.99))
	fmt.Printf("paused server mean >= %.1f ms\n", analytic.VacationMeanSojournBound(mu, pause, period, 1))
	// Output:
	// capacity 0.085/ms
	// paused server p99 >= 290.0 ms
	// fleet of 5, round robin, p99 >= 210.0 ms
	// paused server mean >= 32.5 ms
}
