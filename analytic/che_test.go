package analytic

import (
	"math"
	"math/rand/v2"
	"testing"
)

// Uniform popularity: LRU holds C of K equally likely keys, so both laws give C/K exactly (Che: K(1 − e^(−t/K)) = C
// makes each key's hit probability C/K).
func TestCheUniform(t *testing.T) {
	p := Zipf(50, 0)
	for _, c := range []int{1, 7, 25, 49} {
		want := float64(c) / 50
		if got := CheHitRatio(p, float64(c)); math.Abs(got-want) > 1e-12 {
			t.Errorf("Che, C = %d: %v, want %v", c, got, want)
		}
		if got := LRUExactHitRatio(p, c); math.Abs(got-want) > 1e-9 {
			t.Errorf("exact, C = %d: %v, want %v", c, got, want)
		}
	}
}

// A cache of one key hits exactly when the previous request had the same key: Σ p_i².
func TestLRUExactOneKey(t *testing.T) {
	p := Zipf(30, 1.2)
	want := 0.0
	for _, x := range p {
		want += x * x
	}
	if got := LRUExactHitRatio(p, 1); math.Abs(got-want) > 1e-9 {
		t.Errorf("C = 1: %v, want Σp² = %v", got, want)
	}
}

// Everything fits: every request but the first of each key hits (stationary ratio 1), for both laws; the root of
// Che's equation solves it.
func TestCheFitsAndRoot(t *testing.T) {
	p := Zipf(20, 0.9)
	if CheHitRatio(p, 20) != 1 || LRUExactHitRatio(p, 25) != 1 {
		t.Error("a cache holding every key must hit always")
	}
	tc := CheTime(p, 5)
	s := 0.0
	for _, x := range p {
		s += 1 - math.Exp(-x*tc)
	}
	if math.Abs(s-5) > 1e-9 {
		t.Errorf("Σ(1 − e^(−p t_C)) = %v at t_C = %v, want 5", s, tc)
	}
}

// The quadrature converged: 32 and 64 nodes per segment agree to 10^-10.
func TestLRUExactQuadrature(t *testing.T) {
	p := Zipf(60, 0.8)
	a, b := lruExact(p, 12, 32), lruExact(p, 12, 64)
	if math.Abs(a-b) > 1e-10 {
		t.Errorf("32 nodes %v, 64 nodes %v", a, b)
	}
}

// The exact law against a direct LRU simulation of the IRM: 20 batches of 50 000 requests after a warm-up of
// 10 000, the exact ratio within 4 standard errors of the batch means (a false alarm about once in 16 000 runs;
// fixed seed). Che's error against the exact law is reported (6.5·10^-5 here; Fricker et al. 2012 explain why it
// is small).
func TestLRUExactAgainstSimulation(t *testing.T) {
	const k, c = 40, 8
	p := Zipf(k, 1)
	cdf := make([]float64, k)
	acc := 0.0
	for i, x := range p {
		acc += x
		cdf[i] = acc
	}
	r := rand.New(rand.NewPCG(16, 3))
	draw := func() int {
		u := r.Float64()
		for i, x := range cdf {
			if u < x {
				return i
			}
		}
		return k - 1
	}
	var cache []int // most recent first
	req := func() bool {
		key := draw()
		for j, x := range cache {
			if x == key {
				copy(cache[1:j+1], cache[:j])
				cache[0] = key
				return true
			}
		}
		if len(cache) < c {
			cache = append(cache, 0)
		}
		copy(cache[1:], cache[:len(cache)-1])
		cache[0] = key
		return false
	}
	for range 10_000 {
		req()
	}
	const batches, size = 20, 50_000
	var m, m2 float64
	for range batches {
		h := 0
		for range size {
			if req() {
				h++
			}
		}
		x := float64(h) / size
		m += x / batches
		m2 += x * x / batches
	}
	se := math.Sqrt((m2 - m*m) * batches / (batches - 1) / batches)
	exact, che := LRUExactHitRatio(p, c), CheHitRatio(p, c)
	t.Logf("simulated %.5f ± %.5f (s.e.), exact %.5f, Che %.5f (error %.2g)", m, se, exact, che, che-exact)
	if math.Abs(m-exact) > 4*se {
		t.Errorf("simulated %v ± %v, exact %v: more than 4 standard errors apart", m, se, exact)
	}
}
