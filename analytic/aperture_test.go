package analytic

import (
	"fmt"
	"testing"
)

// TestApertureCounts: by hand. 300 × 300, a = 30: N = 30 and every backend meets 31 arcs (30 whole, 2 partial
// edges shared). 100 clients × 300 backends, a = 12: N = ⌈1200/300⌉ = 4, counts 4 + 0 or 4 + 1 with 100 at 5.
// 300 × 100, a = 12: N = 36, every count 36 + 3. A full ring (a = B, C ≤ B): every client meets every backend.
func TestApertureCounts(t *testing.T) {
	for _, tc := range []struct{ c, b, a, n, lo, hi, h int }{
		{300, 300, 30, 30, 31, 31, 0},
		{100, 300, 12, 4, 4, 5, 100},
		{300, 100, 12, 36, 39, 39, 0},
		{5, 5, 5, 5, 5, 5, 0},
		{2, 1, 1, 2, 2, 2, 0},
		{7, 3, 1, 3, 5, 6, 1},
	} {
		n := ApertureUnits(tc.c, tc.b, tc.a)
		lo, hi, h := ApertureCounts(tc.c, tc.b, tc.a)
		if n != tc.n || lo != tc.lo || hi != tc.hi || h != tc.h {
			t.Errorf("c=%d b=%d a=%d: N=%d counts (%d, %d, %d), want N=%d (%d, %d, %d)", tc.c, tc.b, tc.a, n, lo, hi, h, tc.n, tc.lo, tc.hi, tc.h)
		}
	}
	mustPanic(t, "a > b", func() { ApertureUnits(3, 2, 3) })
}

// TestLoadBandAperture drives Finagle's LoadBand rule (widen by one while load/a ≥ high and a < b, else narrow by
// one while load/a ≤ low and a > m) from a = m under an averaged load rising from 0 to `load` in small steps and
// then held: it must end at LoadBandAperture's a when that is stable, and alternate between a − 1 and a when not.
func TestLoadBandAperture(t *testing.T) {
	for _, band := range [][2]float64{{0.5, 2}, {0.875, 1.125}} {
		for _, m := range []int{1, 12} {
			for _, load := range []float64{0, 0.3, 1, 1.5, 2, 3, 3.9, 4, 10, 23.99, 24, 100, 511, 2000} {
				const b = 300
				a := m
				step := func(ema float64) {
					switch avg := ema / float64(a); {
					case avg >= band[1] && a < b:
						a++
					case avg <= band[0] && a > m:
						a--
					}
				}
				for i := range 20000 {
					step(load * float64(i) / 20000)
				}
				seen := map[int]bool{}
				for range 1000 {
					step(load)
					seen[a] = true
				}
				want, stable := LoadBandAperture(load, band[0], band[1], m, b)
				id := fmt.Sprintf("band %v m=%d load %v", band, m, load)
				if stable && (len(seen) != 1 || !seen[want]) {
					t.Errorf("%s: controller visits %v, want %d held", id, seen, want)
				}
				if !stable && (len(seen) != 2 || !seen[want] || !seen[want-1]) {
					t.Errorf("%s: controller visits %v, want %d and %d alternating", id, seen, want-1, want)
				}
			}
		}
	}
}

// Finagle 24.2.0's default deterministic aperture (12) at 100 clients × 300 backends: each client's arc covers 4
// client units, 12 backends' worth, and meets 12 or 13 backends; the backends have 4 or 5 connections each but
// exactly the same request load. The load band [0.5, 2] at 100 requests in flight per client gives a = 51.
func ExampleApertureCounts() {
	n := ApertureUnits(100, 300, 12)
	lo, hi, h := ApertureCounts(100, 300, 12)
	a, stable := LoadBandAperture(100, 0.5, 2, 1, 300)
	fmt.Printf("N=%d width=%v backends; counts %d on %d backends, %d on %d; load band: a=%d (stable %v)\n", n, float64(n)*300/100, lo, 300-h, hi, h, a, stable)
	// Output:
	// N=4 width=12 backends; counts 4 on 200 backends, 5 on 100; load band: a=51 (stable true)
}
