package sim

// Levels keeps n servers' queue lengths (the job in service included) sorted by length in O(1) per change, and
// integrates c_L(t), the number of servers with at least L jobs, exactly over time for every level L, together with
// the longest queue.
//
// The layout is the "bucket permutation" of the C reference (shared/anchors/supermarket.c): perm lists the servers
// sorted by queue length, pos[k] is server k's index in perm, and start[L] is the first index in perm of a server
// with at least L jobs. Moving a server up or down one job is a single swap. It gives in O(1): c_L = n − start[L];
// the busy servers perm[start[1]:]; the shortest queues perm[:start[m+1]] with m the minimum length; the longest
// queue.
//
// Areas come from one running sum per level: with c_L changing by δ_i = ±1 at times τ_i,
// ∫_0^t c_L = c_L(t)·t − Σ δ_i τ_i, so a change costs one addition of its time to tsum[L] (no product, no per-level
// clock), and the integral over a window is the difference of its values at the window's ends.
type Levels struct {
	n     int32
	srv   []server // srv[k]: server k's jobs and its slot in perm (together: one bounds check, one cache line)
	perm  []int32
	start []int32   // start[L], L = 0 .. len-1; n for every level above the longest queue
	tsum  []float64 // Σ δ_i τ_i over the changes of c_L so far

	min              int32   // shortest queue now
	max              int32   // longest queue now
	total            int64   // Σ_k q[k]: jobs at all servers
	areaMax, lastMax float64 // ∫ max_k q_k dt up to lastMax
	peak             int32   // longest queue since Mark

	t0       float64   // Mark time
	base     []float64 // area at Mark
	baseMax  float64
	measured bool
}

// server is one server's entry in Levels.
type server struct {
	q   int32 // jobs at the server
	pos int32 // its slot in perm
}

// NewLevels returns n empty servers (n ≥ 1) at time 0.
func NewLevels(n int) *Levels {
	if n < 1 {
		panic("sim: NewLevels needs n ≥ 1")
	}
	l := &Levels{n: int32(n), srv: make([]server, n), perm: make([]int32, n)}
	for k := range n {
		l.perm[k], l.srv[k].pos = int32(k), int32(k)
	}
	l.grow(16)     // start[L] = n: no server has L ≥ 1 jobs
	l.start[0] = 0 // every server has at least 0 jobs: c_0 = n
	return l
}

func (l *Levels) grow(need int) {
	c := max(len(l.start), 1)
	for c < need {
		c *= 2
	}
	for L := len(l.start); L < c; L++ {
		l.start = append(l.start, l.n)
		l.tsum = append(l.tsum, 0)
		if l.measured {
			l.base = append(l.base, 0)
		}
	}
}

// N is the number of servers.
func (l *Levels) N() int { return int(l.n) }

// Len is the number of jobs at server k, the one in service included.
func (l *Levels) Len(k int) int32 { return l.srv[k].q }

// Count is c_L, the number of servers with at least L jobs (L ≥ 0).
func (l *Levels) Count(L int) int {
	if L >= len(l.start) {
		return 0
	}
	return int(l.n - l.start[L])
}

// NumBusy is the number of busy servers, Count(1).
func (l *Levels) NumBusy() int { return int(l.n - l.start[1]) }

// Busy returns the i-th busy server, 0 ≤ i < Count(1), in an order that is arbitrary but deterministic.
func (l *Levels) Busy(i int) int { return int(l.perm[int(l.start[1])+i]) }

// Shortest returns the minimum queue length m and the number of servers holding m jobs; Sorted(i) for
// 0 ≤ i < ties lists them.
func (l *Levels) Shortest() (m int32, ties int) {
	return l.min, int(l.start[l.min+1])
}

// Sorted returns the server at rank i (0 ≤ i < N) in increasing order of queue length.
func (l *Levels) Sorted(i int) int { return int(l.perm[i]) }

// Total is the number of jobs at all servers, Σ_k Len(k), kept as a running count (O(1); what a bounded-load policy
// reads as the balancer's requests in flight).
func (l *Levels) Total() int64 { return l.total }

// Max is the longest queue now.
func (l *Levels) Max() int32 { return l.max }

// area is ∫_0^t c_L dt, for t not before the last change.
func (l *Levels) area(L int, t float64) float64 { return float64(l.n-l.start[L])*t - l.tsum[L] }

