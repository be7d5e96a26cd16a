package analytic

import (
	"math"
	"testing"
)

// rrRef holds sigma and the mean sojourn T = 1/(1-sigma) of E_n/M/1 (mu = 1),
// computed with mpmath at 50 digits (findroot on 1 - (n l/(n l + x))^n - x = 0,
// x = 1 - sigma, l the float64 lambda converted exactly), and the same two
// numbers from shared/anchors/analytic.py (rr_gim1). analytic.py raises to the
// n-th power in float64, which costs it up to 1e-13 relative in sigma and 1e-11
// in T at lambda = 0.99, so it is checked to 1e-10 only.
var rrRef = []struct {
	n               int
	lambda          float64
	sigma, mean     float64 // mpmath, 20 significant digits
	pySigma, pyMean float64 // analytic.py
}{
	{2, 0.9, 0.86821789367236471346, 7.5882836286878775404, 0.8682178936723635, 7.5882836286878055},
	{10, 0.5, 0.24507927614437170569, 1.3246424007181459796, 0.2450792761443718, 1.3246424007181463},
	{10, 0.9, 0.82333018194163555626, 5.6602763901055307424, 0.8233301819416416, 5.660276390105726},
	{10, 0.99, 0.98186794980069519387, 55.150961364442980102, 0.9818679498005867, 55.15096136411289},
	{100, 0.5, 0.2075189081397663301, 1.2618597595213861679, 0.20751890813976398, 1.2618597595213823},
	{100, 0.9, 0.80867874299980251623, 5.2268107354059867468, 0.8086787429998323, 5.226810735406802},
	{100, 0.99, 0.98026293816923824842, 50.666102613177303715, 0.9802629381693462, 50.66610261345436},
	{1000, 0.5, 0.20362235539513221394, 1.255685674723028998, 0.20362235539511547, 1.2556856747230027},
	{1000, 0.9, 0.80707920686139123274, 5.1834744390747191147, 0.8070792068613253, 5.183474439072947},
	{1000, 0.99, 0.98008666983852590995, 50.217617640603348972, 0.9800866698395827, 50.217617643268376},
}

func TestRoundRobinReference(t *testing.T) {
	// The brief: E_100/M/1 mean sojourn at lambda = 0.9 is 5.2268 (4 d.p.);
	// analytic.py prints sigma = 0.808679, T = 5.2268, p99 = 24.0704.
	sigma, mean, p99 := RoundRobinSigma(0.9, 100), RoundRobinMeanSojourn(0.9, 100), RoundRobinSojournQuantile(0.9, 100, 0.99)
	t.Logf("E_100/M/1, lambda=0.9: sigma = %.12f, T = %.10f, p99 = %.10f", sigma, mean, p99)
	within(t, "sigma(0.9, 100)", sigma, 0.808679, 5e-7)
	within(t, "T(0.9, 100)", mean, 5.2268, 5e-5)
	within(t, "p99(0.9, 100)", p99, 24.0704, 5e-5)
	for _, c := range rrRef {
		sigma, mean := RoundRobinSigma(c.lambda, c.n), RoundRobinMeanSojourn(c.lambda, c.n)
		closeRel(t, "RoundRobinSigma vs mpmath", sigma, c.sigma, 1e-14)
		closeRel(t, "RoundRobinMeanSojourn vs mpmath", mean, c.mean, 1e-12)
		closeRel(t, "RoundRobinSigma vs analytic.py", sigma, c.pySigma, 1e-10)
		closeRel(t, "RoundRobinMeanSojourn vs analytic.py", mean, c.pyMean, 1e-10)
	}
}

func TestRoundRobinSigmaRoot(t *testing.T) {
	// n = 2 has a closed form: dividing sigma (2 lambda + 1 - sigma)^2 = 4 lambda^2 by
	// (sigma - 1) leaves sigma^2 - (4 lambda + 1) sigma + 4 lambda^2 = 0, so
	// sigma = (4 lambda + 1 - sqrt(8 lambda + 1))/2 ((3 - sqrt 5)/2 at lambda = 1/2).
	for _, lambda := range []float64{0.1, 0.5, 0.9, 0.99} {
		want := (4*lambda + 1 - math.Sqrt(8*lambda+1)) / 2
		closeRel(t, "RoundRobinSigma(n=2)", RoundRobinSigma(lambda, 2), want, 1e-13)
	}
	closeRel(t, "RoundRobinSigma(0.5, 2)", RoundRobinSigma(0.5, 2), (3-math.Sqrt(5))/2, 1e-14)
	// The root lies in (0, 1) and satisfies its equation to 1e-13 relative (the
	// right side is evaluated as exp(-n log1p(...)): math.Pow loses about n ulps).
	for _, n := range []int{2, 3, 10, 100, 1000, 1000000} {
		for _, lambda := range []float64{1e-3, 0.1, 0.5, 0.9, 0.99, 0.9999} {
			s := RoundRobinSigma(lambda, n)
			nl := float64(n) * lambda
			rhs := math.Exp(-float64(n) * math.Log1p((1-s)/nl))
			if s == 0 && rhs == 0 {
				continue // sigma ~ exp(-999.5) at lambda = 1e-3, n = 1e6 underflows
			}
			if !(s > 0 && s < 1) || math.Abs(s-rhs) > 1e-13*s {
				t.Errorf("RoundRobinSigma(%g, %d) = %.17g, equation gives %.17g", lambda, n, s, rhs)
			}
		}
	}
	// n -> infinity is D/M/1: sigma = exp(-(1-sigma)/lambda), here solved by
	// fixed-point iteration from 0 (monotone); E_n/M/1 differs by O(1/n).
	for _, lambda := range []float64{0.5, 0.9} {
		d := 0.0
		for range 2000 {
			d = math.Exp(-(1 - d) / lambda)
		}
		within(t, "RoundRobinSigma(n=1e6) vs D/M/1", RoundRobinSigma(lambda, 1000000), d, 1e-5)
	}
	// More servers make each server's arrivals more regular: T falls with n,
	// from the M/M/1 value, and stays above D/M/1's.
	for _, lambda := range []float64{0.5, 0.9, 0.99} {
		prev := math.Inf(1)
		for _, n := range []int{1, 2, 5, 10, 100, 1000} {
			v := RoundRobinMeanSojourn(lambda, n)
			if !(v < prev && v > 1) {
				t.Errorf("RoundRobinMeanSojourn(%g, %d) = %g after %g", lambda, n, v, prev)
			}
			prev = v
		}
	}
	// Heavy traffic (Kingman): T ~ (c_a^2 + c_s^2)/2 / (1 - lambda) with
	// c_a^2 = 1/n, c_s^2 = 1; relative error O(1 - lambda).
	closeRel(t, "RoundRobinMeanSojourn(1-1e-6, 100)", RoundRobinMeanSojourn(1-1e-6, 100), (0.01+1)/2/1e-6, 1e-4)
}

