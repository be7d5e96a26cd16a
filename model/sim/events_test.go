package sim

import (
	"cmp"
	"slices"
	"testing"
)

// Events come out in time order, ties in the order they were pushed, interleaved with pushes, whatever the order of
// the pushes (compared with a stable sort of the same events).
func TestEventsOrder(t *testing.T) {
	type ev struct {
		t  float64
		id int
	}
	r := NewRand(3, 4)
	var e Events[int]
	var pending, popped, want []ev
	now := 0.0
	for i := range 20000 {
		if e.Len() == 0 || r.IntN(3) > 0 {
			// Few distinct times, so that ties are common.
			x := ev{now + float64(r.IntN(8)), i}
			e.Push(x.t, x.id)
			pending = append(pending, x)
			continue
		}
		next := e.Next()
		tm, id := e.Pop()
		if tm != next {
			t.Fatalf("Next %v, Pop %v", next, tm)
		}
		now = tm
		popped = append(popped, ev{tm, id})
		// The expected event: the earliest pending one, the first pushed among equal times.
		slices.SortStableFunc(pending, func(a, b ev) int { return cmp.Compare(a.t, b.t) })
		want = append(want, pending[0])
		pending = pending[1:]
	}
	if !slices.Equal(popped, want) {
		t.Fatalf("pop order differs from a stable sort by time")
	}
	if e.Len() != len(pending) {
		t.Fatalf("Len %d, want %d", e.Len(), len(pending))
	}
}
