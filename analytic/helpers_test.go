package analytic

import (
	"math"
	"strings"
	"testing"
)

// within reports a failure unless |got-want| <= tol.
func within(t *testing.T, name string, got, want, tol float64) {
	t.Helper()
	if !(math.Abs(got-want) <= tol) {
		t.Errorf("%s = %.15g, want %.15g ± %g", name, got, want, tol)
	}
}

// closeRel reports a failure unless |got-want| <= rel*|want|.
func closeRel(t *testing.T, name string, got, want, rel float64) {
	t.Helper()
	if !(math.Abs(got-want) <= rel*math.Abs(want)) {
		t.Errorf("%s = %.17g, want %.17g (relative tolerance %g)", name, got, want, rel)
	}
}

// allNaN reports a failure unless s has length k and every element is NaN.
func allNaN(t *testing.T, name string, s []float64, k int) {
	t.Helper()
	if len(s) != k {
		t.Errorf("%s: len = %d, want %d", name, len(s), k)
	}
	for i, v := range s {
		if !math.IsNaN(v) {
			t.Errorf("%s[%d] = %g, want NaN", name, i, v)
		}
	}
}

// mustPanic reports a failure unless f panics with a message starting "analytic: ".
func mustPanic(t *testing.T, name string, f func()) {
	t.Helper()
	defer func() {
		t.Helper()
		r := recover()
		if r == nil {
			t.Errorf("%s: no panic", name)
			return
		}
		if s, ok := r.(string); !ok || !strings.HasPrefix(s, "analytic: ") {
			t.Errorf("%s: panic %v, want a string starting \"analytic: \"", name, r)
		}
	}()
	f()
}

// badLoads are per-server loads outside the stable range (0, 1).
var badLoads = []float64{0, -0.5, 1, 1.5, math.NaN(), math.Inf(1), math.Inf(-1)}

// badProbs are probabilities outside the open interval (0, 1).
var badProbs = []float64{0, 1, -0.1, 1.1, math.NaN()}
