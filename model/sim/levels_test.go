package sim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// naiveLevels is the reference for Levels: plain queue lengths, every count recomputed from scratch, every time
// integral accumulated interval by interval.
type naiveLevels struct {
	q []int
	t float64 // time of the last event (or Mark)

	total []float64 // total[L] = ∫ c_L dt over [0, t), L ≥ 1 (index 0 unused)

	marked  bool
	t0      float64
	area    []float64 // area[L] = ∫ c_L dt over [t0, t)
	areaMax float64   // ∫ max_k q_k dt over [t0, t)
	peak    int       // longest queue over [t0, t]
}

// counts returns c[L] = number of servers with at least L jobs, L = 0 .. max+1 (so the last entry is 0).
func (m *naiveLevels) counts() []int {
	hi := slices.Max(m.q)
	hist := make([]int, hi+2)
	for _, v := range m.q {
		hist[v]++
	}
	c := make([]int, hi+2)
	run := 0
	for L := hi + 1; L >= 0; L-- {
		run += hist[L]
		c[L] = run
	}
	return c
}

// advance integrates the current (constant) state from m.t to t.
func (m *naiveLevels) advance(t float64) {
	c := m.counts()
	for len(m.total) < len(c) {
		m.total = append(m.total, 0)
	}
	for len(m.area) < len(c) {
		m.area = append(m.area, 0)
	}
	dt := t - m.t
	for L := 1; L < len(c); L++ {
		m.total[L] += float64(c[L]) * dt
		if m.marked {
			m.area[L] += float64(c[L]) * dt
		}
	}
	if m.marked {
		m.areaMax += float64(slices.Max(m.q)) * dt
	}
	m.t = t
}

func (m *naiveLevels) up(k int, t float64) {
	m.advance(t)
	m.q[k]++
	if m.marked {
		m.peak = max(m.peak, m.q[k])
	}
}

func (m *naiveLevels) down(k int, t float64) {
	m.advance(t)
	m.q[k]--
}

func (m *naiveLevels) mark(t float64) {
	m.advance(t)
	m.marked, m.t0 = true, t
	clear(m.area)
	m.areaMax = 0
	m.peak = slices.Max(m.q)
}

// checkState compares every instantaneous query of l with the naive model.
func checkState(t *testing.T, l *Levels, m *naiveLevels, step int) {
	t.Helper()
	n := len(m.q)
	fail := func(format string, args ...any) {
		t.Helper()
		q := fmt.Sprint(m.q)
		if len(q) > 200 {
			q = q[:200] + "…"
		}
		t.Fatalf("step %d (q = %s): %s", step, q, fmt.Sprintf(format, args...))
	}
	if l.N() != n {
		fail("N() = %d, want %d", l.N(), n)
	}
	sum := 0
	for _, q := range m.q {
		sum += q
	}
	if l.Total() != int64(sum) {
		fail("Total() = %d, want %d", l.Total(), sum)
	}
	for k := range n {
		if got := l.Len(k); int(got) != m.q[k] {
			fail("Len(%d) = %d, want %d", k, got, m.q[k])
		}
	}
	c := m.counts()
	hi := len(c) - 2 // longest queue
	for L := range len(c) + 2 {
		want := 0
		if L < len(c) {
			want = c[L]
		}
		if got := l.Count(L); got != want {
			fail("Count(%d) = %d, want %d", L, got, want)
		}
	}
	if got := l.Max(); int(got) != hi {
		fail("Max() = %d, want %d", got, hi)
	}

	// Sorted is a permutation of the servers in non-decreasing order of length, and the servers with at least L
	// jobs are exactly its last Count(L) ranks (the start[L] invariant, seen from outside).
	seen := make([]bool, n)
	for i := range n {
		k := l.Sorted(i)
		if k < 0 || k >= n || seen[k] {
			fail("Sorted(%d) = %d: not a permutation of 0..%d", i, k, n-1)
		}
		seen[k] = true
		if i > 0 && m.q[k] < m.q[l.Sorted(i-1)] {
			fail("Sorted(%d) = %d has %d jobs, fewer than Sorted(%d) = %d with %d", i, k, m.q[k], i-1,
				l.Sorted(i-1), m.q[l.Sorted(i-1)])
		}
	}
	for L := 1; L <= hi+1; L++ {
		first := n - c[L] // rank of the first server with at least L jobs
		if first < n && m.q[l.Sorted(first)] < L {
			fail("Sorted(%d) has %d jobs, want ≥ %d (Count(%d) = %d)", first, m.q[l.Sorted(first)], L, L, c[L])
		}
		if first > 0 && m.q[l.Sorted(first-1)] >= L {
			fail("Sorted(%d) has %d jobs, want < %d (Count(%d) = %d)", first-1, m.q[l.Sorted(first-1)], L, L, c[L])
		}
	}

	// Shortest: the minimum, its number of ties, and Sorted(0..ties-1) are exactly the servers holding it.
	minQ := slices.Min(m.q)
	var wantTied []int
	for k, v := range m.q {
		if v == minQ {
			wantTied = append(wantTied, k)
		}
	}
	gotMin, ties := l.Shortest()
	if int(gotMin) != minQ || ties != len(wantTied) {
		fail("Shortest() = (%d, %d), want (%d, %d)", gotMin, ties, minQ, len(wantTied))
	}
	gotTied := make([]int, ties)
	for i := range ties {
		gotTied[i] = l.Sorted(i)
	}
	slices.Sort(gotTied)
	if !slices.Equal(gotTied, wantTied) {
		fail("Sorted(0..%d) = %v, want the shortest servers %v", ties-1, gotTied, wantTied)
	}

	// Busy(i), i < Count(1), enumerates each busy server exactly once.
	var wantBusy []int
	for k, v := range m.q {
		if v > 0 {
			wantBusy = append(wantBusy, k)
		}
	}
	if l.NumBusy() != len(wantBusy) {
		fail("NumBusy() = %d, want %d", l.NumBusy(), len(wantBusy))
	}
	gotBusy := make([]int, l.Count(1))
	for i := range gotBusy {
		gotBusy[i] = l.Busy(i)
	}
	slices.Sort(gotBusy)
	if !slices.Equal(gotBusy, wantBusy) {
		fail("Busy(0..Count(1)-1) = %v, want %v", gotBusy, wantBusy)
	}
}

