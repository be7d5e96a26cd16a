package analytic

import (
	"math"
	"testing"
)

func TestJSQdTail(t *testing.T) {
	s := JSQdTail(0.9, 2, 10)
	// Seed document 002 §1: "s_4 ... theory 0.2059; s_6 ... 0.00131" (d = 2,
	// lambda = 0.9), i.e. 0.9^15 and 0.9^63; 4 d.p. and 3 significant digits.
	within(t, "s_4(d=2, 0.9)", s[3], 0.2059, 5e-5)
	within(t, "s_6(d=2, 0.9)", s[5], 0.00131, 5e-6)
	// Exact exponents (d^i-1)/(d-1) = 1, 3, 7, 15, 31, 63, ...
	for i := range s {
		closeRel(t, "JSQdTail(0.9, 2)", s[i], math.Pow(0.9, math.Pow(2, float64(i+1))-1), 1e-13)
	}
	// d = 3, lambda = 0.9: 0.9 0.6561 0.2542 0.01478 2.906e-06, printed by
	// shared/anchors/analytic.py (4 significant digits).
	s3 := JSQdTail(0.9, 3, 5)
	for i, want := range []float64{0.9, 0.6561, 0.2542, 0.01478, 2.906e-06} {
		closeRel(t, "JSQdTail(0.9, 3)", s3[i], want, 5e-4)
	}
	// The fixed-point relation s_{i+1} = lambda * s_i^d (s_0 = 1).
	for _, d := range []int{2, 3, 5} {
		s := JSQdTail(0.95, d, 6)
		prev := 1.0
		for _, v := range s {
			closeRel(t, "s_{i+1} = lambda s_i^d", v, 0.95*math.Pow(prev, float64(d)), 1e-12)
			prev = v
		}
	}
	// d = 1 is M/M/1.
	for _, lambda := range []float64{0.3, 0.9, 0.999} {
		a, b := JSQdTail(lambda, 1, 50), MM1Tail(lambda, 50)
		for i := range a {
			closeRel(t, "JSQdTail(d=1) vs MM1Tail", a[i], b[i], 1e-15)
		}
	}
	if v := JSQdTail(0.5, 2, 0); len(v) != 0 {
		t.Errorf("JSQdTail(0.5, 2, 0) has length %d", len(v))
	}
}

func TestJSQdTailNoOverflow(t *testing.T) {
	// Exponents far beyond float64 range must give 0, never NaN or Inf.
	for _, c := range []struct {
		lambda float64
		d, k   int
	}{{0.5, 1000, 100}, {0.999999, 10, 2000}, {1 - 1e-15, 2, 3000}, {1e-300, 2, 100}} {
		s := JSQdTail(c.lambda, c.d, c.k)
		prev := 1.0
		for i, v := range s {
			if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 || v > prev {
				t.Fatalf("JSQdTail(%g, %d, %d)[%d] = %g (previous %g)", c.lambda, c.d, c.k, i, v, prev)
			}
			prev = v
		}
		if s[len(s)-1] != 0 {
			t.Errorf("JSQdTail(%g, %d, %d): last element %g, want 0 after underflow", c.lambda, c.d, c.k, s[len(s)-1])
		}
	}
}

// jsqdRef holds T_d(lambda) and the p50 and p99 of the mean-field sojourn time,
// computed with shared/anchors/analytic.py (fixed_point_T and
// fixed_point_percentile; bisection to full double precision). For d = 2,
// lambda = 0.9 an mpmath check at 40 digits gives T = 2.614057377323875774 and
// p99 = 8.7909702049556133508, both within 1e-15 relative of the table.
var jsqdRef = []struct {
	d              int
	lambda         float64
	mean, p50, p99 float64
}{
	{2, 0.5, 1.2656860360875726, 0.9015868623694392, 5.575362841125953},
	{2, 0.9, 2.614057377323876, 2.201872428876098, 8.790970204955613},
	{2, 0.99, 5.431996579161876, 5.102159396609187, 13.496774890967778},
	{3, 0.5, 1.125244140626819, 0.7870539801384255, 5.100301129028489},
	{3, 0.9, 2.0278559689952793, 1.6471900687542793, 7.309382681669273},
	{3, 0.99, 3.8578465196583944, 3.5133954319716425, 10.526556124383049},
	{5, 0.5, 1.0312500009313226, 0.7152526902732879, 4.7433927116485055},
	{5, 0.9, 1.6328812391082657, 1.2732332568441174, 6.324834249860135},
	{5, 0.99, 2.9016828291741463, 2.5531570709345477, 8.709924821589382},
}

