package analytic

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// pausedMM1 simulates n Poisson(lambda) arrivals to a FIFO server of rate mu
// that does no work during [k period, k period + pause) for every k (running
// work stops too), and returns every request's sojourn time. Independent of
// the bound: its own event loop, seeded.
func pausedMM1(lambda, mu, pause, period float64, n int, seed uint64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 4))
	// finish returns when work w started at t completes, skipping pauses.
	finish := func(t, w float64) float64 {
		for {
			k := math.Floor(t / period)
			if t < k*period+pause { // inside a pause: wait for its end
				t = k*period + pause
			}
			next := (k + 1) * period // the next pause starts here
			if t+w <= next {
				return t + w
			}
			w -= next - t
			t = next
		}
	}
	out := make([]float64, n)
	arr, dep := 0.0, 0.0
	for i := range out {
		arr += rng.ExpFloat64() / lambda
		dep = finish(math.Max(arr, dep), rng.ExpFloat64()/mu)
		out[i] = dep - arr
	}
	return out
}

// batchTail returns the batch-means estimate of P(S > x) over b equal batches
// and its standard error (consecutive sojourns are correlated; batches much
// longer than the period make the batch means nearly independent).
func batchTail(s []float64, x float64, b int) (float64, float64) {
	m := len(s) / b
	means := make([]float64, b)
	for k := range means {
		c := 0
		for _, v := range s[k*m : (k+1)*m] {
			if v > x {
				c++
			}
		}
		means[k] = float64(c) / float64(m)
	}
	mean, ss := 0.0, 0.0
	for _, v := range means {
		mean += v
	}
	mean /= float64(b)
	for _, v := range means {
		ss += (v - mean) * (v - mean)
	}
	return mean, math.Sqrt(ss / float64(b-1) / float64(b))
}

// Seed 004's gc-ewma: a 300 ms pause every 2 s. Mean service 10 ms (mu =
// 0.1/ms) at 50% load (lambda = 0.05/ms, below the capacity 0.085/ms).
func TestVacationBoundsSimulated(t *testing.T) {
	const (
		mu, lambda    = 0.1, 0.05
		pause, period = 300.0, 2000.0
		n, batches    = 2000000, 100 // 4e7 ms simulated: a batch spans 200 periods
		alpha         = 0.001        // family-wise, Bonferroni over the checks
	)
	s := pausedMM1(lambda, mu, pause, period, n, 14)
	s = s[n/100:] // drop the first 1% (start empty)
	xs := []float64{1, 10, 50, 100, 200, 280, 299}
	fracs := []float64{1, 0.2}
	tq := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: batches - 1}.Quantile(1 - alpha/float64(len(xs)*len(fracs)))
	for _, f := range fracs {
		for _, x := range xs {
			// The fleet: with frac f the paused server is a share f of the
			// requests (Poisson splitting; it still sees lambda per server) and
			// the others are plain M/M/1 queues, tail e^(-(mu-lambda) x).
			est, se := batchTail(s, x, batches)
			est = f*est + (1-f)*math.Exp(-(mu-lambda)*x)
			se *= f
			b := VacationSojournTailBound(mu, pause, period, f, x)
			t.Logf("frac %.1f x=%5.0f ms: simulated P(S > x) = %.5f ± %.5f, bound %.5f, residual-pause bound %.5f",
				f, x, est, se, b, VacationSojournTailBound(math.Inf(1), pause, period, f, x))
			if est+tq*se < b {
				t.Errorf("frac %g x=%g: simulated tail %g ± %g below the bound %g", f, x, est, se, b)
			}
		}
	}
	// The p99: simulated (order statistic of the paused server alone) against
	// the bound, and the bound against the pause-free M/M/1 p99
	// ln(100)/(mu - lambda) = 92.1 ms: not vacuous.
	sorted := append([]float64(nil), s...)
	sort.Float64s(sorted)
	p99 := sorted[int(0.99*float64(len(sorted)))]
	b99 := VacationSojournQuantileBound(mu, pause, period, 1, 0.99)
	free := MM1SojournQuantile(lambda, mu, 0.99)
	t.Logf("paused server p99: simulated %.1f ms, bound %.1f ms (residual pause only %.1f), pause-free M/M/1 %.1f ms",
		p99, b99, VacationSojournQuantileBound(math.Inf(1), pause, period, 1, 0.99), free)
	if !(b99 > 2.5*free) {
		t.Errorf("p99 bound %g not above 2.5x the pause-free p99 %g", b99, free)
	}
	bf := VacationSojournQuantileBound(mu, pause, period, 0.2, 0.99)
	t.Logf("fleet of 5, round robin: p99 bound %.1f ms", bf)
	if !(bf > 2*free) {
		t.Errorf("fleet p99 bound %g not above twice the pause-free p99 %g", bf, free)
	}
	// Mean: simulated against the bound (batch means of the sojourn).
	m := len(s) / batches
	bm := make([]float64, batches)
	for k := range bm {
		for _, v := range s[k*m : (k+1)*m] {
			bm[k] += v / float64(m)
		}
	}
	mean, ss := 0.0, 0.0
	for _, v := range bm {
		mean += v / batches
	}
	for _, v := range bm {
		ss += (v - mean) * (v - mean)
	}
	se := math.Sqrt(ss / (batches - 1) / batches)
	mb := VacationMeanSojournBound(mu, pause, period, 1)
	t.Logf("paused server mean: simulated %.2f ± %.2f ms, bound %.2f ms", mean, se, mb)
	if mean+tq*se < mb {
		t.Errorf("simulated mean %g ± %g below the bound %g", mean, se, mb)
	}
}

