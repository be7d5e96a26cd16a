package sim

// Events is a future-event list: a binary min-heap of pending events, each a time (in the model's unit) and a payload
// of the model's choosing (what happens then). The earliest time comes out first; events at equal times come out in
// the order they were scheduled (a sequence number breaks the tie), so a run never depends on the heap's internal
// order. Times must not be NaN (Push, Schedule and Move panic on one: a NaN compares false with everything and
// would silently break the heap's order).
//
// Push schedules an event that will only ever be popped. Schedule schedules one and returns a Handle through which
// the event, while it is pending, can be cancelled (Remove) or moved to another time (Move), as container/heap's
// items keep their index for Fix and Remove: a request's timeout, a hedge timer, a backoff, a service completion.
// A moved event is re-sequenced at the move: among events at its new time it comes out after those already
// scheduled there, exactly as if it had been cancelled and scheduled anew; its handle stays valid. A handle goes
// stale when its event is popped or removed; Pending, When, Remove and Move then report false and change nothing (a
// generation count per handle slot detects it, so a stale handle never touches the heap), and a caller may cancel a
// timeout that has already fired without checking first.
//
// Cost: Push, Pop, Remove and Move are O(log n); Next, Len, Pending and When are O(1). Once a handle has been issued,
// every heap move also updates the moved event's handle slot (a handle-less event's writes go to a dummy slot), so
// Push and Pop cost more on a list that uses handles than on one that never does; a list used only with Push and Pop
// runs the heap code it ran before handles existed, its events as large as before. Allocation: Push and Schedule
// allocate only when the heap, or the table of handle slots, grows; the slots of popped and removed events are
// reused, so a run whose pending count stays bounded allocates nothing per event once warm.
//
// Not safe for concurrent use; the zero value is empty and ready to use.
type Events[T any] struct {
	h   []event[T]
	seq uint64
	// Handles, all nil until the first Schedule. at[i] is the handle slot of the event at heap index i (0: none); it
	// is a slice of its own, not a field of event, because a larger event slows every heap move (at 16 bytes of
	// payload an event is 32 bytes, a size Go copies in registers). slots[s] is where slot s's event sits and its
	// generation; slot 0 is the dummy that handle-less events write to and is never handed out. free holds the
	// slots of popped and removed events.
	at    []int32
	slots []slot
	free  []int32
}

type event[T any] struct {
	t   float64
	seq uint64
	v   T
}

// slot is one handle slot: the heap index of its event, and how many events have used the slot before.
type slot struct {
	pos int32
	gen uint32
}

// Handle names an event scheduled with Schedule, for Pending, When, Remove and Move. The zero Handle names no event
// (it is never pending). A handle is only meaningful to the Events that issued it. Generations are 32-bit, so a
// stale handle could alias a live event only if it were kept while its slot was reused 2^32 times.
type Handle struct {
	slot int32
	gen  uint32
}

func (a *event[T]) before(b *event[T]) bool { return a.t < b.t || a.t == b.t && a.seq < b.seq }

// nanTime is the panic of an event scheduled at NaN.
const nanTime = "sim: event time is NaN"

// Len is the number of pending events.
func (e *Events[T]) Len() int { return len(e.h) }

// Push schedules v at time t, with no handle.
func (e *Events[T]) Push(t float64, v T) {
	if t != t {
		panic(nanTime)
	}
	if e.slots != nil {
		e.schedule(t, v, 0)
		return
	}
	e.h = append(e.h, event[T]{t: t, seq: e.seq, v: v})
	e.seq++
	h := e.h
	for i := len(h) - 1; i > 0; {
		parent := (i - 1) / 2
		if !h[i].before(&h[parent]) {
			break
		}
		h[i], h[parent] = h[parent], h[i]
		i = parent
	}
}

// Schedule schedules v at time t and returns a handle to the pending event.
func (e *Events[T]) Schedule(t float64, v T) Handle {
	if t != t {
		panic(nanTime)
	}
	if e.slots == nil {
		e.slots = append(e.slots, slot{})        // the dummy slot 0
		e.at = make([]int32, len(e.h), cap(e.h)) // the events pushed so far have no handle
	}
	var s int32
	if n := len(e.free); n > 0 {
		s = e.free[n-1]
		e.free = e.free[:n-1]
	} else {
		s = int32(len(e.slots))
		e.slots = append(e.slots, slot{})
	}
	e.schedule(t, v, s)
	return Handle{slot: s, gen: e.slots[s].gen}
}

