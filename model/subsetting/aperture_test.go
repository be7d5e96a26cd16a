package subsetting

import (
	"context"
	"math"
	"testing"

	"lbsweep/analytic"
	"lbsweep/model"
)

// apertureCases are (C, B, a) for the aperture tests: C = B, B dividing C, C dividing B, neither, arcs covering
// almost all or all of the ring, a single backend or client.
var apertureCases = []struct{ c, b, a int }{
	{300, 300, 30}, {300, 300, 12}, {300, 300, 1}, {300, 300, 300}, {100, 300, 12}, {300, 100, 12}, {7, 300, 30},
	{1000, 64, 8}, {999, 64, 16}, {13, 7, 3}, {2, 1, 1}, {1, 5, 2}, {5, 3, 3}, {40, 50, 49},
	{5, 2, 1}, {10, 3, 2}, // N < C, but an arc wraps to meet a backend at both ends: every count capped at C
}

// TestApertureExact: deterministic aperture's counts are exactly those of analytic.ApertureCounts (lo on B − h
// backends, hi on h) and every backend's summed overlap is exactly 2·N·C (units of 1/(2BC)), so its request load is
// exactly C/B, on every run (every rotation): equalities, not tolerances. The row and the theory columns say the
// same.
func TestApertureExact(t *testing.T) {
	for _, tc := range apertureCases {
		lo, hi, h := analytic.ApertureCounts(tc.c, tc.b, tc.a)
		n := analytic.ApertureUnits(tc.c, tc.b, tc.a)
		for seed := range uint64(20) {
			cfg := config{c: tc.c, b: tc.b, k: tc.a, scheme: aperture}
			count, load, err := connect(context.Background(), cfg, seed)
			if err != nil {
				t.Fatal(err)
			}
			high := 0
			for j, x := range count {
				switch int(x) {
				case lo:
				case hi:
					high++
				default:
					t.Fatalf("%+v seed %d: backend %d has %d clients, want %d or %d", tc, seed, j, x, lo, hi)
				}
				if want := 2 * int64(n) * int64(tc.c); load[j] != want {
					t.Fatalf("%+v seed %d: backend %d has overlap %d, want 2NC = %d", tc, seed, j, load[j], want)
				}
			}
			if lo != hi && high != h {
				t.Fatalf("%+v seed %d: %d backends at %d, want C mod B = %d", tc, seed, high, hi, h)
			}
		}
		b := run(t, point(tc.c, tc.b, tc.a, aperture), 1)
		for _, col := range []struct {
			name      string
			got, want float64
		}{
			{"load_min_ratio", b.Get(colLoadMin).F, 1},
			{"load_max_ratio", b.Get(colLoadMax).F, 1},
			{"load_std_ratio", b.Get(colLoadStd).F, 0},
			{"min_ratio − theory", b.Get(colMinRatio).F - b.Get(colThMinRatio).F, 0},
			{"max_ratio − theory", b.Get(colMaxRatio).F - b.Get(colThMaxRatio).F, 0},
			{"min_connections", float64(b.Get(colMin).I), float64(lo)},
			{"max_connections", float64(b.Get(colMax).I), float64(hi)},
			{"idle_backends", float64(b.Get(colIdle).I), 0},
			{"aperture_width", b.Get(colWidth).F, float64(n) * float64(tc.b) / float64(tc.c)},
		} {
			if col.got != col.want {
				t.Errorf("%+v: %s = %v, want %v", tc, col.name, col.got, col.want)
			}
		}
		if b.Get(colTheorySource).S != SourceAperture {
			t.Errorf("%+v: theory_source %q", tc, b.Get(colTheorySource).S)
		}
	}
}

