package analytic

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// Exponential service (mean m) has closed forms: P(min(X₁, H + X₂) > x) = e^(−x/m) below H and e^(−(2x − H)/m) from
// H on, so the p-quantile past the kink is (H − m ln(1 − p))/2 and the mean is m(1 − e^(−H/m)) + (m/2)e^(−H/m).
func TestHedgedExponential(t *testing.T) {
	const m, base = 20.0, 20.0
	for _, h := range []float64{0, 10, 30, 75, 200} {
		d := Hedged{Base: base, H: h, S: ExponentialSurvival(m)}
		closeRel(t, "hedge rate", d.HedgeRate(), math.Exp(-math.Max(0, h-base)/m), 1e-15)
		// T − Base = min(X₁, H + X₂): in X's time the kink is at H.
		mean := m*(1-math.Exp(-h/m)) + m/2*math.Exp(-h/m)
		closeRel(t, "mean", d.Mean(), base+mean, 1e-12)
		for _, p := range []float64{0.5, 0.9, 0.99, 0.999} {
			var want float64
			if x := -m * math.Log(1-p); x < h {
				want = x
			} else {
				want = (h - m*math.Log(1-p)) / 2
			}
			closeRel(t, "quantile", d.Quantile(p), base+want, 1e-12)
		}
	}
	// No hedging: T = Base + X.
	d := Hedged{Base: base, H: math.Inf(1), S: ExponentialSurvival(m)}
	closeRel(t, "no hedge p99", d.Quantile(0.99), base-m*math.Log(0.01), 1e-12)
	closeRel(t, "no hedge mean", d.Mean(), base+m, 1e-12)
	within(t, "no hedge rate", d.HedgeRate(), 0, 0)
}

// Lognormal service against 4·10^6 simulated pairs: each quantile estimate's tolerance is 4 standard errors of the
// empirical quantile (√(p(1−p)/n)/f(x_p), with the density f from the survival's finite difference), the mean's 4
// standard errors of the sample mean.
func TestHedgedLognormalMonteCarlo(t *testing.T) {
	const mean, cv, base, n = 20.0, 1.0, 20.0, 4_000_000
	s2 := math.Log1p(cv * cv)
	sigma, mu := math.Sqrt(s2), math.Log(mean)-s2/2
	r := rand.New(rand.NewPCG(1, 2))
	for _, h := range []float64{40, 75.6} {
		d := Hedged{Base: base, H: h, S: LognormalSurvival(mean, cv)}
		xs := make([]float64, n)
		hedged := 0
		sum, sum2 := 0.0, 0.0
		for i := range xs {
			x1 := math.Exp(mu + sigma*r.NormFloat64())
			x2 := math.Exp(mu + sigma*r.NormFloat64())
			tt := base + x1
			if base+x1 > h {
				hedged++
				tt = math.Min(tt, h+base+x2)
			}
			xs[i] = tt
			sum += tt
			sum2 += tt * tt
		}
		slices.Sort(xs)
		rate := float64(hedged) / n
		within(t, "hedge rate", rate, d.HedgeRate(), 4*math.Sqrt(d.HedgeRate()*(1-d.HedgeRate())/n))
		m := sum / n
		sd := math.Sqrt(sum2/n - m*m)
		within(t, "mean", m, d.Mean(), 4*sd/math.Sqrt(n))
		for _, p := range []float64{0.5, 0.95, 0.99} {
			q := d.Quantile(p)
			f := (d.Survival(q-1e-4) - d.Survival(q+1e-4)) / 2e-4
			se := math.Sqrt(p*(1-p)/n) / f
			within(t, "quantile", xs[int(p*n)], q, 4*se)
		}
	}
}

// The hedged p99 is at least H + Base whenever the unhedged one is beyond it: T > t for every t < H + Base as long
// as X₁ is, so hedging at the p95 of the round trip cannot bring the p99 below the delay plus the copy's own hops.
func TestHedgedP99Bound(t *testing.T) {
	const mean, cv, base = 20.0, 1.0, 20.0
	s := LognormalSurvival(mean, cv)
	p95 := Hedged{Base: base, H: math.Inf(1), S: s}.Quantile(0.95)
	d := Hedged{Base: base, H: p95, S: s}
	closeRel(t, "hedge rate at the p95", d.HedgeRate(), 0.05, 1e-9)
	if q := d.Quantile(0.99); q < p95+base {
		t.Errorf("p99 %v below H + Base = %v", q, p95+base)
	}
	t.Logf("lognormal mean 20 cv 1, 4 hops of 5: unhedged p95 %.2f, p99 %.2f; hedged at the p95: p99 %.2f, mean %.2f (unhedged %.2f)",
		p95, Hedged{Base: base, H: math.Inf(1), S: s}.Quantile(0.99), d.Quantile(0.99), d.Mean(), Hedged{Base: base, H: math.Inf(1), S: s}.Mean())
}