func TestRoundRobinN1(t *testing.T) {
	// n = 1 is M/M/1 (Kleinrock Vol. 1 §3.2).
	for _, lambda := range []float64{0.1, 0.5, 0.9, 0.99} {
		if s := RoundRobinSigma(lambda, 1); s != lambda {
			t.Errorf("RoundRobinSigma(%g, 1) = %g", lambda, s)
		}
		closeRel(t, "RoundRobinMeanSojourn(n=1)", RoundRobinMeanSojourn(lambda, 1), MM1MeanSojourn(lambda, 1), 1e-15)
		closeRel(t, "RoundRobinSojournQuantile(n=1)", RoundRobinSojournQuantile(lambda, 1, 0.99), math.Log(100)/(1-lambda), 1e-14)
		a, b := RoundRobinTail(lambda, 1, 20), MM1Tail(lambda, 20)
		for i := range a {
			closeRel(t, "RoundRobinTail(n=1)", a[i], b[i], 1e-14)
		}
	}
}

func TestRoundRobinTail(t *testing.T) {
	// analytic.py prints s_1..4 = 0.9000 0.7278 0.5886 0.4760 for n = 100,
	// lambda = 0.9 (4 d.p.).
	s := RoundRobinTail(0.9, 100, 4)
	for i, want := range []float64{0.9, 0.7278, 0.5886, 0.4760} {
		within(t, "RoundRobinTail(0.9, 100)", s[i], want, 5e-5)
	}
	// Little's law: sum_i P(Q >= i) = E[Q] = lambda * T.
	for _, n := range []int{2, 10, 100} {
		for _, lambda := range []float64{0.5, 0.9} {
			sum := 0.0
			for _, v := range RoundRobinTail(lambda, n, 1000) {
				sum += v
			}
			closeRel(t, "sum of RoundRobinTail vs lambda T", sum, lambda*RoundRobinMeanSojourn(lambda, n), 1e-12)
		}
	}
	if v := RoundRobinTail(0.5, 3, 0); len(v) != 0 {
		t.Errorf("RoundRobinTail(0.5, 3, 0) has length %d", len(v))
	}
}

func TestRoundRobinInvalid(t *testing.T) {
	for _, l := range badLoads {
		for _, n := range []int{1, 100} {
			if v := RoundRobinSigma(l, n); !math.IsNaN(v) {
				t.Errorf("RoundRobinSigma(%g, %d) = %g, want NaN", l, n, v)
			}
			if v := RoundRobinMeanSojourn(l, n); !math.IsNaN(v) {
				t.Errorf("RoundRobinMeanSojourn(%g, %d) = %g, want NaN", l, n, v)
			}
			if v := RoundRobinSojournQuantile(l, n, 0.5); !math.IsNaN(v) {
				t.Errorf("RoundRobinSojournQuantile(%g, %d, 0.5) = %g, want NaN", l, n, v)
			}
			allNaN(t, "RoundRobinTail", RoundRobinTail(l, n, 3), 3)
		}
	}
	for _, p := range badProbs {
		if v := RoundRobinSojournQuantile(0.5, 10, p); !math.IsNaN(v) {
			t.Errorf("RoundRobinSojournQuantile(0.5, 10, %g) = %g, want NaN", p, v)
		}
	}
	mustPanic(t, "RoundRobinSigma(n=0)", func() { RoundRobinSigma(0.5, 0) })
	mustPanic(t, "RoundRobinMeanSojourn(n=-1)", func() { RoundRobinMeanSojourn(0.5, -1) })
	mustPanic(t, "RoundRobinSojournQuantile(n=0)", func() { RoundRobinSojournQuantile(0.5, 0, 0.5) })
	mustPanic(t, "RoundRobinTail(n=0)", func() { RoundRobinTail(0.5, 0, 3) })
	mustPanic(t, "RoundRobinTail(k<0)", func() { RoundRobinTail(0.5, 2, -1) })
}