// finagleRing computes, per backend, the connections and the summed weight (overlap in backends' widths) of C
// deterministic apertures of logical size a rotated by phi, the way Finagle 24.2.0 describes them in floating point:
// ProcessCoordinate.FromInstanceId's offset (i/C + phi) mod 1, DeterministicAperture.dApertureWidth's width
// min(1, ⌈a·(1/B)/(1/C)⌉·(1/C)), Ring.range's count of the backends [offset, offset + width) meets (all of them
// when 1 − width ≤ 1e-6, else with the end pulled in by a factor 1 − 1e-6) and Ring.weight's overlap. An
// independent check of arcs, written from Finagle's description rather than from this package's integer method.
func finagleRing(c, b, a int, phi float64) (count []int, weight []float64) {
	const eps = 1e-6
	count, weight = make([]int, b), make([]float64, b)
	unit, ringUnit := 1/float64(c), 1/float64(b)
	width := math.Min(1, math.Ceil(float64(a)*ringUnit/unit)*unit)
	index := func(x float64) int { return int(math.Floor(x*float64(b))) % b }
	for i := range c {
		offset := math.Mod(float64(i)*unit+phi, 1)
		r := b
		if 1-width > eps {
			ab, ae := index(offset), index(math.Mod((offset+width)*(1-eps), 1))
			if r = ae - ab + 1; r < 0 {
				r += b
			}
		}
		for k := range r {
			j := (index(offset) + k) % b
			count[j]++
			lo := float64(j) * ringUnit
			if lo+1 < offset+width {
				lo++
			}
			weight[j] += math.Max(0, math.Min(lo+ringUnit, offset+width)-math.Max(lo, offset)) / ringUnit
		}
	}
	return count, weight
}

// TestApertureAgainstFinagleRing: the integer arcs agree with Finagle's floating-point ring at the same rotation:
// the same connections per backend, and weights within 1e-9 of a backend's width. The cases keep the rotation's
// distance from a backend boundary, 1/(2BC) of the ring, far above Finagle's 1e-6 end tolerance; arcs that wrap to
// meet one backend at both ends (a count Finagle's range would give twice) are left out.
func TestApertureAgainstFinagleRing(t *testing.T) {
	for _, tc := range []struct{ c, b, a int }{{300, 300, 30}, {100, 300, 12}, {300, 100, 12}, {13, 7, 3}, {64, 20, 5}, {7, 30, 4}} {
		n := analytic.ApertureUnits(tc.c, tc.b, tc.a)
		for _, r := range []int{0, 1, tc.b*tc.c/3 + 7, tc.b*tc.c - 1} {
			cfg := config{c: tc.c, b: tc.b, k: tc.a, scheme: aperture}
			count := make([]int32, tc.b)
			load, err := arcs(cfg, r, count, make([]int32, tc.b), func(int) error { return nil })
			if err != nil {
				t.Fatal(err)
			}
			fc, fw := finagleRing(tc.c, tc.b, tc.a, (float64(r)+0.5)/float64(tc.b*tc.c))
			for j := range tc.b {
				w := float64(load[j]) / float64(2*tc.c) // overlap in backend widths
				if int(count[j]) != fc[j] || math.Abs(w-fw[j]) > 1e-9 {
					t.Fatalf("%+v r=%d (N=%d): backend %d: %d connections, weight %v; Finagle's ring: %d, %v", tc, r, n, j, count[j], w, fc[j], fw[j])
				}
			}
		}
	}
}

// TestRandomApertureIsRandom: random_aperture at a given aperture draws the random scheme's subsets (the same
// stream), so the same seed gives the same counts.
func TestRandomApertureIsRandom(t *testing.T) {
	a, _, err := connect(context.Background(), config{c: 300, b: 300, k: 40, scheme: random}, 5)
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := connect(context.Background(), config{c: 300, b: 300, k: 40, scheme: randomAperture}, 5)
	if err != nil {
		t.Fatal(err)
	}
	for j := range a {
		if a[j] != b[j] {
			t.Fatalf("backend %d: random %d, random_aperture %d", j, a[j], b[j])
		}
	}
}

