package analytic

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mathext"
)

// poissonClosed returns 1 - e^(-t) sum_{j<i} t^j/j!, i = 1..k, summed
// directly (accurate in absolute terms for moderate t).
func poissonClosed(t float64, k int) []float64 {
	out := make([]float64, k)
	term, sum := math.Exp(-t), 0.0
	for i := 1; i <= k; i++ {
		sum += term // sum_{j<i}
		term *= t / float64(i)
		out[i-1] = 1 - sum
	}
	return out
}

func sumOf(s []float64) float64 {
	total := 0.0
	for _, v := range s {
		total += v
	}
	return total
}

func TestRK4(t *testing.T) {
	decay := func(dy, y []float64) {
		for i := range y {
			dy[i] = -y[i]
		}
	}
	solve := func(steps int) float64 {
		var r rk4
		y := []float64{1}
		for range steps {
			r.step(y, 1/float64(steps), decay)
		}
		return y[0]
	}
	// h = 0.01: per-step error h^5/120, about 3e-11 over [0, 1].
	within(t, "RK4 y'=-y, h=0.01", solve(100), math.Exp(-1), 1e-10)
	// Fourth order: halving the step divides the error by about 16.
	e1, e2 := solve(10)-math.Exp(-1), solve(20)-math.Exp(-1)
	if r := e1 / e2; !(r > 14 && r < 17) {
		t.Errorf("RK4 error ratio for halved step = %g, want about 16", r)
	}
	// A rotation y1' = y2, y2' = -y1 returns to its start after 2 pi.
	var r rk4
	y := []float64{1, 0}
	const n = 2000
	for range n {
		r.step(y, 2*math.Pi/n, func(dy, y []float64) { dy[0], dy[1] = y[1], -y[0] })
	}
	within(t, "rotation y1(2 pi)", y[0], 1, 1e-10)
	within(t, "rotation y2(2 pi)", y[1], 0, 1e-10)
}

func TestBinsTailPoisson(t *testing.T) {
	// d = 1 is the Poisson(t) tail, for both public functions (closed form)...
	for _, tt := range []float64{0.5, 1, 10, 30} {
		want := poissonClosed(tt, 80)
		for name, got := range map[string][]float64{
			"BinsTail(d=1)":   BinsTail(tt, 1, 80),
			"GoLeftTail(d=1)": GoLeftTail(tt, 1, 80),
		} {
			for i := range want {
				within(t, name, got[i], want[i], 1e-13)
			}
		}
	}
	// ... and for the ODE integrators run with d = 1 (greedy: ds_i/dt =
	// s_{i-1} - s_i; go-left with one group reduces to the same equation).
	for _, tt := range []float64{1, 10} {
		want := poissonClosed(tt, 60)
		for name, got := range map[string][]float64{
			"greedyFluid(d=1)": greedyFluid(tt, 1),
			"goLeftFluid(d=1)": goLeftFluid(tt, 1),
		} {
			for i := range want {
				v := 0.0
				if i < len(got) {
					v = got[i]
				}
				within(t, name, v, want[i], 1e-9)
			}
		}
	}
	// Heavy load: against gonum's regularized incomplete gamma P(i, t), an
	// independent evaluation (Cephes).
	s := BinsTail(1000, 1, 2500)
	for i, v := range s {
		g := mathext.GammaIncReg(float64(i+1), 1000)
		within(t, "BinsTail(1000, 1) vs GammaIncReg", v, g, 1e-13)
		if g > 1e-250 {
			closeRel(t, "BinsTail(1000, 1) vs GammaIncReg", v, g, 1e-10)
		}
	}
	// Beyond about level 2300 the tail is below 1e-300 and returned as 0.
	if s[2499] != 0 || s[2000] == 0 {
		t.Errorf("BinsTail(1000, 1): s_2001 = %g, s_2500 = %g; want > 0 and 0", s[2000], s[2499])
	}
}

