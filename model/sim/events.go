package sim

// Events is a future-event list: a binary min-heap of pending events, each a time and a payload of the model's
// choosing (what happens then). The earliest time comes out first; events at equal times come out in the order they
// were scheduled (a sequence number breaks the tie), so a run never depends on the heap's internal order. Push and
// Pop are O(log n) and allocate only when the heap grows. Not safe for concurrent use; the zero value is empty.
//
// Cancelling or moving a pending event (a timeout that no longer applies, a hedge; seed 004) is not needed yet: it
// would add each event's heap position to the payload's record, as container/heap's Fix does.
type Events[T any] struct {
	h   []event[T]
	seq uint64
}

type event[T any] struct {
	t   float64
	seq uint64
	v   T
}

func (a *event[T]) before(b *event[T]) bool { return a.t < b.t || a.t == b.t && a.seq < b.seq }

// Len is the number of pending events.
func (e *Events[T]) Len() int { return len(e.h) }

// Push schedules v at time t.
func (e *Events[T]) Push(t float64, v T) {
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

// Next is the time of the earliest pending event; it panics when there is none.
func (e *Events[T]) Next() float64 { return e.h[0].t }

// Pop removes the earliest pending event and returns its time and payload; it panics when there is none.
func (e *Events[T]) Pop() (float64, T) {
	h := e.h
	top := h[0]
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
