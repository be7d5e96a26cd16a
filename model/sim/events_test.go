package sim

import (
	"cmp"
	"math"
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

// benchEvent is the size of the fleet's pending response (a server, two flags, an arrival time).
type benchEvent struct {
	server   int32
	ok, seen bool
	arrived  float64
}

// benchSteps are exponential time increments, drawn once so that the benchmarks time the heap, not the generator.
func benchSteps() []float64 {
	r := NewRand(1, 2)
	steps := make([]float64, 4096)
	for i := range steps {
		steps[i] = r.Exp()
	}
	return steps
}

// BenchmarkEvents times one operation pair on a list holding 1024 pending events. push/pop: a hold model, each Pop
// followed by a Push at the popped time plus an exponential step, as the fleet uses the list; schedule/pop: the same
// with handles (Schedule for Push); schedule/cancel: each op schedules an event and cancels the oldest pending one, a
// request's timeout cancelled by its response; schedule/move: each op moves the oldest scheduled event to a later
// time, a hedge timer pushed back.
func BenchmarkEvents(b *testing.B) {
	const pending = 1024
	steps := benchSteps()
	b.Run("push/pop", func(b *testing.B) {
		var e Events[benchEvent]
		for i := range pending {
			e.Push(steps[i], benchEvent{server: int32(i)})
		}
		b.ReportAllocs()
		b.ResetTimer()
		for i := range b.N {
			t, v := e.Pop()
			e.Push(t+steps[i&4095], v)
		}
	})
	b.Run("schedule/pop", func(b *testing.B) {
		var e Events[benchEvent]
		for i := range pending {
			e.Schedule(steps[i], benchEvent{server: int32(i)})
		}
		b.ReportAllocs()
		b.ResetTimer()
		for i := range b.N {
			t, v := e.Pop()
			e.Schedule(t+steps[i&4095], v)
		}
	})
	b.Run("schedule/cancel", func(b *testing.B) {
		var e Events[benchEvent]
		var ring [pending]Handle
		for i := range pending {
			ring[i] = e.Schedule(steps[i], benchEvent{server: int32(i)})
		}
		now := steps[pending]
		b.ReportAllocs()
		b.ResetTimer()
		for i := range b.N {
			k := i % pending
			v, ok := e.Remove(ring[k])
			if !ok {
				b.Fatal("a pending event's handle went stale")
			}
			now += steps[i&4095] / pending
			ring[k] = e.Schedule(now+steps[(i+7)&4095], v)
		}
	})
	b.Run("schedule/move", func(b *testing.B) {
		var e Events[benchEvent]
		var ring [pending]Handle
		for i := range pending {
			ring[i] = e.Schedule(steps[i], benchEvent{server: int32(i)})
		}
		now := steps[pending]
		b.ReportAllocs()
		b.ResetTimer()
		for i := range b.N {
			now += steps[i&4095] / pending
			if !e.Move(ring[i%pending], now+steps[(i+7)&4095]) {
				b.Fatal("a pending event's handle went stale")
			}
		}
	})
}

// Exact behaviour of handles on small lists: each case is a script of operations and the pops it must give.
func TestEventsHandles(t *testing.T) {
	type pop struct {
		t  float64
		id string
	}
	cases := []struct {
		name string
		run  func(e *Events[string]) // schedules, cancels and moves; the test then pops everything
		want []pop
	}{
		{"remove the earliest", func(e *Events[string]) {
			a := e.Schedule(1, "a")
			e.Push(2, "b")
			e.Schedule(3, "c")
			if v, ok := e.Remove(a); !ok || v != "a" {
				t.Errorf("Remove = %q, %v", v, ok)
			}
		}, []pop{{2, "b"}, {3, "c"}}},
		{"remove the last in the heap", func(e *Events[string]) {
			e.Schedule(1, "a")
			e.Schedule(2, "b")
			c := e.Schedule(3, "c")
			e.Remove(c)
		}, []pop{{1, "a"}, {2, "b"}}},
		{"remove the only event", func(e *Events[string]) {
			e.Remove(e.Schedule(1, "a"))
		}, nil},
		{"move earlier", func(e *Events[string]) {
			e.Push(1, "a")
			e.Push(2, "b")
			c := e.Schedule(3, "c")
			e.Move(c, 0.5)
		}, []pop{{0.5, "c"}, {1, "a"}, {2, "b"}}},
		{"move later", func(e *Events[string]) {
			a := e.Schedule(1, "a")
			e.Push(2, "b")
			e.Move(a, 5)
		}, []pop{{2, "b"}, {5, "a"}}},
		{"a moved event goes after the ties already scheduled", func(e *Events[string]) {
			a := e.Schedule(1, "a")
			e.Push(2, "b")
			e.Push(2, "c")
			e.Move(a, 2)
			e.Push(2, "d")
		}, []pop{{2, "b"}, {2, "c"}, {2, "a"}, {2, "d"}}},
		{"a move to its own time re-sequences too", func(e *Events[string]) {
			a := e.Schedule(1, "a")
			e.Push(1, "b")
			e.Move(a, 1)
		}, []pop{{1, "b"}, {1, "a"}}},
		{"pushes before the first handle keep their order", func(e *Events[string]) {
			e.Push(1, "a")
			e.Push(1, "b")
			h := e.Schedule(1, "c")
			e.Push(1, "d")
			e.Move(h, 1)
		}, []pop{{1, "a"}, {1, "b"}, {1, "d"}, {1, "c"}}},
		{"a slot reused after a cancel", func(e *Events[string]) {
			a := e.Schedule(1, "a")
			e.Remove(a)
			b := e.Schedule(2, "b")
			if e.Remove(a); !e.Pending(b) {
				t.Error("a stale handle cancelled its slot's next event")
			}
			if e.Move(a, 0) {
				t.Error("a stale handle moved its slot's next event")
			}
		}, []pop{{2, "b"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var e Events[string]
			c.run(&e)
			var got []pop
			for e.Len() > 0 {
				tm, id := e.Pop()
				got = append(got, pop{tm, id})
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("pops %v, want %v", got, c.want)
			}
		})
	}
}

// A handle goes stale when its event is popped or removed, stays valid across moves, and a stale or zero handle
// changes nothing.
func TestEventsStaleHandles(t *testing.T) {
	var e Events[int]
	var zero Handle
	if e.Pending(zero) {
		t.Error("the zero handle is pending on an empty list")
	}
	a := e.Schedule(1, 1)
	b := e.Schedule(2, 2)
	if e.Pending(zero) || !e.Pending(a) || !e.Pending(b) {
		t.Fatal("Pending wrong after two schedules")
	}
	if !e.Move(a, 3) {
		t.Fatal("Move of a pending event failed")
	}
	if tm, ok := e.When(a); !ok || tm != 3 {
		t.Errorf("When after Move = %v, %v", tm, ok)
	}
	if tm, v := e.Pop(); tm != 2 || v != 2 {
		t.Fatalf("Pop = %v, %v", tm, v)
	}
	if e.Pending(b) {
		t.Error("a popped event's handle is still pending")
	}
	if _, ok := e.Remove(b); ok {
		t.Error("Remove of a popped event reported success")
	}
	if e.Move(b, 0) {
		t.Error("Move of a popped event reported success")
	}
	if _, ok := e.When(b); ok {
		t.Error("When of a popped event reported a time")
	}
	if v, ok := e.Remove(a); !ok || v != 1 {
		t.Fatalf("Remove = %v, %v", v, ok)
	}
	if _, ok := e.Remove(a); ok {
		t.Error("a second Remove reported success")
	}
	if e.Len() != 0 {
		t.Errorf("Len %d after everything was popped or removed", e.Len())
	}
	// A handle whose slot this list never issued (another list's) is stale, not a panic.
	var other Events[int]
	for range 5 {
		other.Schedule(1, 0)
	}
	if e.Pending(other.Schedule(1, 0)) {
		t.Error("a foreign handle beyond the slot table is pending")
	}
}

// Random pushes, schedules, pops, cancels and moves (stale handles included) against a reference model: a slice of
// the pending events, the earliest found by a scan over (time, sequence number).
func TestEventsRandomOps(t *testing.T) {
	type ref struct {
		t   float64
		seq uint64
		id  int
	}
	r := NewRand(11, 12)
	var e Events[int]
	var pending []ref            // the reference
	var handles []Handle         // every handle issued, live or stale
	handleID := map[Handle]int{} // the id of each handle's event
	var seq uint64
	earliest := func() int {
		best := 0
		for i, p := range pending {
			if p.t < pending[best].t || p.t == pending[best].t && p.seq < pending[best].seq {
				best = i
			}
		}
		return best
	}
	find := func(id int) int {
		for i, p := range pending {
			if p.id == id {
				return i
			}
		}
		return -1
	}
	now := 0.0
	const ops = 20000
	var pops, removes, stale, moves int
	for id := range ops {
		switch op := r.IntN(10); {
		case op < 2: // Push
			x := ref{now + float64(r.IntN(6)), seq, id}
			seq++
			e.Push(x.t, x.id)
			pending = append(pending, x)
		case op < 5: // Schedule
			x := ref{now + float64(r.IntN(6)), seq, id}
			seq++
			h := e.Schedule(x.t, x.id)
			handles, handleID[h] = append(handles, h), x.id
			pending = append(pending, x)
		case op < 7: // Pop
			if len(pending) == 0 {
				continue
			}
			i := earliest()
			if e.Next() != pending[i].t {
				t.Fatalf("op %d: Next %v, want %v", id, e.Next(), pending[i].t)
			}
			tm, v := e.Pop()
			if tm != pending[i].t || v != pending[i].id {
				t.Fatalf("op %d: Pop %v %d, want %v %d", id, tm, v, pending[i].t, pending[i].id)
			}
			now = tm
			pending = slices.Delete(pending, i, i+1)
			pops++
		case op < 9: // Remove a random handle, maybe stale
			if len(handles) == 0 {
				continue
			}
			h := handles[r.IntN(len(handles))]
			i := find(handleID[h])
			v, ok := e.Remove(h)
			if ok != (i >= 0) || e.Pending(h) {
				t.Fatalf("op %d: Remove ok %v, want %v", id, ok, i >= 0)
			}
			if ok {
				if v != handleID[h] {
					t.Fatalf("op %d: Remove returned %d, want %d", id, v, handleID[h])
				}
				pending = slices.Delete(pending, i, i+1)
				removes++
			} else {
				stale++
			}
		default: // Move a random handle, maybe stale
			if len(handles) == 0 {
				continue
			}
			h := handles[r.IntN(len(handles))]
			i := find(handleID[h])
			to := now + float64(r.IntN(6))
			if ok := e.Move(h, to); ok != (i >= 0) {
				t.Fatalf("op %d: Move ok %v, want %v", id, ok, i >= 0)
			}
			if i >= 0 {
				pending[i].t, pending[i].seq = to, seq
				seq++
				moves++
				if w, ok := e.When(h); !ok || w != to {
					t.Fatalf("op %d: When %v %v after a move to %v", id, w, ok, to)
				}
			}
		}
		if e.Len() != len(pending) {
			t.Fatalf("op %d: Len %d, want %d", id, e.Len(), len(pending))
		}
	}
	for len(pending) > 0 { // drain
		i := earliest()
		if tm, v := e.Pop(); tm != pending[i].t || v != pending[i].id {
			t.Fatalf("drain: Pop %v %d, want %v %d", tm, v, pending[i].t, pending[i].id)
		}
		pending = slices.Delete(pending, i, i+1)
	}
	for _, h := range handles {
		if e.Pending(h) {
			t.Fatal("a handle is pending on a drained list")
		}
	}
	t.Logf("%d pops, %d removes, %d stale removes, %d moves; %d slots for %d handles", pops, removes, stale, moves,
		len(e.slots)-1, len(handles))
}

// Once warm, a steady schedule/cancel/pop cycle allocates nothing.
func TestEventsNoAllocs(t *testing.T) {
	var e Events[int]
	var ring [64]Handle
	for i := range ring {
		ring[i] = e.Schedule(float64(i), i)
	}
	i := 0
	allocs := testing.AllocsPerRun(1000, func() {
		k := i % len(ring)
		e.Remove(ring[k])
		ring[k] = e.Schedule(float64(i+64), k)
		t, v := e.Pop()
		e.Push(t+1, v)
		e.Pop()
		ring[k] = e.Schedule(float64(i+65), k)
		i++
	})
	if allocs != 0 {
		t.Errorf("%v allocations per cycle", allocs)
	}
}

// A NaN time would compare false with every other and silently break the heap's order: Push, Schedule and Move
// refuse it.
func TestEventsNaN(t *testing.T) {
	nan := math.NaN()
	var e Events[int]
	h := e.Schedule(1, 1)
	for name, f := range map[string]func(){
		"Push":     func() { e.Push(nan, 2) },
		"Schedule": func() { e.Schedule(nan, 3) },
		"Move":     func() { e.Move(h, nan) },
	} {
		func() {
			defer func() {
				if r := recover(); r != nanTime {
					t.Errorf("%s(NaN): recovered %v, want the panic %q", name, r, nanTime)
				}
			}()
			f()
		}()
	}
	if e.Len() != 1 || e.Next() != 1 {
		t.Errorf("after the refused calls: %d pending, next at %v; want 1 at 1", e.Len(), e.Next())
	}
}