// schedule adds an event with handle slot s (0: none) once handles are in use.
func (e *Events[T]) schedule(t float64, v T, s int32) {
	e.h = append(e.h, event[T]{t: t, seq: e.seq, v: v})
	e.at = append(e.at, s)
	e.seq++
	last := len(e.h) - 1
	e.up(last, e.h[last], s)
}

// Next is the time of the earliest pending event; it panics when there is none.
func (e *Events[T]) Next() float64 { return e.h[0].t }

// Pop removes the earliest pending event and returns its time and payload; it panics when there is none. The
// event's handle, if it has one, goes stale.
func (e *Events[T]) Pop() (float64, T) {
	h := e.h
	top := h[0]
	if e.slots != nil {
		e.cut(0)
		return top.t, top.v
	}
	last := len(h) - 1
	h[0] = h[last]
	var zero event[T]
	h[last] = zero // drop the payload's references
	h = h[:last]
	for i := 0; ; {
		c := 2*i + 1
		if c >= len(h) {
			break
		}
		if c+1 < len(h) && h[c+1].before(&h[c]) {
			c++
		}
		if !h[c].before(&h[i]) {
			break
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
	e.h = h
	return top.t, top.v
}

// Pending reports whether h's event is still pending (not yet popped or removed).
func (e *Events[T]) Pending(h Handle) bool {
	return h.slot > 0 && int(h.slot) < len(e.slots) && e.slots[h.slot].gen == h.gen
}

// When returns the time of h's pending event, or false when h is stale.
func (e *Events[T]) When(h Handle) (float64, bool) {
	if !e.Pending(h) {
		return 0, false
	}
	return e.h[e.slots[h.slot].pos].t, true
}

// Remove cancels h's pending event and returns its payload; it returns false and changes nothing when h is stale
// (its event was popped or removed already).
func (e *Events[T]) Remove(h Handle) (T, bool) {
	if !e.Pending(h) {
		var zero T
		return zero, false
	}
	i := int(e.slots[h.slot].pos)
	v := e.h[i].v
	e.cut(i)
	return v, true
}

// Move reschedules h's pending event at time t, re-sequenced as the type's doc says, and keeps h valid; it returns
// false and changes nothing when h is stale.
func (e *Events[T]) Move(h Handle, t float64) bool {
	if t != t {
		panic(nanTime)
	}
	if !e.Pending(h) {
		return false
	}
	i := int(e.slots[h.slot].pos)
	x := e.h[i]
	x.t, x.seq = t, e.seq
	e.seq++
	e.fix(i, x, h.slot)
	return true
}

// cut takes the event at heap index i out and retires its handle slot (handles in use).
func (e *Events[T]) cut(i int) {
	if s := e.at[i]; s != 0 {
		e.slots[s].gen++
		e.free = append(e.free, s)
	}
	last := len(e.h) - 1
	x, xs := e.h[last], e.at[last]
	var zero event[T]
	e.h[last] = zero // drop the payload's references
	e.h, e.at = e.h[:last], e.at[:last]
	if i < last {
		e.fix(i, x, xs)
	}
}

// fix places x, with handle slot xs, at heap index i, whose previous occupant is gone, and restores the heap order.
func (e *Events[T]) fix(i int, x event[T], xs int32) {
	if i > 0 && x.before(&e.h[(i-1)/2]) {
		e.up(i, x, xs)
	} else {
		e.down(i, x, xs)
	}
}

// up places x, with handle slot xs, at index i or above it, moving later parents down into the hole.
func (e *Events[T]) up(i int, x event[T], xs int32) {
	h, at, slots := e.h, e.at, e.slots
	for i > 0 {
		p := (i - 1) / 2
		if !x.before(&h[p]) {
			break
		}
		h[i], at[i] = h[p], at[p]
		slots[at[i]].pos = int32(i)
		i = p
	}
	h[i], at[i] = x, xs
	slots[xs].pos = int32(i)
}

// down places x, with handle slot xs, at index i or below it, moving earlier children up into the hole.
func (e *Events[T]) down(i int, x event[T], xs int32) {
	h, at, slots := e.h, e.at, e.slots
	n := len(h)
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		if c+1 < n && h[c+1].before(&h[c]) {
			c++
		}
		if !h[c].before(&x) {
			break
		}
		h[i], at[i] = h[c], at[c]
		slots[at[i]].pos = int32(i)
		i = c
	}
	h[i], at[i] = x, xs
	slots[xs].pos = int32(i)
}