func TestBinsTailReference(t *testing.T) {
	// m = n = 10^6 (t = 1), n*s_i computed with shared/anchors/analytic.py
	// (its own RK4, 4000 steps), printed to 10 significant digits.
	// The C reference shared/anchors/bins.c, 200 repetitions, measured
	// 8892.4 and 6.0 bins with load >= 3, 4 (greedy d = 2) and 4478.7, 0.1
	// (go-left d = 2); the brief quotes a measured 8912 against 8895.
	cases := []struct {
		name string
		s    []float64
		want []float64
	}{
		{"greedy d=2", BinsTail(1, 2, 5), []float64{761594.156, 229504.5385, 8895.258291, 6.047255803, 1.3345694e-06}},
		{"go-left d=2", GoLeftTail(1, 2, 5), []float64{771675.1724, 223849.7228, 4475.053274, 0.05152372702, 1.222916446e-15}},
		{"greedy d=3", BinsTail(1, 3, 4), []float64{823040.5355, 176451.7607, 507.7038178, 3.865177571e-06}},
		{"go-left d=3", GoLeftTail(1, 3, 4), []float64{837908.6029, 162080.3159, 11.08120178, 4.498376112e-27}},
	}
	for _, c := range cases {
		for i, w := range c.want {
			got := 1e6 * c.s[i]
			if !(math.Abs(got-w) <= 2e-9*math.Abs(w) || math.Abs(got-w) <= 1e-6) {
				t.Errorf("%s: n*s_%d = %.10g, want %.10g", c.name, i+1, got, w)
			}
		}
	}
	// The brief's anchor: about 8895 bins with load >= 3 (within one bin).
	within(t, "1e6*s_3 (greedy d=2)", 1e6*BinsTail(1, 2, 3)[2], 8895, 1)

	// t = 10, levels 9..14, from shared/anchors/analytic.py (4000 steps).
	g := BinsTail(10, 2, 15)
	for i, w := range []float64{0.939045971032, 0.74528959148, 0.306720191247, 0.0245067386216, 7.16395892024e-05, 2.93455920911e-10} {
		within(t, "BinsTail(10, 2)", g[8+i], w, 1e-10)
	}
	l := GoLeftTail(10, 2, 15)
	for i, w := range []float64{0.943355827673, 0.756189447105, 0.299960178841, 0.0149080554988, 2.34622346269e-06, 5.61199919061e-17} {
		within(t, "GoLeftTail(10, 2)", l[8+i], w, 1e-10)
	}
}

func TestBinsStepHalving(t *testing.T) {
	// The step rule holds the tails to about 5e-11: halving the step changes
	// no level by more than 1e-10.
	for _, d := range []int{2, 3} {
		for _, tt := range []float64{1, 10} {
			n := fluidSteps(tt, d)
			for name, pair := range map[string][2][]float64{
				"greedy":  {greedyFluidSteps(tt, d, n), greedyFluidSteps(tt, d, 2*n)},
				"go-left": {goLeftFluidSteps(tt, d, n), goLeftFluidSteps(tt, d, 2*n)},
			} {
				a, b := pair[0], pair[1]
				for i := range min(len(a), len(b)) {
					within(t, name+" step halving", a[i], b[i], 1e-10)
				}
			}
		}
	}
	if n := fluidSteps(1, 2); n != 1000 {
		t.Errorf("fluidSteps(1, 2) = %d, want 1000 (h = t/1000)", n)
	}
	if n := fluidSteps(1000, 2); n != 100000 {
		t.Errorf("fluidSteps(1000, 2) = %d, want 100000 (h = 0.01)", n)
	}
}

func TestBinsMassConservation(t *testing.T) {
	// Every ball adds one to one bin: sum_i s_i = t (balls per bin).
	for _, d := range []int{2, 3} {
		for _, tt := range []float64{1, 10} {
			within(t, "sum BinsTail", sumOf(BinsTail(tt, d, 100)), tt, 1e-9)
			within(t, "sum GoLeftTail", sumOf(GoLeftTail(tt, d, 100)), tt, 1e-9)
		}
	}
	// Frozen levels add at most 1e-12 each: still 1e-12 relative at t = 1000.
	closeRel(t, "sum BinsTail(1000, 2)", sumOf(BinsTail(1000, 2, 1100)), 1000, 1e-11)
	// d = 1 (Poisson): the mean.
	within(t, "sum BinsTail(10, 1)", sumOf(BinsTail(10, 1, 200)), 10, 1e-12)
}

