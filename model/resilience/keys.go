package resilience

import (
	"lbsweep/analytic"
	"lbsweep/model/sim"
)

// Keys and caches (issue 16, part 2). With `keys` = K, every request carries a key: its popularity rank r in 1..K,
// drawn from Zipf(s) (P(r) ∝ r^−s; s = `zipf`, 1 when null; s = 0 is uniform) from a stream of its own (streamKeys),
// one draw per request in arrival order, so that policies compared at a point see the same keys (common random
// numbers). Retries and hedges keep their request's key; the policy sees it as policy.Request.Key (0 with no keys).
//
// With `cache` = C, every server holds an LRU cache of at most C keys. The lookup happens when an attempt starts
// service (not at its arrival: a queued attempt may find its key inserted by the one served before it), for every
// attempt that is not answered with a 500 (a failing attempt does no data access); a hit's work is `hit_cost` times
// the miss's draw, a miss inserts the key at the front and evicts the least recently used key when the cache is
// full. A kill empties the server's cache (a restart brings it back empty; a server added by the timeline starts
// empty). The caches are arrays (a key → slot index per server and a doubly linked list over C slots), so a lookup
// is O(1) and allocates nothing.

// streamKeys identifies the keys' random stream (see sim.NewRand). Fixed forever.
const streamKeys = 0x6b65797320202020 // "keys    "

// Bounds on keys and caches.
const (
	// MaxKeys bounds keys (the alias table holds 12 bytes per key).
	MaxKeys = 10_000_000
	// MaxZipf bounds zipf's exponent (beyond, every request but a vanishing share has the first key).
	MaxZipf = 100
	// MaxCacheCells bounds keys·n with a cache: each server's key → slot index holds 4 bytes per key.
	MaxCacheCells = 20_000_000
	// DefaultZipf is zipf's exponent when null.
	DefaultZipf = 1.0
	// DefaultHitCost is hit_cost when null: a hit takes a tenth of a miss's work. Seed 004 says only that a cached
	// request is "cheaper"; a tenth (an in-memory lookup against a backend fetch an order of magnitude slower) is
	// this model's choice, not a sourced number.
	DefaultHitCost = 0.1
)

// alias is Walker's alias table (Vose's construction) over k outcomes: one uniform draw picks an outcome in O(1).
type alias struct {
	prob  []float64 // acceptance probability of column i
	other []int32   // the outcome column i stands for when not accepted
}

// newAlias builds the alias table of the probabilities p (summing to 1, each ≥ 0).
func newAlias(p []float64) alias {
	k := len(p)
	t := alias{prob: make([]float64, k), other: make([]int32, k)}
	small, large := make([]int32, 0, k), make([]int32, 0, k)
	scaled := make([]float64, k)
	for i, x := range p {
		scaled[i] = x * float64(k)
		if scaled[i] < 1 {
			small = append(small, int32(i))
		} else {
			large = append(large, int32(i))
		}
	}
	for len(small) > 0 && len(large) > 0 {
		s, l := small[len(small)-1], large[len(large)-1]
		small = small[:len(small)-1]
		t.prob[s], t.other[s] = scaled[s], l
		scaled[l] -= 1 - scaled[s]
		if scaled[l] < 1 {
			large = large[:len(large)-1]
			small = append(small, l)
		}
	}
	for _, i := range large { // what rounding leaves: probability 1
		t.prob[i], t.other[i] = 1, i
	}
	for _, i := range small {
		t.prob[i], t.other[i] = 1, i
	}
	return t
}

// draw returns an outcome in 0..k−1 from one uniform of r.
func (t alias) draw(r *sim.Rand) int {
	u := r.Float64() * float64(len(t.prob))
	i := int(u)
	if i >= len(t.prob) {
		i = len(t.prob) - 1
	}
	if u-float64(i) < t.prob[i] {
		return i
	}
	return int(t.other[i])
}

// lru is one server's LRU cache of at most len(keyOf) keys out of 1..K.
type lru struct {
	where            []int32 // key rank r at where[r−1]: its slot, −1 when not cached
	keyOf            []int32 // slot → key rank
	prev, next       []int32 // slot links, most recent at head
	head, tail, size int32
}

