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
	n    int32
	srv  []server // srv[k]: server k's jobs and its slot in perm (together: one bounds check, one cache line)
	perm []int32
	lev  []level // lev[L], L = 0 .. len-1: start[L] (n for every level above the longest queue) and tsum[L]

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

// level is one level L's entry in Levels: start[L] and tsum[L] together (one bounds check, one slice, for the two
// that every change of c_L reads and writes).
type level struct {
	start int32   // the first index in perm of a server with at least L jobs
	tsum  float64 // Σ δ_i τ_i over the changes of c_L so far
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
	l.grow(16)         // start[L] = n: no server has L ≥ 1 jobs
	l.lev[0].start = 0 // every server has at least 0 jobs: c_0 = n
	return l
}

func (l *Levels) grow(need int) {
	c := max(len(l.lev), 1)
	for c < need {
		c *= 2
	}
	for L := len(l.lev); L < c; L++ {
		l.lev = append(l.lev, level{start: l.n})
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
	if L >= len(l.lev) {
		return 0
	}
	return int(l.n - l.lev[L].start)
}

// NumBusy is the number of busy servers, Count(1).
func (l *Levels) NumBusy() int { return int(l.n - l.lev[1].start) }

// Busy returns the i-th busy server, 0 ≤ i < Count(1), in an order that is arbitrary but deterministic.
func (l *Levels) Busy(i int) int { return int(l.perm[int(l.lev[1].start)+i]) }

// Shortest returns the minimum queue length m and the number of servers holding m jobs; Sorted(i) for
// 0 ≤ i < ties lists them.
func (l *Levels) Shortest() (m int32, ties int) {
	return l.min, int(l.lev[l.min+1].start)
}

// Sorted returns the server at rank i (0 ≤ i < N) in increasing order of queue length.
func (l *Levels) Sorted(i int) int { return int(l.perm[i]) }

// Total is the number of jobs at all servers, Σ_k Len(k), kept as a running count (O(1); what a bounded-load policy
// reads as the balancer's requests in flight).
func (l *Levels) Total() int64 { return l.total }

// Max is the longest queue now.
func (l *Levels) Max() int32 { return l.max }

// area is ∫_0^t c_L dt, for t not before the last change.
func (l *Levels) area(L int, t float64) float64 { return float64(l.n-l.lev[L].start)*t - l.lev[L].tsum }

// Up adds one job to server k at time t (t never decreases between calls) and returns the length it had before (0:
// the server was idle).
func (l *Levels) Up(k int, t float64) (was int32) {
	// The slices are read once into locals: the compiler reloads a field after every store through a pointer.
	srv, perm, lev := l.srv, l.perm, l.lev
	s := &srv[k]
	q := s.q
	if int(q)+2 >= len(lev) {
		l.grow(int(q) + 3)
		lev = l.lev
	}
	b := &lev[q+1]
	b.tsum += t
	j := b.start - 1 // last slot of bucket q
	other, i := perm[j], s.pos
	perm[i], srv[other].pos = other, i
	perm[j], s.pos = int32(k), j
	b.start = j
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
	return q
}

// Down removes one job from server k (which must be busy) at time t and returns the length left (0: the server is
// now idle).
func (l *Levels) Down(k int, t float64) (left int32) {
	srv, perm := l.srv, l.perm
	s := &srv[k]
	q := s.q
	if q <= 0 {
		panic("sim: Down on an idle server")
	}
	b := &l.lev[q]
	b.tsum -= t
	j := b.start // first slot of bucket q
	other, i := perm[j], s.pos
	perm[i], srv[other].pos = other, i
	perm[j], s.pos = int32(k), j
	b.start = j + 1
	s.q = q - 1
	l.total--
	if q == l.min {
		l.min = q - 1
	}
	if q == l.max && j+1 == l.n { // start[q] == n: no server is left at the longest length
		l.areaMax += float64(l.max) * (t - l.lastMax)
		l.lastMax = t
		l.max = q - 1
	}
	return q - 1
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
	if len(l.lev) < len(src.lev) {
		l.grow(len(src.lev))
	}
	copy(l.srv, src.srv)
	copy(l.perm, src.perm)
	for L := range l.lev {
		if L < len(src.lev) {
			l.lev[L].start = src.lev[L].start
		} else {
			l.lev[L].start = l.n
		}
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
	for L := range l.lev {
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
	for L := 1; L < len(l.lev); L++ {
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