func TestGoLeftBeatsGreedy(t *testing.T) {
	// Vöcking (JACM 2003): asymmetry lowers the tail. At t = 1 the go-left
	// tail is below the greedy one from level 3 on (it is above at level 1:
	// more bins are used).
	for _, d := range []int{2, 3} {
		g, l := BinsTail(1, d, 12), GoLeftTail(1, d, 12)
		for i := 2; i < len(g); i++ {
			if g[i] > 0 && !(l[i] < g[i]) || l[i] > g[i] {
				t.Errorf("d=%d: s_%d go-left %g, greedy %g", d, i+1, l[i], g[i])
			}
		}
		if !(l[0] > g[0]) {
			t.Errorf("d=%d: s_1 go-left %g <= greedy %g", d, l[0], g[0])
		}
	}
}

func TestFluidMaxLoad(t *testing.T) {
	// m = n = 10^6. The brief's issue text: "d = 2 gives max load 4 in every
	// seed, go-left d = 2 gives 3". shared/anchors/bins.c, 200 repetitions:
	// greedy 4 in 199, go-left 3 in 183; d = 1 maxima 8..11, median 9.
	for _, c := range []struct {
		name string
		tail []float64
		want int
	}{
		{"greedy d=2", BinsTail(1, 2, 20), 4},    // n s_4 = 6.05, n s_5 = 1.3e-6
		{"go-left d=2", GoLeftTail(1, 2, 20), 3}, // n s_3 = 4475, n s_4 = 0.0515
		{"greedy d=3", BinsTail(1, 3, 20), 3},    // n s_3 = 508
		{"go-left d=3", GoLeftTail(1, 3, 20), 3}, // n s_3 = 11.1
		{"d=1", BinsTail(1, 1, 20), 9},           // n s_9 = 1.13, n s_10 = 0.111
		{"binomial d=1", BinomialTail(1e6, 1e6, 20), 9},
	} {
		if got := FluidMaxLoad(c.tail, 1e6); got != c.want {
			t.Errorf("FluidMaxLoad(%s, 1e6) = %d, want %d", c.name, got, c.want)
		}
	}
	// The rule at its boundary, and degenerate input.
	if got := FluidMaxLoad([]float64{1, 0.5e-6, 0.49e-6}, 1e6); got != 2 {
		t.Errorf("FluidMaxLoad boundary = %d, want 2", got)
	}
	if got := FluidMaxLoad(nil, 10); got != 0 {
		t.Errorf("FluidMaxLoad(nil) = %d, want 0", got)
	}
	if got := FluidMaxLoad([]float64{1, 1}, 10); got != 2 {
		t.Errorf("FluidMaxLoad(short tail) = %d, want 2", got)
	}
	for _, n := range []float64{0, -1, math.NaN(), math.Inf(1)} {
		if got := FluidMaxLoad([]float64{1}, n); got != -1 {
			t.Errorf("FluidMaxLoad(n=%g) = %d, want -1", n, got)
		}
	}
	if got := FluidMaxLoad([]float64{1, math.NaN()}, 10); got != -1 {
		t.Errorf("FluidMaxLoad(NaN tail) = %d, want -1", got)
	}
}