func TestVacationSojournTailBound(t *testing.T) {
	// mu = +Inf: the brief's frac (pause - x)/period; 0.15 (1 - x/300) at
	// frac 1.
	for _, x := range []float64{1, 100, 299, 300, 500} {
		want := 0.15 * math.Max(0, 1-x/300)
		within(t, "residual-pause bound", VacationSojournTailBound(math.Inf(1), 300, 2000, 1, x), want, 1e-16)
	}
	// Against a Simpson integration of P(r + B > x) over the residual pause
	// r ~ U[0, pause] (the integrand is 1 for r >= x and e^(-mu (x - r))
	// below: integrate piecewise so Simpson sees a smooth function; its
	// fourth derivative is mu^4 e^(-mu (x-r)) <= mu^4).
	mu, pause, period := 0.1, 300.0, 2000.0
	for _, f := range []float64{1, 0.2, 0} {
		for _, x := range []float64{5, 50, 150, 299, 301, 400} {
			a := math.Min(x, pause)
			const n = 2000
			h := a / n
			integ := math.Max(pause-x, 0) + simpson(func(r float64) float64 { return math.Exp(-mu * (x - r)) }, a, n)
			want := f*integ/period + (1-f*pause/period)*math.Exp(-mu*x)
			bound := f/period*a*math.Pow(h*mu, 4)/180 + 1e-15
			within(t, "VacationSojournTailBound vs Simpson", VacationSojournTailBound(mu, pause, period, f, x), want, bound)
		}
	}
	// The bound's integral is the mean bound (Simpson over [0, T], pieces
	// [0, pause] and [pause, T]; the dropped tail is e^(-mu T)/mu).
	tail := func(x float64) float64 { return VacationSojournTailBound(mu, pause, period, 0.3, x) }
	T := pause + 400/mu
	shifted := func(x float64) float64 { return tail(pause + x) }
	integ := simpson(tail, pause, 20000) + simpson(shifted, T-pause, 20000)
	within(t, "int bound = mean bound", integ, VacationMeanSojournBound(mu, pause, period, 0.3), 1e-9)
	if v := VacationSojournTailBound(mu, pause, period, 1, 0); v != 1 {
		t.Errorf("bound at 0 = %g, want 1", v)
	}
	for _, v := range []float64{
		VacationSojournTailBound(0, 1, 2, 1, 1), VacationSojournTailBound(1, 3, 2, 1, 1),
		VacationSojournTailBound(1, -1, 2, 1, 1), VacationSojournTailBound(1, 1, 2, 1.5, 1),
		VacationSojournTailBound(1, 1, 2, 1, math.NaN()), VacationSojournTailBound(1, 1, math.Inf(1), 1, 1),
		VacationSojournQuantileBound(1, 1, 2, 1, 1), VacationMeanSojournBound(1, 1, 0, 1),
		VacationCapacity(math.Inf(1), 1, 2), VacationCapacity(1, 2.5, 2),
	} {
		if !math.IsNaN(v) {
			t.Errorf("invalid input gave %g, want NaN", v)
		}
	}
}

func TestVacationSojournQuantileBound(t *testing.T) {
	// The brief's closed form for mu = +Inf: 300 (1 - 0.01 * 2000/300) = 280;
	// with frac 1/5, 300 - 0.01 * 2000 * 5 = 200; 0 once (1-q) >= frac P/G.
	within(t, "q99 frac 1", VacationSojournQuantileBound(math.Inf(1), 300, 2000, 1, 0.99), 280, 1e-12)
	within(t, "q99 frac 1/5", VacationSojournQuantileBound(math.Inf(1), 300, 2000, 0.2, 0.99), 200, 1e-12)
	if v := VacationSojournQuantileBound(math.Inf(1), 300, 2000, 0.2, 0.9); v != 0 {
		t.Errorf("q90 frac 1/5 = %g, want 0", v)
	}
	// Finite mu: L(bound) = 1 - q, and the bound exceeds the mu = +Inf one.
	for _, q := range []float64{0.5, 0.9, 0.99, 0.999} {
		for _, f := range []float64{1, 0.2} {
			b := VacationSojournQuantileBound(0.1, 300, 2000, f, q)
			closeRel(t, "L(quantile bound)", VacationSojournTailBound(0.1, 300, 2000, f, b), 1-q, 1e-10)
			if inf := VacationSojournQuantileBound(math.Inf(1), 300, 2000, f, q); !(b >= inf) {
				t.Errorf("q=%g f=%g: bound %g below the residual-pause bound %g", q, f, b, inf)
			}
		}
	}
}

func TestVacationCapacity(t *testing.T) {
	closeRel(t, "VacationCapacity", VacationCapacity(0.1, 300, 2000), 0.085, 1e-15)
	if v := VacationCapacity(1, 2, 2); v != 0 {
		t.Errorf("always paused: capacity %g, want 0", v)
	}
}