// windowRelTol is the relative tolerance of the time averages. Both sides sum at most a few thousand non-negative
// products c·Δt (Levels per level between changes, the reference per event); the rounding error of a sum of m
// non-negative terms is at most (m−1)·u times the sum (u = 2⁻⁵³ ≈ 1.1e-16, Higham, Accuracy and Stability, §4.2), so
// with m ≤ 4,000 each side is off by at most 4.5e-13 of the result: 1e-12 bounds their difference. Levels also
// subtracts the area at Mark from a running total, which adds u times that total: checkWindow scales the tolerance
// by the level's whole area since time 0, not just the window's. With dyadic times every sum is exact.
const windowRelTol = 1e-12

// checkWindow compares l.Window(t) with the reference.
func checkWindow(t *testing.T, l *Levels, m *naiveLevels, tw float64, step int) {
	t.Helper()
	m.advance(tw)
	tail, meanMax, peak := l.Window(tw)
	w := tw - m.t0
	n := float64(len(m.q))
	top := 1 // highest level with non-zero area in the window, at least 1
	for L := 1; L < len(m.area); L++ {
		if m.area[L] > 0 {
			top = L
		}
	}
	if len(tail) != top {
		t.Fatalf("step %d: Window(%v) over [%v, %v): len(tail) = %d, want %d (areas %v)", step, tw, m.t0, tw,
			len(tail), top, m.area)
	}
	for L := 1; L <= top; L++ {
		want := m.area[L] / (w * n)
		tol := windowRelTol * (want + 2*m.total[L]/(w*n))
		if got := tail[L-1]; math.Abs(got-want) > tol {
			t.Errorf("step %d: Window(%v): tail[%d] = %.17g, want %.17g (± %.3g)", step, tw, L-1, got, want, tol)
		}
	}
	wantMax := m.areaMax / w
	if math.Abs(meanMax-wantMax) > windowRelTol*2*wantMax {
		t.Errorf("step %d: Window(%v): mean max = %.17g, want %.17g", step, tw, meanMax, wantMax)
	}
	if peak != m.peak {
		t.Errorf("step %d: Window(%v): peak = %d, want %d", step, tw, peak, m.peak)
	}
}