func TestBinomialTail(t *testing.T) {
	// Exact references computed with mpmath 1.3.0 (betainc at 40 digits):
	// P(Binomial(m, 1/n) >= i).
	for _, c := range []struct {
		m, n float64
		i    int
		want float64
	}{
		{1e6, 1e6, 9, 1.125170664332278e-6},
		{1e8, 1e8, 12, 8.316102818805588e-10},
		{1e7, 1e4, 1130, 2.9523473324106364e-5},
		{1e7, 1e4, 1000, 0.50420587494756794},
		{1e7, 1e4, 900, 0.99937774379945996},
		{1e11, 1e8, 1180, 1.6647319881610271e-8},
		{1e11, 1e8, 1000, 0.50420524424328857},
	} {
		closeRel(t, "BinomialTail vs mpmath", BinomialTail(c.m, c.n, c.i)[c.i-1], c.want, 1e-12)
	}
	// Against gonum's regularized incomplete beta, P(X >= i) = I_{1/n}(i,
	// m-i+1). Its own error is larger: 4e-13 near the mean for m = 1000,
	// n = 10 (mpmath: s_100 = 0.51541770956592031, s_103 =
	// 0.39106037102844815, which BinomialTail matches to 1e-16), and, as its
	// log-beta cancels, 6e-11 at s_2 for m = n = 10^6 (mpmath:
	// 0.2642411176570847).
	for i, w := range map[int]float64{100: 0.51541770956592031, 103: 0.39106037102844815} {
		within(t, "BinomialTail(1000, 10) vs mpmath", BinomialTail(1000, 10, i)[i-1], w, 2e-16)
	}
	within(t, "BinomialTail(1e6, 1e6) s_2 vs mpmath", BinomialTail(1e6, 1e6, 2)[1], 0.2642411176570847, 2e-16)
	for _, c := range [][3]float64{{1e3, 10, 2e-12}, {50, 3, 2e-12}, {1e6, 1e3, 1e-9}, {1e6, 1e6, 1e-9}} {
		m, n, tol := c[0], c[1], c[2]
		s := BinomialTail(m, n, 200)
		for i, v := range s {
			if float64(i+1) > m {
				break
			}
			want := mathext.RegIncBeta(float64(i+1), m-float64(i), 1/n)
			within(t, "BinomialTail vs RegIncBeta", v, want, tol)
			if want > 1e-250 && want < 0.5 {
				closeRel(t, "BinomialTail vs RegIncBeta", v, want, 1e3*tol)
			}
		}
	}
	// -> Poisson(t) as n grows: Le Cam's bound n (1/n)^2 = 1e-6 on the total
	// variation at m = n = 10^6 (the largest gap is 1.84e-7).
	b, p := BinomialTail(1e6, 1e6, 30), BinsTail(1, 1, 30)
	for i := range b {
		within(t, "BinomialTail(1e6, 1e6) vs Poisson", b[i], p[i], 1e-6)
	}
	// sum_i P(X >= i) = E[X] = m/n.
	within(t, "sum BinomialTail(1e6, 1e6)", sumOf(BinomialTail(1e6, 1e6, 60)), 1, 1e-12)
	closeRel(t, "sum BinomialTail(1e7, 1e4)", sumOf(BinomialTail(1e7, 1e4, 2000)), 1000, 1e-12)
	closeRel(t, "sum BinomialTail(1e3, 3)", sumOf(BinomialTail(1e3, 3, 1000)), 1e3/3, 1e-12)
	// Degenerate laws.
	for i, v := range BinomialTail(5, 1, 7) {
		want := 0.0
		if i < 5 {
			want = 1
		}
		within(t, "BinomialTail(5, 1)", v, want, 0)
	}
	for _, v := range BinomialTail(0, 10, 3) {
		within(t, "BinomialTail(0, 10)", v, 0, 0)
	}
	if v := BinomialTail(10, 10, 0); len(v) != 0 {
		t.Errorf("BinomialTail(k=0) has length %d", len(v))
	}
	for _, mn := range [][2]float64{{-1, 10}, {1.5, 10}, {math.NaN(), 10}, {math.Inf(1), 10}, {1 << 54, 10},
		{10, 0.5}, {10, 0}, {10, math.NaN()}, {10, math.Inf(1)}} {
		allNaN(t, "BinomialTail(invalid)", BinomialTail(mn[0], mn[1], 3), 3)
		if got := BinomialMaxLoad(mn[0], mn[1]); got != -1 {
			t.Errorf("BinomialMaxLoad(%g, %g) = %d, want -1", mn[0], mn[1], got)
		}
	}
	mustPanic(t, "BinomialTail(k<0)", func() { BinomialTail(10, 10, -1) })
}

// medianMaxRegIncBeta is BinomialMaxLoad by gonum's incomplete beta (accurate
// for m up to about 10^6): the smallest k with n log F(k) >= -ln 2.
func medianMaxRegIncBeta(m, n float64) int {
	for k := 0.0; k < m; k++ {
		tail := mathext.RegIncBeta(k+1, m-k, 1/n) // P(X >= k+1)
		if n*math.Log1p(-tail) >= -math.Ln2 {
			return int(k)
		}
	}
	return int(m)
}

