package sim

// FIFO is a growable ring of float64 (a server's queue of arrival times, oldest first). The zero value is empty.
type FIFO struct {
	buf  []float64 // len is a power of two, or 0
	head int
	n    int
}

// Push appends v at the tail.
func (f *FIFO) Push(v float64) {
	if f.n == len(f.buf) {
		nb := make([]float64, max(8, 2*len(f.buf)))
		for i := range f.n {
			nb[i] = f.buf[(f.head+i)&(len(f.buf)-1)]
		}
		f.buf, f.head = nb, 0
	}
	f.buf[(f.head+f.n)&(len(f.buf)-1)] = v
	f.n++
}

// Pop removes and returns the head; it panics when empty.
func (f *FIFO) Pop() float64 {
	if f.n == 0 {
		panic("sim: Pop on an empty FIFO")
	}
	v := f.buf[f.head]
	f.head = (f.head + 1) & (len(f.buf) - 1)
	f.n--
	return v
}

// Len is the number of items held.
func (f *FIFO) Len() int { return f.n }
