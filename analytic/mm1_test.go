package analytic

import (
	"math"
	"testing"
)

func TestMM1MeanSojourn(t *testing.T) {
	// 1/(mu-lambda), Kleinrock Vol. 1 §3.2; values by hand.
	for _, c := range []struct{ lambda, mu, want float64 }{
		{0.5, 1, 2},
		{0.9, 1, 10},
		{0.99, 1, 100},
		{1, 4, 1.0 / 3},
	} {
		closeRel(t, "MM1MeanSojourn", MM1MeanSojourn(c.lambda, c.mu), c.want, 1e-12)
	}
	for _, c := range [][2]float64{{0, 1}, {1, 1}, {2, 1}, {-1, 1}, {0.5, 0}, {0.5, -1}, {math.NaN(), 1}, {0.5, math.NaN()}, {0.5, math.Inf(1)}} {
		if v := MM1MeanSojourn(c[0], c[1]); !math.IsNaN(v) {
			t.Errorf("MM1MeanSojourn(%g, %g) = %g, want NaN", c[0], c[1], v)
		}
	}
}

func TestMM1SojournQuantile(t *testing.T) {
	// p99 of Exp(1-lambda) is ln(100)/(1-lambda); 46.0517 at lambda = 0.9 also in
	// the p99 table printed by shared/anchors/analytic.py (d = 1 row).
	for _, lambda := range []float64{0.1, 0.5, 0.9, 0.99} {
		closeRel(t, "MM1SojournQuantile p99", MM1SojournQuantile(lambda, 1, 0.99), math.Log(100)/(1-lambda), 1e-14)
	}
	within(t, "MM1SojournQuantile(0.9, 1, 0.99)", MM1SojournQuantile(0.9, 1, 0.99), 46.0517, 5e-5) // 4 d.p.
	// Median of Exp(rate 2): ln 2 / 2.
	closeRel(t, "MM1SojournQuantile median", MM1SojournQuantile(1, 3, 0.5), math.Ln2/2, 1e-15)
	for _, p := range badProbs {
		if v := MM1SojournQuantile(0.5, 1, p); !math.IsNaN(v) {
			t.Errorf("MM1SojournQuantile(0.5, 1, %g) = %g, want NaN", p, v)
		}
	}
	for _, l := range badLoads {
		if v := MM1SojournQuantile(l, 1, 0.5); !math.IsNaN(v) {
			t.Errorf("MM1SojournQuantile(%g, 1, 0.5) = %g, want NaN", l, v)
		}
	}
}

func TestMM1Tail(t *testing.T) {
	// lambda^i; the d = 1 row at lambda = 0.9 printed by shared/anchors/analytic.py
	// is 0.9 0.81 0.729 0.6561 0.5905 (4 significant digits).
	got := MM1Tail(0.9, 5)
	want := []float64{0.9, 0.81, 0.729, 0.6561, 0.59049}
	if len(got) != len(want) {
		t.Fatalf("len = %d, want %d", len(got), len(want))
	}
	for i := range want {
		closeRel(t, "MM1Tail(0.9)", got[i], want[i], 1e-14)
	}
	if s := MM1Tail(0.5, 0); len(s) != 0 {
		t.Errorf("MM1Tail(0.5, 0) has length %d", len(s))
	}
	for _, l := range badLoads {
		allNaN(t, "MM1Tail", MM1Tail(l, 3), 3)
	}
	mustPanic(t, "MM1Tail(k<0)", func() { MM1Tail(0.5, -1) })
}