func TestBinomialMaxLoad(t *testing.T) {
	// m = n: the median of the maximum under the independent-bins
	// approximation, 4, 5, 7, 8, 9, 10, 11 for n = 10^2..10^8. The brief asks
	// for 8..11 at 10^6; shared/anchors/bins.c measured maxima 8..11, median
	// 9, over 200 repetitions.
	for e, want := range map[int]int{2: 4, 3: 5, 4: 7, 5: 8, 6: 9, 7: 10, 8: 11} {
		n := math.Pow(10, float64(e))
		if got := BinomialMaxLoad(n, n); got != want {
			t.Errorf("BinomialMaxLoad(1e%d, 1e%d) = %d, want %d", e, e, got, want)
		}
	}
	// Against an independent evaluation by the incomplete beta.
	for _, c := range [][2]float64{{1e2, 1e2}, {1e4, 1e4}, {1e6, 1e6}, {1e5, 1e3}, {1e6, 1e2}, {37, 5}, {1, 1e6}} {
		if got, want := BinomialMaxLoad(c[0], c[1]), medianMaxRegIncBeta(c[0], c[1]); got != want {
			t.Errorf("BinomialMaxLoad(%g, %g) = %d, RegIncBeta gives %d", c[0], c[1], got, want)
		}
	}
	// Nondecreasing in m.
	for _, n := range []float64{10, 1e4, 1e6} {
		prev := 0
		for m := 0.0; m <= 30*n; m += n / 4 {
			got := BinomialMaxLoad(math.Floor(m), n)
			if got < prev {
				t.Errorf("BinomialMaxLoad(%g, %g) = %d < %d at fewer balls", math.Floor(m), n, got, prev)
			}
			prev = got
		}
	}
	// Degenerate cases: one bin holds everything; no balls.
	if got := BinomialMaxLoad(5, 1); got != 5 {
		t.Errorf("BinomialMaxLoad(5, 1) = %d, want 5", got)
	}
	if got := BinomialMaxLoad(0, 10); got != 0 {
		t.Errorf("BinomialMaxLoad(0, 10) = %d, want 0", got)
	}
	// Two bins, 10^8 balls: m/2 plus 0.545 sigma (1 - 2^(-1/2) = P(Z > 0.545)),
	// sigma = sqrt(m)/2 = 5000.
	if got := BinomialMaxLoad(1e8, 2); got < 5e7+2700 || got > 5e7+2750 {
		t.Errorf("BinomialMaxLoad(1e8, 2) = %d, want about 5e7 + 2725", got)
	}
}

func TestBinsHeavyLoad(t *testing.T) {
	// Berenbrink, Czumaj, Steger and Vöcking (STOC 2000): with d >= 2 the gap
	// max - m/n does not grow with m. Fluid estimate with n = 10^4 at t =
	// 1000: greedy d = 2 gives 1003 (gap 3, about ln ln n / ln 2 = 3.2),
	// go-left d = 2 gives 1002; the same gaps as at t = 100.
	// shared/anchors/bins.c (m = 10^7, n = 10^4, 3 repetitions) measured
	// maxima 1002, 1003, 1003 (greedy) and 1002 x 3 (go-left).
	const n = 1e4
	g1000 := FluidMaxLoad(BinsTail(1000, 2, 1100), n) - 1000
	l1000 := FluidMaxLoad(GoLeftTail(1000, 2, 1100), n) - 1000
	g100 := FluidMaxLoad(BinsTail(100, 2, 200), n) - 100
	l100 := FluidMaxLoad(GoLeftTail(100, 2, 200), n) - 100
	if g1000 != 3 || l1000 != 2 {
		t.Errorf("heavy-load gaps at t = 1000: greedy %d, go-left %d; want 3, 2", g1000, l1000)
	}
	if g100 != g1000 || l100 != l1000 {
		t.Errorf("gaps grow with t: greedy %d -> %d, go-left %d -> %d", g100, g1000, l100, l1000)
	}
	// d = 1: the gap grows like sqrt(2 t ln n) (Raab and Steger 1998): 123
	// against 135.7 at t = 1000, n = 10^4 (bins.c, 9 repetitions: median
	// 1126).
	gap := float64(BinomialMaxLoad(1e7, n) - 1000)
	closeRel(t, "d=1 heavy-load gap vs sqrt(2 t ln n)", gap, math.Sqrt(2*1000*math.Log(n)), 0.3)
	if gap != 123 {
		t.Errorf("BinomialMaxLoad(1e7, 1e4) - 1000 = %g, want 123", gap)
	}
}

