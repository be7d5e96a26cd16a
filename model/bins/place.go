package bins

import (
	"lbsweep/model/sim"
)

// load is the type of a bin's count: the smallest that fits, widened on overflow.
type load interface{ ~uint8 | ~uint16 | ~uint32 }

// placer is one run's placement rule, typed by the bins' width.
type placer struct {
	n           int
	d           int
	replacement bool
	tieRandom   bool
	scheme      scheme
	noise       float64
	threshold   int64
	groups      []int // go_left: group j is bins [groups[j], groups[j+1])
}

// place puts balls from..to−1 into bins and returns the index of the first ball it could not place because a bin
// would overflow T (to when all were placed). The caller widens the bins and calls again from there.
//
// Not inlined into its caller, so that the profile-guided build (cmd/sweep/default.pgo, whose call edges are
// place's) inlines the random draws into these loops: inlined into placeCtx, place's draws stayed calls (d = 1 at
// m = n = 10^6: IntN was 23% of a sweep's CPU as a call).
//
//go:noinline
func place[T load](p *placer, bins []T, r *sim.Rand, from, to int64) int64 {
	top := ^T(0)
	n := p.n
	switch {
	case p.scheme == greedy && p.d == 2 && p.replacement && !p.tieRandom && p.noise == 0:
		// Seed 001's assign(bins, probes=2): two probes with replacement, strictly less replaces, first wins ties.
		st := *r // drawn by value: the stream's state stays in registers (sim.Rand.Step); written back at each return
		for i := from; i < to; i++ {
			var a, b int
			st, a, b = st.StepIntN2(n, n) // the first probe, then the second
			if bins[b] < bins[a] {
				a = b
			}
			if bins[a] == top {
				*r = st
				return i
			}
			bins[a]++
		}
		*r = st
		return to
	case p.scheme == greedy && p.d == 1 && p.replacement && p.noise == 0:
		// One probe: the ball goes where it lands (the general loop below draws the same one IntN per ball and, with
		// one probe, never compares or breaks a tie: identical bins, without its per-probe branches).
		st := *r
		for i := from; i < to; i++ {
			var k int
			st, k = st.StepIntN(n)
			if bins[k] == top {
				*r = st
				return i
			}
			bins[k]++
		}
		*r = st
		return to
	case p.scheme == greedy && p.d == 3 && p.replacement && !p.tieRandom && p.noise == 0:
		// Three probes with replacement, strictly less replaces, the first wins ties: the general loop's draws and
		// choices (one IntN per probe, in order), without its per-probe branches.
		st := *r
		for i := from; i < to; i++ {
			var a, b, c int
			st, a = st.StepIntN(n)
			if st, b = st.StepIntN(n); bins[b] < bins[a] {
				a = b
			}
			if st, c = st.StepIntN(n); bins[c] < bins[a] {
				a = c
			}
			if bins[a] == top {
				*r = st
				return i
			}
			bins[a]++
		}
		*r = st
		return to
	case p.scheme == goLeft && !p.tieRandom && p.noise == 0:
		// Always-go-left, ties to the leftmost group: the general loop's draws (one IntN per group, left to right)
		// and choices, without its per-probe branches.
		g := p.groups
		st := *r
		for i := from; i < to; i++ {
			var best, k int
			st, best = st.StepIntN(g[1] - g[0])
			best += g[0]
			for j := 1; j < p.d; j++ {
				st, k = st.StepIntN(g[j+1] - g[j])
				if k += g[j]; bins[k] < bins[best] {
					best = k
				}
			}
			if bins[best] == top {
				*r = st
				return i
			}
			bins[best]++
		}
		*r = st
		return to
	case p.scheme == threshold:
		for i := from; i < to; i++ {
			k := r.IntN(n)
			if p.read(float64(bins[k]), r) > float64(p.threshold) {
				k = r.IntN(n) // over the threshold: take a second probe, whatever it reads
			}
			if bins[k] == top {
				return i
			}
			bins[k]++
		}
		return to
	}
	var seen [maxDistinct]int
	for i := from; i < to; i++ {
		best, ties := -1, 0
		var bestRead float64
		for j := range p.d {
			var k int
			switch {
			case p.scheme == goLeft:
				k = p.groups[j] + r.IntN(p.groups[j+1]-p.groups[j])
			case p.replacement:
				k = r.IntN(n)
			default: // distinct probes by rejection: each draw uniform over the bins not yet probed
				k = r.IntNNew(n, seen[:j])
				seen[j] = k
			}
			v := p.read(float64(bins[k]), r)
			switch {
			case best < 0 || v < bestRead:
				best, bestRead, ties = k, v, 1
			case v == bestRead && p.tieRandom: // reservoir: uniform among the tied probes
				ties++
				if r.IntN(ties) == 0 {
					best = k
				}
			}
		}
		if bins[best] == top {
			return i
		}
		bins[best]++
	}
	return to
}

// read is what a probe of a bin holding x balls reports: x, or x + N(0, noise²).
func (p *placer) read(x float64, r *sim.Rand) float64 {
	if p.noise == 0 {
		return x
	}
	return x + p.noise*r.Norm()
}

// widen copies bins into the next wider type.
func widen[T, U load](bins []T) []U {
	out := make([]U, len(bins))
	for i, v := range bins {
		out[i] = U(v)
	}
	return out
}

// histogram returns count[k] = bins with load exactly k, and the minimum and maximum load.
func histogram[T load](bins []T) (count []float64, lo, hi int) {
	if b8, ok := any(bins).([]uint8); ok {
		// The usual case: count into fixed tables, no growth check per bin. Four tables, used in turn, let
		// consecutive bins of equal load increment different counters rather than wait on each other's store.
		var c [4][256]int64
		i := 0
		for ; i+4 <= len(b8); i += 4 {
			c[0][b8[i]]++
			c[1][b8[i+1]]++
			c[2][b8[i+2]]++
			c[3][b8[i+3]]++
		}
		for ; i < len(b8); i++ {
			c[0][b8[i]]++
		}
		lo, hi = 255, 0
		for k := range 256 {
			if c[0][k]+c[1][k]+c[2][k]+c[3][k] > 0 {
				lo, hi = min(lo, k), k
			}
		}
		count = make([]float64, hi+1)
		for k := range count {
			count[k] = float64(c[0][k] + c[1][k] + c[2][k] + c[3][k])
		}
		return count, lo, hi
	}
	lo, hi = int(^uint32(0)>>1), 0
	for _, v := range bins {
		x := int(v)
		if x >= len(count) {
			count = append(count, make([]float64, x+1-len(count))...)
		}
		count[x]++
		lo, hi = min(lo, x), max(hi, x)
	}
	return count, lo, hi
}