// TestApertureSize: the logical aperture from subset_size, from client_load through the load band (with its
// nulls), or from min_aperture (Finagle's 12 for aperture, 1 for random_aperture), clamped to B.
func TestApertureSize(t *testing.T) {
	f, i := model.FloatValue, func(v int64) model.Value { return model.IntValue(v) }
	null := model.Value{}
	for _, tc := range []struct {
		name                string
		s                   scheme
		b                   int
		k, load, lo, hi, mn model.Value
		want                int
	}{
		{"given", aperture, 300, i(30), null, null, null, null, 30},
		{"d-aperture default: min(12, B)", aperture, 300, null, null, null, null, null, 12},
		{"d-aperture default, B < 12", aperture, 5, null, null, null, null, null, 5},
		{"random aperture default: 1", randomAperture, 300, null, null, null, null, null, 1},
		{"load 101, band [0.5, 2]: ⌊101/2⌋ + 1", randomAperture, 300, null, f(101), null, null, null, 51},
		{"load 100 exactly at 2 per endpoint widens", randomAperture, 300, null, f(100), null, null, null, 51},
		{"load 99.9", randomAperture, 300, null, f(99.9), null, null, null, 50},
		{"load 100, band [0.875, 1.125]", randomAperture, 300, null, f(100), f(0.875), f(1.125), null, 89},
		{"load 10, d-aperture min 12", aperture, 300, null, f(10), null, null, null, 12},
		{"load 10, min 1", aperture, 300, null, f(10), null, null, i(1), 6},
		{"load beyond B", randomAperture, 300, null, f(1e6), null, null, null, 300},
		{"min beyond B", randomAperture, 30, null, f(1), null, null, i(100), 30},
	} {
		p := point(300, tc.b, 0, tc.s)
		p[pSubsetSize], p[pClientLoad], p[pLowLoad], p[pHighLoad], p[pMinAperture] = tc.k, tc.load, tc.lo, tc.hi, tc.mn
		if _, err := (Model{}).Check(p, model.CheckOptions{}); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := configOf(p).k; got != tc.want {
			t.Errorf("%s: aperture %d, want %d", tc.name, got, tc.want)
		}
	}
}

func TestApertureCheck(t *testing.T) {
	f := model.FloatValue
	for _, tc := range []struct {
		name, param string
		edit        func(model.Point)
	}{
		{"client_load on random", "client_load", func(p model.Point) { p[pScheme] = model.IntValue(int64(random)); p[pSubsetSize] = model.IntValue(3) }},
		{"subset_size and client_load", "client_load", func(p model.Point) { p[pSubsetSize] = model.IntValue(3) }},
		{"negative load", "client_load", func(p model.Point) { p[pClientLoad] = f(-1) }},
		{"NaN load", "client_load", func(p model.Point) { p[pClientLoad] = f(math.NaN()) }},
		{"low ≥ high", "high_load", func(p model.Point) { p[pLowLoad], p[pHighLoad] = f(2), f(2) }},
		{"low 0", "low_load", func(p model.Point) { p[pLowLoad] = f(0) }},
		{"high above the null low", "high_load", func(p model.Point) { p[pHighLoad] = f(0.4) }},
		{"min 0", "min_aperture", func(p model.Point) { p[pMinAperture] = model.IntValue(0) }},
	} {
		p := point(300, 300, 0, randomAperture)
		p[pClientLoad] = f(10)
		tc.edit(p)
		_, err := (Model{}).Check(p, model.CheckOptions{})
		if is, ok := err.(model.Issue); !ok || is.Param != tc.param {
			t.Errorf("%s: Check = %v, want an issue on %s", tc.name, err, tc.param)
		}
	}
	// Random and deterministic still need subset_size.
	if _, err := (Model{}).Check(point(300, 300, 0, deterministic), model.CheckOptions{}); err == nil {
		t.Error("deterministic without subset_size: no error")
	}
	// A load with no fixed point is a warning: 1.5 in flight under [0.875, 1.125] widens 1 → 2 and narrows back.
	p := point(300, 300, 0, randomAperture)
	p[pClientLoad], p[pLowLoad], p[pHighLoad] = f(1.5), f(0.875), f(1.125)
	if w, err := (Model{}).Check(p, model.CheckOptions{}); err != nil || len(w) != 1 {
		t.Errorf("load 1.5 in [0.875, 1.125]: warnings %q, error %v; want one warning", w, err)
	}
}