func TestJSQdMeanSojourn(t *testing.T) {
	// Seed document 002 §2: "T_2(0.9) = 2.614, T_3(0.9) = 2.028"; to 4 d.p.
	// (2.6141, 2.0279) in the T table of shared/anchors/analytic.py.
	t2, t3 := JSQdMeanSojourn(0.9, 2), JSQdMeanSojourn(0.9, 3)
	t.Logf("T_2(0.9) = %.10f, T_3(0.9) = %.10f", t2, t3)
	within(t, "T_2(0.9)", t2, 2.6141, 5e-5)
	within(t, "T_3(0.9)", t3, 2.0279, 5e-5)
	for _, c := range jsqdRef {
		closeRel(t, "JSQdMeanSojourn vs analytic.py", JSQdMeanSojourn(c.lambda, c.d), c.mean, 1e-12)
	}
	// d = 1: M/M/1.
	for _, lambda := range []float64{0.1, 0.5, 0.9, 0.99} {
		closeRel(t, "JSQdMeanSojourn(d=1)", JSQdMeanSojourn(lambda, 1), MM1MeanSojourn(lambda, 1), 1e-15)
	}
	// More choices never hurt, and T_d -> 1 (service only) as d grows (T_64(0.5)
	// rounds to exactly 1, hence <= and >=).
	for _, lambda := range []float64{0.5, 0.9, 0.999} {
		prev := math.Inf(1)
		for d := 1; d <= 64; d *= 2 {
			v := JSQdMeanSojourn(lambda, d)
			if !(v <= prev && v >= 1) {
				t.Errorf("JSQdMeanSojourn(%g, %d) = %g, previous %g", lambda, d, v, prev)
			}
			prev = v
		}
	}
	// Finite close to lambda = 1.
	if v := JSQdMeanSojourn(1-1e-15, 2); math.IsNaN(v) || math.IsInf(v, 0) || v < 1 {
		t.Errorf("JSQdMeanSojourn(1-1e-15, 2) = %g", v)
	}
}

func TestJSQdSojournQuantile(t *testing.T) {
	// p99 for d = 2, lambda = 0.9: 8.7910 in the p99 table of
	// shared/anchors/analytic.py; the brief states 8.791 (3 d.p.).
	p99 := JSQdSojournQuantile(0.9, 2, 0.99)
	t.Logf("p99 JSQ(2), lambda=0.9: %.10f", p99)
	within(t, "p99(d=2, 0.9)", p99, 8.791, 5e-4)
	for _, c := range jsqdRef {
		closeRel(t, "p50 vs analytic.py", JSQdSojournQuantile(c.lambda, c.d, 0.5), c.p50, 1e-10)
		closeRel(t, "p99 vs analytic.py", JSQdSojournQuantile(c.lambda, c.d, 0.99), c.p99, 1e-10)
	}
	// d = 1: M/M/1, p99 = ln(100)/(1-lambda).
	for _, lambda := range []float64{0.5, 0.9, 0.99} {
		closeRel(t, "p99(d=1)", JSQdSojournQuantile(lambda, 1, 0.99), math.Log(100)/(1-lambda), 1e-14)
	}
	// CDF(quantile(p)) == p, including far tails (0 < p < 1).
	for _, d := range []int{2, 3} {
		for _, p := range []float64{1e-9, 1e-3, 0.1, 0.5, 0.9, 0.999, 1 - 1e-9} {
			q := JSQdSojournQuantile(0.9, d, p)
			closeRel(t, "CDF(quantile(p))", JSQdSojournCDF(0.9, d, q), p, 1e-9)
		}
	}
	for _, p := range badProbs {
		if v := JSQdSojournQuantile(0.9, 2, p); !math.IsNaN(v) {
			t.Errorf("JSQdSojournQuantile(0.9, 2, %g) = %g, want NaN", p, v)
		}
	}
}

func TestJSQdSojournCDF(t *testing.T) {
	// P(T > 3) and P(T > 10) for d = 2, lambda = 0.9, computed with
	// shared/anchors/analytic.py (fixed_point_sojourn_tail, Poisson sums).
	within(t, "1-CDF(3)", 1-JSQdSojournCDF(0.9, 2, 3), 0.3483581061418186, 1e-13)
	within(t, "1-CDF(10)", 1-JSQdSojournCDF(0.9, 2, 10), 0.004207592194181543, 1e-13)

	for _, d := range []int{1, 2, 3, 10} {
		for _, lambda := range []float64{0.3, 0.9, 0.99} {
			if v := JSQdSojournCDF(lambda, d, 0); v != 0 {
				t.Errorf("CDF(%g, %d, 0) = %g, want 0", lambda, d, v)
			}
			if v := JSQdSojournCDF(lambda, d, -1); v != 0 {
				t.Errorf("CDF(%g, %d, -1) = %g, want 0", lambda, d, v)
			}
			if v := JSQdSojournCDF(lambda, d, math.Inf(1)); v != 1 {
				t.Errorf("CDF(%g, %d, +Inf) = %g, want 1", lambda, d, v)
			}
			// Monotone on a grid, tends to 1.
			prev := 0.0
			for x := 0.05; x < 400; x *= 1.3 {
				v := JSQdSojournCDF(lambda, d, x)
				if !(v >= prev && v <= 1) {
					t.Fatalf("CDF(%g, %d, %g) = %.17g after %.17g", lambda, d, x, v, prev)
				}
				prev = v
			}
			if 1-JSQdSojournCDF(lambda, d, 5000) > 1e-12 {
				t.Errorf("CDF(%g, %d, 5000) = %.17g, want ~1", lambda, d, JSQdSojournCDF(lambda, d, 5000))
			}
			// quantile(CDF(t)) == t.
			for _, x := range []float64{0.01, 0.5, 1, 2.5, 7, 15} {
				c := JSQdSojournCDF(lambda, d, x)
				if c >= 1-1e-6 {
					continue // the CDF is too flat to invert to 1e-10 here
				}
				closeRel(t, "quantile(CDF(t))", JSQdSojournQuantile(lambda, d, c), x, 1e-10)
			}
		}
	}
	// d = 1 is Exp(1-lambda).
	for _, x := range []float64{0.1, 1, 10, 100} {
		closeRel(t, "CDF(d=1)", JSQdSojournCDF(0.9, 1, x), 1-math.Exp(-0.1*x), 1e-14)
	}
	if v := JSQdSojournCDF(0.9, 2, math.NaN()); !math.IsNaN(v) {
		t.Errorf("CDF(NaN t) = %g, want NaN", v)
	}
}

