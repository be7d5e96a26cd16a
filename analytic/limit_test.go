package analytic

import (
	"math"
	"testing"
)

// The knee: c workers at rate mu, saturated with no queue, hold c (Little's law).
func TestLittleLimitKnee(t *testing.T) {
	for _, c := range []int{1, 4, 16} {
		mu := 0.05
		closeRel(t, "LittleLimit(c·mu, 1/mu)", LittleLimit(float64(c)*mu, 1/mu), float64(c), 1e-15)
	}
	if !math.IsNaN(LittleLimit(-1, 1)) || !math.IsNaN(LittleLimit(1, math.Inf(1))) {
		t.Error("LittleLimit of a negative or infinite argument is not NaN")
	}
}

// The fluid limit is a fixed point of Gradient2Limit's update with g = clamp(tolerance·c/L, 0.5, 1), whatever the
// smoothing, on both sides of the clamp.
func TestGradient2FluidLimitFixedPoint(t *testing.T) {
	for _, x := range []struct {
		c      int
		tol, q float64
	}{{4, 1.5, 4}, {4, 1, 4}, {1, 1.5, 4}, {16, 2, 0}} {
		L := Gradient2FluidLimit(x.c, x.tol, x.q)
		g := math.Max(0.5, math.Min(1, x.tol*float64(x.c)/L))
		for _, s := range []float64{0.2, 1} {
			within(t, "Gradient2 update at the fluid limit", (1-s)*L+s*(L*g+x.q), L, 1e-12*L)
		}
	}
	within(t, "Gradient2FluidLimit(4, 1.5, 4)", Gradient2FluidLimit(4, 1.5, 4), 10, 0)
	within(t, "Gradient2FluidLimit(1, 1.5, 4): the clamp", Gradient2FluidLimit(1, 1.5, 4), 8, 0)
}

// Averaged over the admitted arrivals' j, the conditional tails are MMcKSojournTail (an identity: both are the same
// mixture, computed independently).
func TestSojournTailGivenMixture(t *testing.T) {
	for _, x := range []struct {
		lam, mu float64
		c, K    int
	}{{0.25, 0.05, 4, 9}, {0.25, 0.05, 4, 20}, {0.06, 0.05, 1, 7}, {1.2, 1, 2, 2}} {
		w := admitted(x.lam, x.mu, x.c, x.K)
		for _, tt := range []float64{0, 5, 20, 60, 200} {
			sum := 0.0
			for j, q := range w {
				sum += q * SojournTailGiven(j, x.c, x.mu, tt)
			}
			within(t, "mixture of SojournTailGiven", sum, MMcKSojournTail(x.lam, x.mu, x.c, x.K, tt), 1e-12)
		}
	}
}

// meanGradient's by-parts form against a direct midpoint integral of E[clamp(a/S, 0.5, 1)] for S ~ Exp(mu) (j < c):
// P(S ≤ a) + ∫_a^{2a} (a/s) mu e^(−mu s) ds + P(S > 2a)/2, the integral on 10^6 midpoints (error below 10^-10 for
// this smooth integrand); Simpson's rule on 256 intervals errs below 10^-9 here.
func TestMeanGradientByParts(t *testing.T) {
	mu := 0.05
	for _, a := range []float64{3, 8.7, 30} {
		const n = 1_000_000
		h := a / n
		sum := 0.0
		for i := range n {
			s := a + (float64(i)+0.5)*h
			sum += a / s * mu * math.Exp(-mu*s) * h
		}
		want := 1 - math.Exp(-mu*a) + sum + 0.5*math.Exp(-2*mu*a)
		within(t, "meanGradient", meanGradient(0, 4, mu, a), want, 1e-9)
	}
}

// The experiment's fleet (model/resilience, experiments/adaptive.toml): 4 workers of 20 ms (mu = 0.05/ms) offered
// 250 requests/s (0.25/ms, 1.25 times their capacity). Reference values computed with an independent Python script
// (the same mean field, with its own convolution, Simpson's rule on 200 intervals and a scan by 0.1): AIMD's drift
// +0.1526 at 20 and −0.3229 at 21 (the crossing at 20.32); Gradient2 unqueued: b = 5.801, L = 9.0 (to its scan's 0.1).
func TestMeanFieldLimitsOfTheFleet(t *testing.T) {
	lam, mu, c := 0.25, 0.05, 4
	within(t, "AIMDDrift(20)", AIMDDrift(lam, mu, c, 20, 100, 0.9), 0.1526, 5e-5)
	within(t, "AIMDDrift(21)", AIMDDrift(lam, mu, c, 21, 100, 0.9), -0.3229, 5e-5)
	a := AIMDMeanFieldLimit(lam, mu, c, 100, 0.9, 1, 200)
	within(t, "AIMDMeanFieldLimit", a, 20.321, 1e-3)
	L, b := Gradient2MeanFieldLimit(lam, mu, c, 1.5, 4, 600, 1, 200)
	within(t, "Gradient2MeanFieldLimit baseline", b, 5.8011, 1e-3)
	within(t, "Gradient2MeanFieldLimit limit", L, 9.0, 0.1)
	// Here the sign changes at an integer, where the admission's ⌊L⌋ steps from 8 to 9: the limit straddles it.
	if lo, hi := Gradient2Drift(lam, mu, c, L-1e-3, 1.5, 4, b), Gradient2Drift(lam, mu, c, L+1e-3, 1.5, 4, b); !(lo > 0 && hi <= 0) {
		t.Errorf("Gradient2Drift around the fixed point %v: %v, %v; want > 0 below, ≤ 0 above", L, lo, hi)
	}
	t.Logf("AIMD %.4f; Gradient2 unqueued L %.4f b %.4f; fluid %v; knee %v", a, L, b, Gradient2FluidLimit(c, 1.5, 4), LittleLimit(float64(c)*mu, 1/mu))
}