func TestAsymptoticMaxLoad(t *testing.T) {
	within(t, "phi_2", fibGrowth(2), (1+math.Sqrt(5))/2, 1e-15)
	within(t, "phi_3 (tribonacci)", fibGrowth(3), 1.839286755214161, 1e-9)
	within(t, "phi_1", fibGrowth(1), 1, 0)
	prev := 1.0
	for d := 2; d <= 10; d++ {
		x := fibGrowth(d)
		lhs, rhs := math.Pow(x, float64(d)), 0.0
		for j := range d {
			rhs += math.Pow(x, float64(j))
		}
		closeRel(t, "phi_d^d = sum_{j<d} phi_d^j", lhs, rhs, 1e-14)
		if !(x > prev && x < 2) {
			t.Errorf("phi_%d = %g, want in (phi_%d = %g, 2)", d, x, d-1, prev)
		}
		prev = x
	}
	n := 1e6
	lln := math.Log(math.Log(n))
	closeRel(t, "d=1", AsymptoticMaxLoad(n, 1, false), math.Log(n)/lln, 1e-15)
	closeRel(t, "d=1 go-left", AsymptoticMaxLoad(n, 1, true), math.Log(n)/lln, 1e-15)
	closeRel(t, "greedy d=2", AsymptoticMaxLoad(n, 2, false), lln/math.Ln2, 1e-15)
	closeRel(t, "go-left d=2", AsymptoticMaxLoad(n, 2, true), lln/(2*math.Log(math.Phi)), 1e-14)
	within(t, "values at 1e6", AsymptoticMaxLoad(n, 1, false), 5.261, 5e-4)
	within(t, "values at 1e6", AsymptoticMaxLoad(n, 2, false), 3.788, 5e-4)
	within(t, "values at 1e6", AsymptoticMaxLoad(n, 2, true), 2.728, 5e-4)
	for _, bad := range []float64{2.9, 1, 0, -1, math.NaN(), math.Inf(1)} {
		if v := AsymptoticMaxLoad(bad, 2, false); !math.IsNaN(v) {
			t.Errorf("AsymptoticMaxLoad(%g) = %g, want NaN", bad, v)
		}
	}
	if v := AsymptoticMaxLoad(3, 2, false); math.IsNaN(v) || v <= 0 {
		t.Errorf("AsymptoticMaxLoad(3, 2) = %g, want > 0", v)
	}
	mustPanic(t, "AsymptoticMaxLoad(d=0)", func() { AsymptoticMaxLoad(10, 0, false) })
}

func TestBinsTailInvalid(t *testing.T) {
	for name, f := range map[string]func(float64, int, int) []float64{"BinsTail": BinsTail, "GoLeftTail": GoLeftTail} {
		for _, d := range []int{1, 2} {
			for _, tt := range []float64{-1, math.NaN(), math.Inf(1), math.Inf(-1)} {
				allNaN(t, name, f(tt, d, 3), 3)
			}
			for _, v := range f(0, d, 3) {
				within(t, name+"(t=0)", v, 0, 0)
			}
			if v := f(1, d, 0); len(v) != 0 {
				t.Errorf("%s(k=0) has length %d", name, len(v))
			}
		}
		// The ODEs stop at t = 10^4; the closed form (d = 1) does not.
		allNaN(t, name+"(t>1e4, d=2)", f(1e4+1, 2, 3), 3)
		for _, v := range f(1e5, 1, 3) {
			within(t, name+"(1e5, d=1)", v, 1, 0)
		}
		mustPanic(t, name+"(d=0)", func() { f(1, 0, 3) })
		mustPanic(t, name+"(k<0)", func() { f(1, 2, -1) })
	}
}