// TestLevelsAgainstNaive drives Levels and the naive reference through the same random Up/Down sequence and compares
// every query after every step, and the time averages of several windows.
func TestLevelsAgainstNaive(t *testing.T) {
	// Timing: "dyadic" times are multiples of 1/1024 (with repeats: simultaneous events), so every area is exact;
	// "continuous" times have Exp(1) gaps.
	type timing struct {
		name string
		next func(r *rand.Rand, t float64) float64
	}
	timings := []timing{
		{"dyadic", func(r *rand.Rand, t float64) float64 { return t + float64(r.IntN(3000))/1024 }},
		{"continuous", func(r *rand.Rand, t float64) float64 { return t + r.ExpFloat64() }},
	}
	const steps = 4000
	for _, n := range []int{1, 2, 7, 100} {
		for _, tm := range timings {
			for _, markAtZero := range []bool{true, false} {
				name := fmt.Sprintf("n=%d/%s/mark0=%v", n, tm.name, markAtZero)
				t.Run(name, func(t *testing.T) {
					r := rand.New(rand.NewPCG(uint64(n), 42))
					l := NewLevels(n)
					m := &naiveLevels{q: make([]int, n)}
					checkState(t, l, m, -1)
					now := 0.0
					if markAtZero {
						l.Mark(0)
						m.mark(0)
					}
					maxSeen := 0
					for step := range steps {
						// Phase 1 (first half) grows the queues past Levels' initial 16 levels: arrivals are
						// likelier than departures and a third of them go to server 0. Phase 2 drains them.
						pUp := 0.7
						if step >= steps/2 {
							pUp = 0.35
						}
						now = tm.next(r, now)
						busy := m.counts()[1]
						if busy == 0 || r.Float64() < pUp {
							k := r.IntN(n)
							if r.IntN(3) == 0 {
								k = 0
							}
							l.Up(k, now)
							m.up(k, now)
						} else {
							// A uniformly random busy server, chosen on the naive side; while draining, half
							// the time the longest queue instead.
							var busyK []int
							for k, v := range m.q {
								if v > 0 {
									busyK = append(busyK, k)
								}
							}
							k := busyK[r.IntN(len(busyK))]
							if step >= steps/2 && r.IntN(2) == 0 {
								k = slices.Index(m.q, slices.Max(m.q))
							}
							l.Down(k, now)
							m.down(k, now)
						}
						maxSeen = max(maxSeen, slices.Max(m.q))
						checkState(t, l, m, step)

						switch step {
						case steps / 8: // Mark after some activity (a re-Mark when the run marked at 0)
							l.Mark(now)
							m.mark(now)
						case steps/8 + 1: // Mark again at the same time as the last event
							l.Mark(now)
							m.mark(now)
						case steps / 4, steps / 2, 3 * steps / 4, steps - 1:
							// A window that ends after the last event, and one more at the same time
							// (Window does not reset the Mark).
							tw := tm.next(r, now)
							if tw == now {
								tw += 1.0 / 1024
							}
							checkWindow(t, l, m, tw, step)
							checkWindow(t, l, m, tw, step)
							now = tw
						case steps/2 + 1: // re-Mark mid-way: the peak restarts from the current max
							l.Mark(now)
							m.mark(now)
						}
					}
					if maxSeen < 40 {
						t.Fatalf("longest queue reached only %d: the test does not exercise level growth", maxSeen)
					}
				})
			}
		}
	}
}

// TestLevelsWindowExact checks one hand-computed window: two servers, integer times.
func TestLevelsWindowExact(t *testing.T) {
	l := NewLevels(2)
	l.Up(0, 1) // q = (1, 0)
	l.Up(0, 2) // (2, 0)
	l.Mark(2)
	l.Up(1, 3)   // (2, 1)
	l.Down(0, 5) // (1, 1)
	l.Down(0, 6) // (0, 1)
	// Over [2, 8): c_1 = 1 on [2,3), 2 on [3,6), 1 on [6,8) → ∫ = 1+6+2 = 9, fraction 9/(6·2) = 0.75.
	// c_2 = 1 on [2,5) → 3, fraction 3/12 = 0.25. max = 2 on [2,5), 1 on [5,8) → (6+3)/6 = 1.5. Peak 2.
	tail, meanMax, peak := l.Window(8)
	if want := []float64{0.75, 0.25}; !slices.Equal(tail, want) {
		t.Errorf("tail = %v, want %v", tail, want)
	}
	if meanMax != 1.5 || peak != 2 {
		t.Errorf("meanMax, peak = %v, %d; want 1.5, 2", meanMax, peak)
	}

	// An idle window still has one tail entry (len(tail) ≥ 1).
	l = NewLevels(3)
	l.Mark(0)
	tail, meanMax, peak = l.Window(1)
	if !slices.Equal(tail, []float64{0}) || meanMax != 0 || peak != 0 {
		t.Errorf("idle window: %v, %v, %d; want [0], 0, 0", tail, meanMax, peak)
	}
}

func TestLevelsNew(t *testing.T) {
	for _, n := range []int{1, 2, 7, 100} {
		l := NewLevels(n)
		if got := l.Count(0); got != n {
			t.Errorf("NewLevels(%d).Count(0) = %d, want %d", n, got, n)
		}
		if got := l.Count(1); got != 0 {
			t.Errorf("NewLevels(%d).Count(1) = %d, want 0", n, got)
		}
		if m, ties := l.Shortest(); m != 0 || ties != n {
			t.Errorf("NewLevels(%d).Shortest() = (%d, %d), want (0, %d)", n, m, ties, n)
		}
	}
}

