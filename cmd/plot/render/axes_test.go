package render

import (
	"math"
	"strings"
	"testing"

	"gonum.org/v1/plot"
)

// labelled returns the labels of ticker's ticks over [min, max], in tick order, joined by " ".
func labelled(tk plot.Ticker, min, max float64) string {
	var ls []string
	for _, t := range tk.Ticks(min, max) {
		if t.Label != "" {
			ls = append(ls, t.Label)
		}
	}
	return strings.Join(ls, " ")
}

// Ticks fall on 1, 2 or 5 × 10^k, carry no trailing zeros, and keep one notation per axis.
func TestTicks(t *testing.T) {
	for _, tc := range []struct {
		name     string
		tk       plot.Ticker
		min, max float64
		want     string
	}{
		{"linear 0..50 padded", linearTicks{}, -2, 52, "0 10 20 30 40 50"},
		{"linear fractions", linearTicks{}, -0.04, 1.04, "0 0.2 0.4 0.6 0.8 1"},
		{"linear tenths", linearTicks{}, 0.21, 1.04, "0.3 0.4 0.5 0.6 0.7 0.8 0.9 1"},
		{"linear: the finest step with at most 8 labels", linearTicks{}, 2.2, 19.2, "4 6 8 10 12 14 16 18"},
		{"integer parameter: no half steps", linearTicks{integer: true}, 0.88, 4.12, "1 2 3 4"},
		{"integer, large values: at most 8 labels", linearTicks{integer: true}, 980, 1420, "1000 1100 1200 1300 1400"},
		{"linear thousands", linearTicks{}, 0, 21000, "0 5000 10000 15000 20000"},
		{"linear millions: one e notation", linearTicks{}, 0, 2.6e6, "0 0.5e6 1e6 1.5e6 2e6 2.5e6"},
		{"linear negatives", linearTicks{}, -1.1, 1.1, "-1 -0.5 0 0.5 1"},
		{"integer levels", linearTicks{integer: true}, 0.5, 12.5, "1 2 3 4 5 6 7 8 9 10 11 12"},
		{"integer, many levels", linearTicks{integer: true}, 0.5, 30.5, "5 10 15 20 25 30"},
		{"integer, short range", linearTicks{integer: true}, 0.9, 3.1, "1 2 3"},
		{"log 2..50: 1, 2, 5", logTicks{}, 1.8, 56, "2 5 10 20 50"},
		{"log 3 to 5 decades: decades", logTicks{}, 0.0004, 20, "0.001 0.01 0.1 1 10"},
		{"log wide: one e notation", logTicks{}, 80, 1.2e8, "1e2 1e3 1e4 1e5 1e6 1e7 1e8"},
		{"log tail: one e notation", logTicks{}, 3e-11, 1.2, "1e-10 1e-9 1e-8 1e-7 1e-6 1e-5 1e-4 1e-3 1e-2 1e-1 1e0"},
		{"log below a decade: every multiple", logTicks{}, 3.5, 9.5, "4 5 6 7 8 9"},
		{"log a sliver: linear labels", logTicks{}, 0.52, 0.58, "0.52 0.53 0.54 0.55 0.56 0.57 0.58"},
		{"log very wide: every other decade", logTicks{}, 1e-14, 1, "1e-14 1e-12 1e-10 1e-8 1e-6 1e-4 1e-2 1e0"},
	} {
		if got := labelled(tc.tk, tc.min, tc.max); got != tc.want {
			t.Errorf("%s: [%g, %g]: labels %q, want %q", tc.name, tc.min, tc.max, got, tc.want)
		}
	}
}

// Minor ticks are unlabelled and never sit on a labelled one.
func TestMinorTicks(t *testing.T) {
	seen := map[float64]int{}
	n := 0
	for _, tk := range (linearTicks{}).Ticks(-0.04, 1.04) {
		seen[math.Round(tk.Value*1e9)]++
		if tk.Label == "" {
			n++
		}
	}
	for v, c := range seen {
		if c > 1 {
			t.Errorf("tick at %g given %d times", v/1e9, c)
		}
	}
	if n != 15 { // 5 steps of 0.2, quartered: 3 minor ticks each
		t.Errorf("%d minor ticks over [0, 1] by 0.2, want 15", n)
	}
}

// pad leaves padFraction of the span free at each end, in log space on a log axis, and widens an empty span.
func TestPad(t *testing.T) {
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(b)) }
	if lo, hi := pad(0, 50, false); !near(lo, -2) || !near(hi, 52) {
		t.Errorf("pad(0, 50) = %g, %g, want -2, 52", lo, hi)
	}
	if lo, hi := pad(1, 1e4, true); !near(math.Log10(lo), -0.16) || !near(math.Log10(hi), 4.16) {
		t.Errorf("log pad(1, 1e4) = %g, %g, want 10^-0.16, 10^4.16", lo, hi)
	}
	if lo, hi := pad(5, 5, false); !(lo < 5 && hi > 5) {
		t.Errorf("pad(5, 5) = %g, %g: not widened", lo, hi)
	}
	if lo, hi := pad(0.3, 0.3, true); !(lo < 0.3 && hi > 0.3 && lo > 0) {
		t.Errorf("log pad(0.3, 0.3) = %g, %g: not widened within (0, inf)", lo, hi)
	}
}