// newLRU returns an empty cache of capacity min(c, k) over keys 1..k.
func newLRU(c, k int) *lru {
	c = min(c, k)
	l := &lru{where: make([]int32, k), keyOf: make([]int32, c), prev: make([]int32, c), next: make([]int32, c), head: -1, tail: -1}
	for i := range l.where {
		l.where[i] = -1
	}
	return l
}

// unlink takes slot i out of the list.
func (l *lru) unlink(i int32) {
	if p := l.prev[i]; p >= 0 {
		l.next[p] = l.next[i]
	} else {
		l.head = l.next[i]
	}
	if n := l.next[i]; n >= 0 {
		l.prev[n] = l.prev[i]
	} else {
		l.tail = l.prev[i]
	}
}

// front puts slot i at the head.
func (l *lru) front(i int32) {
	l.prev[i], l.next[i] = -1, l.head
	if l.head >= 0 {
		l.prev[l.head] = i
	}
	l.head = i
	if l.tail < 0 {
		l.tail = i
	}
}

// lookup reports whether key rank r (1..K) is cached, making it the most recently used; a miss inserts it, evicting
// the least recently used key when full.
func (l *lru) lookup(r uint64) bool {
	if i := l.where[r-1]; i >= 0 {
		if i != l.head {
			l.unlink(i)
			l.front(i)
		}
		return true
	}
	var i int32
	if int(l.size) < len(l.keyOf) {
		i = l.size
		l.size++
	} else {
		i = l.tail
		l.where[l.keyOf[i]-1] = -1
		l.unlink(i)
	}
	l.keyOf[i] = int32(r)
	l.where[r-1] = i
	l.front(i)
	return false
}

// clear empties the cache (a kill), in O(size).
func (l *lru) clear() {
	for i := range l.size {
		l.where[l.keyOf[i]-1] = -1
	}
	l.size, l.head, l.tail = 0, -1, -1
}

// newKeys sets up the run's keys, caches and the per-server counts of the load and cache metrics.
func (e *engine) newKeys() {
	c := e.c
	n := len(e.servers)
	e.out.served = make([]int64, n)
	e.joined = make([]float64, n)
	if c.keys == 0 {
		return
	}
	e.keyR = sim.NewRand(e.seedRun, streamKeys)
	e.keyTable = newAlias(analytic.Zipf(c.keys, c.zipf))
	if c.cache > 0 {
		e.caches = make([]*lru, n)
		for k := range e.caches {
			e.caches[k] = newLRU(c.cache, c.keys)
		}
		e.out.lookups, e.out.hits = make([]int64, n), make([]int64, n)
	}
	for _, ch := range c.timeline {
		if ch.action == Add {
			e.keyBefore, e.keyAfter = make([]int32, c.keys), make([]int32, c.keys)
			for i := range e.keyBefore {
				e.keyBefore[i], e.keyAfter[i] = -1, -1
			}
			break
		}
	}
}

// lookup looks attempt at's key up in server k's cache at the start of its service, counting the lookup.
func (e *engine) lookup(k int, at *attempt) bool {
	hit := e.caches[k].lookup(at.key)
	e.cur.lookups++
	if hit {
		e.cur.hits++
	}
	if at.measured {
		e.out.lookups[k]++
		if hit {
			e.out.hits[k]++
		}
	}
	return hit
}

// keySent records that a first attempt of key rank r was dispatched to server k (for keys_moved; warm-up included).
func (e *engine) keySent(r uint64, k int) {
	if !e.added {
		e.keyBefore[r-1] = int32(k)
	} else if e.keyAfter[r-1] < 0 {
		e.keyAfter[r-1] = int32(k)
	}
}

// finishKeys closes the keys' books at the horizon: each server's time in the fleet within the window, and the keys
// moved by the first add.
func (e *engine) finishKeys() {
	e.out.activeTime = make([]float64, len(e.servers))
	for k := range e.servers {
		if e.servers[k].active {
			e.out.activeTime[k] = e.c.horizon - max(e.c.warmup, e.joined[k])
		}
	}
	for i, b := range e.keyBefore {
		if a := e.keyAfter[i]; b >= 0 && a >= 0 {
			e.out.keysBoth++
			if a != b {
				e.out.keysMoved++
			}
		}
	}
}