// mustPanicSim runs f and checks that it panics with a message starting "sim:" (broken internal invariants panic with
// the package name).
func mustPanicSim(t *testing.T, what string, f func()) {
	t.Helper()
	defer func() {
		t.Helper()
		r := recover()
		if r == nil {
			t.Errorf("%s did not panic", what)
			return
		}
		if msg := fmt.Sprint(r); !strings.HasPrefix(msg, "sim:") {
			t.Errorf("%s panicked with %q, want a message starting \"sim:\"", what, msg)
		}
	}()
	f()
}

func TestLevelsPanics(t *testing.T) {
	mustPanicSim(t, "Down on a fresh server", func() { NewLevels(3).Down(1, 1) })
	mustPanicSim(t, "Down on a drained server", func() {
		l := NewLevels(2)
		l.Up(1, 1)
		l.Down(1, 2)
		l.Down(1, 3)
	})
	mustPanicSim(t, "NewLevels(0)", func() { NewLevels(0) })
	mustPanicSim(t, "Window before Mark", func() { NewLevels(1).Window(1) })
}

// Set reaches any length from any length and keeps the sorted view consistent.
func TestLevelsSet(t *testing.T) {
	l := NewLevels(5)
	r := NewRand(3, 4)
	want := make([]int32, 5)
	for i := range 2000 {
		k, v := r.IntN(5), int32(r.IntN(7))
		l.Set(k, v, float64(i))
		want[k] = v
		for j := range 5 {
			if l.Len(j) != want[j] {
				t.Fatalf("step %d: server %d has %d, want %d", i, j, l.Len(j), want[j])
			}
		}
		m, ties := l.Shortest()
		lo := slices.Min(want)
		if m != lo || ties != count(want, lo) {
			t.Fatalf("step %d: Shortest = %d×%d, want %d×%d", i, m, ties, lo, count(want, lo))
		}
		if l.Max() != slices.Max(want) {
			t.Fatalf("step %d: Max = %d, want %d", i, l.Max(), slices.Max(want))
		}
	}
}

func count(xs []int32, v int32) int {
	c := 0
	for _, x := range xs {
		if x == v {
			c++
		}
	}
	return c
}

// CopyFrom makes a view equal to its source (lengths, counts, the shortest, the maximum, the sorted order), from a
// view that was longer or shorter, and the view then moves on by Up and Down as any Levels.
func TestLevelsCopyFrom(t *testing.T) {
	const n = 7
	src, view := NewLevels(n), NewLevels(n)
	r := NewRand(5, 6)
	check := func(step int, l *Levels, want []int32) {
		t.Helper()
		for k := range n {
			if l.Len(k) != want[k] {
				t.Fatalf("step %d: server %d has %d, want %d", step, k, l.Len(k), want[k])
			}
		}
		for L := range 40 {
			c := 0
			for _, v := range want {
				if int(v) >= L {
					c++
				}
			}
			if l.Count(L) != c {
				t.Fatalf("step %d: Count(%d) = %d, want %d", step, L, l.Count(L), c)
			}
		}
		for i := range n { // sorted by length, each server once
			if i > 0 && l.Len(l.Sorted(i)) < l.Len(l.Sorted(i-1)) {
				t.Fatalf("step %d: Sorted not in order at %d", step, i)
			}
		}
		m, ties := l.Shortest()
		if lo := slices.Min(want); m != lo || ties != count(want, lo) || l.Max() != slices.Max(want) {
			t.Fatalf("step %d: Shortest %d×%d, Max %d against %v", step, m, ties, l.Max(), want)
		}
	}
	truth, seen := make([]int32, n), make([]int32, n)
	for step := range 3000 {
		k := r.IntN(n)
		if r.IntN(3) > 0 || truth[k] == 0 {
			src.Up(k, float64(step))
			truth[k]++
		} else {
			src.Down(k, float64(step))
			truth[k]--
		}
		if step%50 == 0 { // the view's own moves in between: it may be longer than src when copied
			j := r.IntN(n)
			for range 30 {
				view.Up(j, float64(step))
				seen[j]++
			}
		}
		if step%97 == 0 {
			view.CopyFrom(src)
			copy(seen, truth)
			for i := range n {
				if view.Sorted(i) != src.Sorted(i) {
					t.Fatalf("step %d: the view's order differs from its source's at %d", step, i)
				}
			}
		}
		check(step, view, seen)
	}
	view.CopyFrom(view) // a no-op
	check(-1, view, seen)
}