// Up adds one job to server k at time t (t never decreases between calls).
func (l *Levels) Up(k int, t float64) {
	s := &l.srv[k]
	q := s.q
	if int(q)+2 >= len(l.start) {
		l.grow(int(q) + 3)
	}
	l.tsum[q+1] += t
	j := l.start[q+1] - 1 // last slot of bucket q
	other, i := l.perm[j], s.pos
	l.perm[i], l.srv[other].pos = other, i
	l.perm[j], s.pos = int32(k), j
	l.start[q+1] = j
	s.q = q + 1
	l.total++
	if j == 0 { // every server now has more than q jobs: bucket q was the shortest and is empty
		l.min = q + 1
	}
	if q+1 > l.max {
		l.areaMax += float64(l.max) * (t - l.lastMax)
		l.lastMax = t
		l.max = q + 1
		l.peak = max(l.peak, l.max)
	}
}

// Down removes one job from server k (which must be busy) at time t.
func (l *Levels) Down(k int, t float64) {
	s := &l.srv[k]
	q := s.q
	if q <= 0 {
		panic("sim: Down on an idle server")
	}
	l.tsum[q] -= t
	j := l.start[q] // first slot of bucket q
	other, i := l.perm[j], s.pos
	l.perm[i], l.srv[other].pos = other, i
	l.perm[j], s.pos = int32(k), j
	l.start[q] = j + 1
	s.q = q - 1
	l.total--
	if q == l.min {
		l.min = q - 1
	}
	if q == l.max && j+1 == l.n { // l.start[q] == l.n: no server is left at the longest length
		l.areaMax += float64(l.max) * (t - l.lastMax)
		l.lastMax = t
		l.max = q - 1
	}
}

// Set moves server k to v ≥ 0 jobs at time t, one level at a time (O(|v − Len(k)|) swaps): how a bulletin board
// copies a true queue length into its entry.
func (l *Levels) Set(k int, v int32, t float64) {
	if v < 0 {
		panic("sim: Set to a negative length")
	}
	for l.srv[k].q < v {
		l.Up(k, t)
	}
	for l.srv[k].q > v {
		l.Down(k, t)
	}
}

// CopyFrom sets every server's queue length to src's (src has l's n), in O(n + levels) whatever the lengths were:
// src's sorted order is copied with them, so the servers within a level come in src's order (Set's one-level
// moves leave another order; either is a valid order, but a pick that reads the order, jsq's tie among the
// shortest, picks by it). How a bulletin board copies all its entries at once. The time averages of l (Count's
// areas, the mean and peak maximum) are not kept across a copy: use it on a view that no statistic is read from.
func (l *Levels) CopyFrom(src *Levels) {
	if l == src {
		return
	}
	if l.n != src.n {
		panic("sim: CopyFrom between Levels of different sizes")
	}
	if len(l.start) < len(src.start) {
		l.grow(len(src.start))
	}
	copy(l.srv, src.srv)
	copy(l.perm, src.perm)
	copy(l.start, src.start)
	for L := len(src.start); L < len(l.start); L++ {
		l.start[L] = l.n
	}
	l.min, l.max, l.total = src.min, src.max, src.total
}

func (l *Levels) flush(t float64) {
	l.areaMax += float64(l.max) * (t - l.lastMax)
	l.lastMax = t
}

// Mark starts the measurement window at time t: time averages and the peak count from here.
func (l *Levels) Mark(t float64) {
	l.flush(t)
	l.t0 = t
	l.base = l.base[:0]
	for L := range l.start {
		l.base = append(l.base, l.area(L, t))
	}
	l.baseMax = l.areaMax
	l.peak = l.max
	l.measured = true
}

// Window ends the measurement window at time t > Mark's time and returns, over [Mark, t):
// tail[L−1] = time-average fraction of servers with at least L jobs, for L = 1 up to the highest level with a
// non-zero average (so len(tail) is the longest queue seen, at least 1); the time-average longest queue; and the peak
// queue length.
func (l *Levels) Window(t float64) (tail []float64, meanMax float64, peak int) {
	if !l.measured {
		panic("sim: Window before Mark")
	}
	l.flush(t)
	w := t - l.t0
	top := 1
	for L := 1; L < len(l.start); L++ {
		if l.area(L, t)-l.base[L] > 0 {
			top = L
		}
	}
	tail = make([]float64, top)
	for L := 1; L <= top; L++ {
		tail[L-1] = (l.area(L, t) - l.base[L]) / (w * float64(l.n))
	}
	return tail, (l.areaMax - l.baseMax) / w, int(l.peak)
}
