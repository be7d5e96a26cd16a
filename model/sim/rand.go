package sim

import (
	"math"
	"math/bits"
)

// Rand is a random stream: xoshiro256** (Blackman & Vigna, "Scrambled linear pseudorandom number generators", ACM
// TOMS 47(4), 2021; period 2^256 − 1, passes BigCrush and PractRand), the generator of the C reference in
// shared/anchors, with the samplers the engines need per event. Its state update is four xors, a shift and a rotation,
// so successive draws do not wait on a 128-bit multiply as math/rand/v2's PCG-DXSM's do (the README's performance
// section has the measured gain). Not safe for concurrent use.
type Rand struct {
	s0, s1, s2, s3 uint64
}

// NewRand returns the stream seeded with (seed, stream): the four state words are successive outputs of SplitMix64
// (Steele, Lea & Flood, OOPSLA 2014) started at seed XOR mix(stream), where mix is SplitMix64's output function
// (mix(0) = 0, so NewRand(seed, 0) is the C reference's rng_seed(seed)). Distinct (seed, stream) pairs give distinct
// starting points unless the 64-bit values seed XOR mix(stream) collide.
func NewRand(seed, stream uint64) *Rand {
	z := seed ^ mix64(stream)
	return &Rand{s0: splitMix64(&z), s1: splitMix64(&z), s2: splitMix64(&z), s3: splitMix64(&z)}
}

// splitMix64 advances *z by the golden-ratio increment and returns the mixed value.
func splitMix64(z *uint64) uint64 {
	*z += 0x9e3779b97f4a7c15
	return mix64(*z)
}

