package sim

// FIFO is a growable ring of float64 (a server's queue of arrival times, oldest first), of up to 2^31 items. The zero
// value is empty. It is 32 bytes, so that two servers' rings share a cache line and none straddles two.
type FIFO struct {
	buf  []float64 // len is a power of two, or 0
	head uint32
	n    uint32
}

// Push appends v at the tail.
func (f *FIFO) Push(v float64) {
	if int(f.n) == len(f.buf) {
		f.grow()
	}
	f.buf[int(f.head+f.n)&(len(f.buf)-1)] = v
	f.n++
}

// Pop removes and returns the head; it panics when empty.
func (f *FIFO) Pop() float64 {
	if f.n == 0 {
		panic("sim: Pop on an empty FIFO")
	}
	v := f.buf[f.head]
	f.head = (f.head + 1) & uint32(len(f.buf)-1)
	f.n--
	return v
}

// Len is the number of items held.
func (f *FIFO) Len() int { return int(f.n) }

// grow doubles the ring (from 8), oldest item first.
func (f *FIFO) grow() {
	if len(f.buf) == 1<<31 {
		panic("sim: FIFO of more than 2^31 items")
	}
	nb := make([]float64, max(8, 2*len(f.buf)))
	for i := range int(f.n) {
		nb[i] = f.buf[(int(f.head)+i)&(len(f.buf)-1)]
	}
	f.buf, f.head = nb, 0
}
