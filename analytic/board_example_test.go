package analytic_test

import (
	"fmt"

	"lbsweep/analytic"
)

// The periodic bulletin board at lambda = 0.9 (seed document 002 §6): with
// information T service times old, three choices fall behind two from T = 5,
// two choices lose to random dispatch (10) between T = 30 and T = 50, and JSQ
// is already worse than random at T = 5. All of these are fixed points of the
// phase map (Period 1), so the values carry no sampling error.
func ExampleBulletinBoardFluid() {
	for _, T := range []float64{0, 5, 30, 50} {
		fmt.Printf("T=%-2g", T)
		for _, d := range []int{2, 3} {
			r, err := analytic.BulletinBoardFluid(0.9, d, T, analytic.BoardPeriodic)
			if err != nil {
				fmt.Println(err)
				return
			}
			fmt.Printf("  d=%d: %6.3f", d, r.MeanSojourn)
		}
		fmt.Println()
	}
	r, err := analytic.BulletinBoardFluid(0.9, 0, 5, analytic.BoardPeriodic)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("JSQ, T=5: %.3f (period %d)\n", r.MeanSojourn, r.Period)
	// Output:
	// T=0   d=2:  2.614  d=3:  2.028
	// T=5   d=2:  3.970  d=3:  4.285
	// T=30  d=2:  8.835  d=3: 13.540
	// T=50  d=2: 12.348  d=3: 20.787
	// JSQ, T=5: 11.125 (period 1)
}

// With individual refreshes (each entry at rate 1/T) JSQ has a closed form,
// s_i = lambda r^(i-1): every entry is on average T old, against T/2 for the
// periodic board, and the herd effect is stronger.
func ExampleBulletinBoardFluid_individual() {
	for _, d := range []int{0, 2} {
		r, err := analytic.BulletinBoardFluid(0.9, d, 5, analytic.BoardIndividual)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("d=%d, T=5: mean sojourn %.3f, s_1..s_3 = %.4f %.4f %.4f\n", d, r.MeanSojourn, r.Tail[0], r.Tail[1], r.Tail[2])
	}
	// Output:
	// d=0, T=5: mean sojourn 41.122, s_1..s_3 = 0.9000 0.8781 0.8568
	// d=2, T=5: mean sojourn 5.272, s_1..s_3 = 0.9000 0.8058 0.7007
}