// TestJSQdMixtureD1 checks the mixture machinery itself against M/M/1: with
// d = 1 the weights are geometric, (1-lambda) lambda^k, and the mixture of
// Erlang(k+1, 1) is Exp(1-lambda) exactly (Kleinrock Vol. 1 §3.2). The
// exported functions short-cut d = 1 with closed forms, so this test calls the
// mixture directly.
func TestJSQdMixtureD1(t *testing.T) {
	for _, lambda := range []float64{0.5, 0.9} {
		m := newJSQdMixture(lambda, 1)
		for k, w := range m.w[:10] {
			closeRel(t, "geometric weight", w, (1-lambda)*math.Pow(lambda, float64(k)), 1e-13)
		}
		for _, x := range []float64{0.1, 1, 5, 20, 60} {
			within(t, "mixture CDF(d=1)", m.cdf(x), -math.Expm1(-(1-lambda)*x), 1e-12)
		}
		closeRel(t, "mixture p99(d=1)", m.quantile(0.99), math.Log(100)/(1-lambda), 1e-11)
		closeRel(t, "mixture mean(d=1)", m.mean(), 1/(1-lambda), 1e-12)
	}
}

// TestJSQdLittle checks Little's law consistency: the mean of the sojourn
// mixture, sum_k p_k (k+1) = sum_{k>=0} s_k^d = (1/lambda) sum_{i>=1} s_i,
// equals T_d; and the weights sum to 1.
func TestJSQdLittle(t *testing.T) {
	for _, d := range []int{2, 3, 5, 20} {
		for _, lambda := range []float64{0.1, 0.5, 0.9, 0.99, 0.9999} {
			m := newJSQdMixture(lambda, d)
			closeRel(t, "mixture mean vs T_d", m.mean(), JSQdMeanSojourn(lambda, d), 1e-12)
			sum := m.rem
			for _, w := range m.w {
				sum += w
			}
			within(t, "total weight", sum, 1, 1e-14)
		}
	}
}

func TestJSQdInvalid(t *testing.T) {
	for _, l := range badLoads {
		allNaN(t, "JSQdTail", JSQdTail(l, 2, 4), 4)
		if v := JSQdMeanSojourn(l, 2); !math.IsNaN(v) {
			t.Errorf("JSQdMeanSojourn(%g, 2) = %g, want NaN", l, v)
		}
		if v := JSQdSojournCDF(l, 2, 1); !math.IsNaN(v) {
			t.Errorf("JSQdSojournCDF(%g, 2, 1) = %g, want NaN", l, v)
		}
		if v := JSQdSojournQuantile(l, 2, 0.5); !math.IsNaN(v) {
			t.Errorf("JSQdSojournQuantile(%g, 2, 0.5) = %g, want NaN", l, v)
		}
	}
	mustPanic(t, "JSQdTail(d=0)", func() { JSQdTail(0.5, 0, 3) })
	mustPanic(t, "JSQdTail(k<0)", func() { JSQdTail(0.5, 2, -1) })
	mustPanic(t, "JSQdMeanSojourn(d=0)", func() { JSQdMeanSojourn(0.5, 0) })
	mustPanic(t, "JSQdSojournCDF(d=-1)", func() { JSQdSojournCDF(0.5, -1, 1) })
	mustPanic(t, "JSQdSojournQuantile(d=0)", func() { JSQdSojournQuantile(0.5, 0, 0.5) })
	// A programmer error panics even when the load is also invalid.
	mustPanic(t, "JSQdMeanSojourn(NaN, 0)", func() { JSQdMeanSojourn(math.NaN(), 0) })
}
