package sim

import (
	"math/rand/v2"
	"testing"
)

// TestFIFOAgainstSlice interleaves pushes and pops (10⁴ operations, in phases that grow the ring from empty and then
// shrink it, so the head wraps around every buffer size) and compares with a plain slice queue.
func TestFIFOAgainstSlice(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	var f FIFO
	var want []float64
	next := 0.0
	const ops = 10_000
	grown := 0
	for i := range ops {
		pPush := 0.65 // grow: the ring doubles from 8 well past 1,000
		if (i/2000)%2 == 1 {
			pPush = 0.35 // shrink: the head wraps around the grown buffer
		}
		if len(want) == 0 || r.Float64() < pPush {
			next++
			f.Push(next)
			want = append(want, next)
		} else {
			got := f.Pop()
			if got != want[0] {
				t.Fatalf("op %d: Pop() = %v, want %v", i, got, want[0])
			}
			want = want[1:]
		}
		if f.Len() != len(want) {
			t.Fatalf("op %d: Len() = %d, want %d", i, f.Len(), len(want))
		}
		grown = max(grown, len(want))
	}
	if grown < 500 {
		t.Fatalf("queue reached only %d items: the test does not exercise growth", grown)
	}
	for len(want) > 0 {
		if got := f.Pop(); got != want[0] {
			t.Fatalf("drain: Pop() = %v, want %v", got, want[0])
		}
		want = want[1:]
	}
	if f.Len() != 0 {
		t.Fatalf("Len() = %d after draining, want 0", f.Len())
	}
}

// TestFIFOGrowWhileWrapped fills the ring with its head in the middle of the buffer, then grows it: the order must
// survive the copy.
func TestFIFOGrowWhileWrapped(t *testing.T) {
	for _, size := range []int{8, 16, 64} {
		var f FIFO
		next, popped := 0.0, 0.0
		for range size { // fill the first buffer exactly (its capacity is size after growth from smaller ones)
			next++
			f.Push(next)
		}
		for range size / 2 { // move the head to the middle
			popped++
			if got := f.Pop(); got != popped {
				t.Fatalf("size %d: Pop() = %v, want %v", size, got, popped)
			}
		}
		for range size/2 + 3 { // wrap the tail around, then force a growth
			next++
			f.Push(next)
		}
		for f.Len() > 0 {
			popped++
			if got := f.Pop(); got != popped {
				t.Fatalf("size %d: Pop() = %v, want %v", size, got, popped)
			}
		}
		if popped != next {
			t.Fatalf("size %d: popped %v items, pushed %v", size, popped, next)
		}
	}
}

func TestFIFOPopEmpty(t *testing.T) {
	var f FIFO
	mustPanicSim(t, "Pop on a zero FIFO", func() { f.Pop() })
	f.Push(1)
	f.Pop()
	mustPanicSim(t, "Pop on a drained FIFO", func() { f.Pop() })
}
