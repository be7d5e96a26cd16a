package analytic

import (
	"math"
	"testing"
)

// One class of unit-rate servers reduces to the identical-server formulas.
func TestHeteroOneClass(t *testing.T) {
	cs := []Class{{Count: 100, Rate: 1}}
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"random mean", RandomHeteroMeanSojourn(0.9, cs), MM1MeanSojourn(0.9, 1)},
		{"random p99", RandomHeteroSojournQuantile(0.9, cs, 0.99), MM1SojournQuantile(0.9, 1, 0.99)},
		{"random s_3", RandomHeteroTail(0.9, cs, 3)[2], MM1Tail(0.9, 3)[2]},
		{"rr mean", RoundRobinHeteroMeanSojourn(0.9, cs), RoundRobinMeanSojourn(0.9, 100)},
		{"rr p99", RoundRobinHeteroSojournQuantile(0.9, cs, 0.99), RoundRobinSojournQuantile(0.9, 100, 0.99)},
		{"rr s_3", RoundRobinHeteroTail(0.9, cs, 3)[2], RoundRobinTail(0.9, 100, 3)[2]},
	} {
		if math.Abs(c.got-c.want) > 1e-12*c.want {
			t.Errorf("%s: %v, want %v", c.name, c.got, c.want)
		}
	}
}

// Rates scale time: a class of rate 2 at λ = 1.8 is the unit-rate queue at 0.9, twice as fast.
func TestHeteroRateScaling(t *testing.T) {
	cs := []Class{{Count: 10, Rate: 2}}
	if got, want := RandomHeteroMeanSojourn(1.8, cs), MM1MeanSojourn(0.9, 1)/2; math.Abs(got-want) > 1e-12 {
		t.Errorf("random mean %v, want %v", got, want)
	}
	if got, want := RoundRobinHeteroMeanSojourn(1.8, cs), RoundRobinMeanSojourn(0.9, 10)/2; math.Abs(got-want) > 1e-12 {
		t.Errorf("round robin mean %v, want %v", got, want)
	}
}

// Two classes, worked by hand: 20 servers at rate 0.5 and 80 at rate 1 with λ = 0.4 per server. Random: M/M/1 means
// 1/(0.5−0.4) = 10 and 1/(1−0.4) = 5/3, mixed 0.2·10 + 0.8·5/3 = 3.3333…; the p99 solves
// 0.2·e^(−0.1t) + 0.8·e^(−0.6t) = 0.01, and at the returned t the equation must hold to 1e-12.
func TestHeteroTwoClasses(t *testing.T) {
	cs := []Class{{Count: 20, Rate: 0.5}, {Count: 80, Rate: 1}}
	if got, want := RandomHeteroMeanSojourn(0.4, cs), 0.2*10+0.8/0.6; math.Abs(got-want) > 1e-12 {
		t.Errorf("mean %v, want %v", got, want)
	}
	q := RandomHeteroSojournQuantile(0.4, cs, 0.99)
	if s := 0.2*math.Exp(-0.1*q) + 0.8*math.Exp(-0.6*q); math.Abs(s-0.01) > 1e-12 {
		t.Errorf("p99 %v: survival %v, want 0.01", q, s)
	}
	if got, want := RandomHeteroTail(0.4, cs, 2)[1], 0.2*0.64+0.8*0.16; math.Abs(got-want) > 1e-12 {
		t.Errorf("s_2 %v, want %v", got, want)
	}
	// Seed 002 §3: 0.72 per server exceeds the slow class's 0.5: no steady state.
	if !math.IsNaN(RandomHeteroMeanSojourn(0.72, cs)) || !math.IsNaN(RoundRobinHeteroMeanSojourn(0.72, cs)) {
		t.Error("λ = 0.72 over a class of rate 0.5 has a mean sojourn; want NaN")
	}
	if tail := RoundRobinHeteroTail(0.72, cs, 2); !math.IsNaN(tail[0]) {
		t.Errorf("unstable tail %v, want NaN", tail)
	}
}
