package analytic

// Deterministic aperture (Finagle 24.2.0, finagle-core
// com.twitter.finagle.loadbalancer.aperture: DeterministicAperture,
// ProcessCoordinate, Ring). C clients and B backends are laid on one unit
// ring: backend j owns [j/B, (j+1)/B) and client i's coordinate is
// (i/C + φ) mod 1, with φ a rotation shared by the clients (Finagle's
// peerOffset/Int.MaxValue). A client of logical aperture a covers the arc
// [coordinate, coordinate + N/C), N = ⌈a·C/B⌉: the arc is rounded up to a
// whole number of client units so that the C arcs cover every point of the
// ring exactly N times. Its connections are the backends the arc overlaps
// with positive length, and it sends its requests to them in proportion to
// the overlap (the edge backends fractionally).
//
// Because every point is covered exactly N times, each backend's summed
// overlap is N/B, and so its request load, Σ_i overlap/(N/C) per unit of
// client load, is exactly C/B: deterministic aperture spreads load exactly
// evenly whatever a, C, B and φ. The connection counts are not all equal
// when B does not divide C. In units of 1/(B·C) the client arcs start at
// i·B + s (s = φ·B·C) and backend j is [j·C, (j+1)·C); for s off the
// lattice (no arc end on a backend boundary: true for all φ but a set of
// measure zero) backend j meets the clients whose start lies in the open
// window (j·C − N·B − s, (j+1)·C − s)/B of length N + C/B client units, so
// its count is N + D_j, D_j = ⌊((j+1)C − s)/B⌋ − ⌊(jC − s)/B⌋ ∈
// {⌊C/B⌋, ⌈C/B⌉}, capped at C (distinct clients). The D_j telescope to
// Σ_j D_j = C, so exactly C mod B backends have N + ⌈C/B⌉ and the rest
// N + ⌊C/B⌋, on every run. (With φ on the lattice, e.g. φ = 0 and B
// dividing C, the arcs end exactly on boundaries and the counts are one
// less: N + C/B − 1.)

import "math"

// ApertureUnits returns N = ⌈a·c/b⌉, the client units of the ring that one
// deterministic aperture of logical size a covers (Finagle's
// DeterministicAperture.dApertureWidth before its cap at the whole ring),
// capped at c (the whole ring). The arc covers N·b/c ≥ a backends' worth. It
// panics unless c ≥ 1 and 1 ≤ a ≤ b.
func ApertureUnits(c, b, a int) int {
	if c < 1 || a < 1 || a > b {
		panic("analytic: ApertureUnits: need c ≥ 1 and 1 ≤ a ≤ b")
	}
	n := (a*c + b - 1) / b
	return min(n, c)
}

// ApertureCounts returns the exact connection counts of deterministic
// aperture with c clients, b backends and logical aperture a, for a rotation
// off the lattice (see the package comment): nHigh backends have hi clients
// and the other b − nHigh have lo, with lo = min(c, N + ⌊c/b⌋), hi =
// min(c, N + ⌈c/b⌉) and nHigh = c mod b (0 when lo = hi). It panics unless
// c ≥ 1 and 1 ≤ a ≤ b.
func ApertureCounts(c, b, a int) (lo, hi, nHigh int) {
	n := ApertureUnits(c, b, a)
	lo, hi = min(c, n+c/b), min(c, n+(c+b-1)/b)
	if lo == hi {
		return lo, hi, 0
	}
	return lo, hi, c % b
}

// LoadBandAperture returns the aperture Finagle's LoadBand controller settles
// at when each client has `load` requests in flight (a constant; the
// controller's exponential average of it then rises monotonically from 0 to
// load) and starts at its minimum m: it widens by one while load/a ≥ high and
// narrows while load/a ≤ low, within [m, b], so from m it stops at the
// smallest a with load/a < high, a = ⌊load/high⌋ + 1, clamped to [m, b].
// stable reports whether that a is a fixed point: it is unless a > m and
// load/a ≤ low, which needs load ≤ low·high/(high − low) (since load/a >
// high·load/(load + high)): 2/3 for the band [0.5, 2], 3.9375 for Finagle
// 24.2.0's [0.875, 1.125]. When it is not, the controller alternates between
// a − 1 and a. Every a with low < load/a < high is a fixed point, so a load
// that falls from above can leave the aperture as high as ⌈load/low⌉ − 1:
// this is the state reached from below. It panics unless load ≥ 0 is finite,
// 0 < low < high is finite, and 1 ≤ m ≤ b.
func LoadBandAperture(load, low, high float64, m, b int) (a int, stable bool) {
	if !(load >= 0) || math.IsInf(load, 0) || !(low > 0 && low < high) || math.IsInf(high, 0) || m < 1 || m > b {
		panic("analytic: LoadBandAperture: need load ≥ 0, 0 < low < high and 1 ≤ m ≤ b")
	}
	a = b
	if f := math.Floor(load / high); f < float64(b) {
		a = max(m, min(b, int(f)+1))
	}
	return a, !(a > m && load/float64(a) <= low)
}