// mix64 is SplitMix64's output function, a bijection of the 64-bit values with mix64(0) = 0.
func mix64(x uint64) uint64 {
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// Uint64 returns 64 uniformly random bits.
func (r *Rand) Uint64() uint64 {
	out := bits.RotateLeft64(r.s1*5, 7) * 9
	t := r.s1 << 17
	r.s2 ^= r.s0
	r.s3 ^= r.s1
	r.s1 ^= r.s2
	r.s0 ^= r.s3
	r.s2 ^= t
	r.s3 = bits.RotateLeft64(r.s3, 45)
	return out
}

// Float64 returns a uniform value in [0, 1) with 53 bits of resolution.
func (r *Rand) Float64() float64 { return float64(r.Uint64()>>11) * 0x1p-53 }

// IntN returns a uniform integer in [0, n), n ≥ 1, without bias (Lemire, "Fast random integer generation in an
// interval", ACM TOMACS 29(1), 2019: multiply-shift with rejection of the short first interval).
func (r *Rand) IntN(n int) int {
	un := uint64(n)
	hi, lo := bits.Mul64(r.Uint64(), un)
	if lo < un { // rarely: the slow path, kept out of line so that IntN inlines
		return r.intNSlow(un, hi, lo)
	}
	return int(hi)
}

func (r *Rand) intNSlow(un, hi, lo uint64) int {
	thresh := -un % un
	for lo < thresh {
		hi, lo = bits.Mul64(r.Uint64(), un)
	}
	return int(hi)
}

// IntN2 returns two independent uniform integers, in [0, n) and in [0, m), 1 ≤ n, m < 2^32, from one 64-bit draw:
// Lemire's method on each 32-bit half (the high half for n), a half rejected (with probability < n/2^32, m/2^32)
// redrawn from the high half of a fresh 64-bit value.
func (r *Rand) IntN2(n, m int) (int, int) {
	u := r.Uint64()
	a, b := (u>>32)*uint64(n), (u&0xffffffff)*uint64(m)
	if uint32(a) < uint32(n) || uint32(b) < uint32(m) {
		return r.intN2Slow(uint64(n), uint64(m), a, b)
	}
	return int(a >> 32), int(b >> 32)
}

func (r *Rand) intN2Slow(n, m, a, b uint64) (int, int) {
	for thresh := -uint32(n) % uint32(n); uint32(a) < thresh; {
		a = (r.Uint64() >> 32) * n
	}
	for thresh := -uint32(m) % uint32(m); uint32(b) < thresh; {
		b = (r.Uint64() >> 32) * m
	}
	return int(a >> 32), int(b >> 32)
}

// Step returns r advanced by one draw, and the draw: Uint64 by value, the same stream. StepIntN and StepIntN2 are
// IntN and IntN2 so. A loop that copies a Rand into a local variable and draws by value keeps the four words in
// registers; through a *Rand they are loaded and stored at every draw, a chain of store-to-load forwarding through
// memory on the loop's critical path (balls into bins with one probe: 12% of a run's CPU, model/bins' place). The
// *Rand methods are kept as their own code, not wrappers of these: as wrappers their inlining changed and the
// supermarket's loop ran 35 more instructions an event.
func (r Rand) Step() (Rand, uint64) {
	out := bits.RotateLeft64(r.s1*5, 7) * 9
	t := r.s1 << 17
	r.s2 ^= r.s0
	r.s3 ^= r.s1
	r.s1 ^= r.s2
	r.s0 ^= r.s3
	r.s2 ^= t
	r.s3 = bits.RotateLeft64(r.s3, 45)
	return r, out
}

// StepIntN is IntN by value (see Step).
func (r Rand) StepIntN(n int) (Rand, int) {
	un := uint64(n)
	var u uint64
	r, u = r.Step()
	hi, lo := bits.Mul64(u, un)
	if lo < un { // rarely: the slow path, kept out of line
		return r.stepIntNSlow(un, hi, lo)
	}
	return r, int(hi)
}

func (r Rand) stepIntNSlow(un, hi, lo uint64) (Rand, int) {
	k := r.intNSlow(un, hi, lo) // on the copy r
	return r, k
}

// StepIntN2 is IntN2 by value (see Step).
func (r Rand) StepIntN2(n, m int) (Rand, int, int) {
	var u uint64
	r, u = r.Step()
	a, b := (u>>32)*uint64(n), (u&0xffffffff)*uint64(m)
	if uint32(a) < uint32(n) || uint32(b) < uint32(m) {
		return r.stepIntN2Slow(uint64(n), uint64(m), a, b)
	}
	return r, int(a >> 32), int(b >> 32)
}

func (r Rand) stepIntN2Slow(n, m, a, b uint64) (Rand, int, int) {
	i, j := r.intN2Slow(n, m, a, b) // on the copy r
	return r, i, j
}

// Exp returns an Exp(1) variate (divide by a rate for Exp(rate)), by the ziggurat method of Marsaglia & Tsang
// ("The ziggurat method for generating random variables", J. Stat. Softw. 5(8), 2000) with 256 layers of equal area
// under e^(−x). One 64-bit draw gives the layer (low 8 bits) and a 53-bit uniform (high bits); about 98.9% of draws
// are accepted at once. The base layer's overflow is the tail beyond R, sampled exactly as R + Exp(1)
// (memorylessness); the other layers' overflows are accepted under the curve with a second uniform.
func (r *Rand) Exp() float64 {
	u := r.Uint64()
	i := u & 0xff
	x := float64(u>>11) * 0x1p-53 * zig.x[i]
	if x < zig.x[i+1] {
		return x
	}
	return r.expSlow(i, x) // rarely (1.1%): kept out of line, so that an event loop inlines only the lines above
}

// expSlow finishes Exp for a draw that fell outside its layer's rectangle: layer i, abscissa x.
func (r *Rand) expSlow(i uint64, x float64) float64 {
	for {
		if i == 0 {
			return zigR + r.Exp()
		}
		if zig.f[i]+r.Float64()*(zig.f[i+1]-zig.f[i]) < math.Exp(-x) {
			return x
		}
		u := r.Uint64()
		i = u & 0xff
		x = float64(u>>11) * 0x1p-53 * zig.x[i]
		if x < zig.x[i+1] {
			return x
		}
	}
}

// IntNNew returns a uniform integer in [0, n) that is not among prior (distinct values, len(prior) < n), by drawing
// IntN(n) until the value is new: each call is uniform over the values not yet taken, so successive calls give a
// uniformly random ordered sample without replacement. Expected draws n/(n − len(prior)); meant for small samples
// (the callers keep len(prior) ≤ n/4).
func (r *Rand) IntNNew(n int, prior []int) int {
	for {
		k := r.IntN(n)
		fresh := true
		for _, x := range prior {
			if x == k {
				fresh = false
				break
			}
		}
		if fresh {
			return k
		}
	}
}

// Norm returns a standard normal variate by Marsaglia's polar method (Marsaglia & Bray, SIAM Review 6(3), 1964): a
// uniform point in the unit disc, rejected outside it (probability 1 − π/4), scaled by √(−2 ln s / s). One of the
// pair is returned, the other discarded, so the stream position does not depend on earlier calls.
func (r *Rand) Norm() float64 {
	for {
		u, v := 2*r.Float64()-1, 2*r.Float64()-1
		if s := u*u + v*v; s > 0 && s < 1 {
			return u * math.Sqrt(-2*math.Log(s)/s)
		}
	}
}

// Ziggurat constants for e^(−x) with 256 layers: R is the right edge of the base layer and v the area of each layer
// (Marsaglia & Tsang 2000, Table 1 for the exponential).
const (
	zigR = 7.69711747013104972
	zigV = 3.949659822581572e-3
)

// zig holds the layer edges x[i] (x[0] = v/f(R) is the base layer's virtual width, x[1] = R, decreasing to
// x[256] = 0) and f[i] = e^(−x[i]). Computed once; read-only afterwards.
var zig = func() (t struct{ x, f [257]float64 }) {
	t.x[0] = zigV / math.Exp(-zigR)
	t.x[1] = zigR
	for i := 1; i < 255; i++ {
		t.x[i+1] = -math.Log(math.Exp(-t.x[i]) + zigV/t.x[i])
	}
	t.x[256] = 0
	for i := range t.x {
		t.f[i] = math.Exp(-t.x[i])
	}
	return t
}()
