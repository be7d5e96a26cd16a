package sim

import (
	"math"
	"math/bits"
	"math/rand/v2"
)

// Rand is a random stream: PCG-DXSM (math/rand/v2.PCG, two 64-bit seeds) called directly rather than through
// rand.Rand's Source interface, with the samplers the engines need per event. Not safe for concurrent use.
type Rand struct {
	pcg rand.PCG
}

// NewRand returns the stream seeded with (seed, stream).
func NewRand(seed, stream uint64) *Rand {
	r := &Rand{}
	r.pcg.Seed(seed, stream)
	return r
}

// Uint64 returns 64 uniformly random bits.
func (r *Rand) Uint64() uint64 { return r.pcg.Uint64() }

// Float64 returns a uniform value in [0, 1) with 53 bits of resolution.
func (r *Rand) Float64() float64 { return float64(r.pcg.Uint64()>>11) * 0x1p-53 }

// IntN returns a uniform integer in [0, n), n ≥ 1, without bias (Lemire, "Fast random integer generation in an
// interval", ACM TOMACS 29(1), 2019: multiply-shift with rejection of the short first interval).
func (r *Rand) IntN(n int) int {
	un := uint64(n)
	hi, lo := bits.Mul64(r.pcg.Uint64(), un)
	if lo < un { // rarely: the slow path, kept out of line so that IntN inlines
		return r.intNSlow(un, hi, lo)
	}
	return int(hi)
}

func (r *Rand) intNSlow(un, hi, lo uint64) int {
	thresh := -un % un
	for lo < thresh {
		hi, lo = bits.Mul64(r.pcg.Uint64(), un)
	}
	return int(hi)
}

// IntN2 returns two independent uniform integers in [0, n), 1 ≤ n < 2^32, from one 64-bit draw: Lemire's method on
// each 32-bit half, a half rejected (with probability < n/2^32) redrawn from a fresh 64-bit value.
func (r *Rand) IntN2(n int) (int, int) {
	un := uint64(n)
	u := r.pcg.Uint64()
	a, b := (u>>32)*un, (u&0xffffffff)*un
	if uint32(a) < uint32(n) || uint32(b) < uint32(n) {
		return r.intN2Slow(un, a, b)
	}
	return int(a >> 32), int(b >> 32)
}

func (r *Rand) intN2Slow(un, a, b uint64) (int, int) {
	thresh := uint32(-uint32(un) % uint32(un))
	for uint32(a) < thresh {
		a = (r.pcg.Uint64() >> 32) * un
	}
	for uint32(b) < thresh {
		b = (r.pcg.Uint64() >> 32) * un
	}
	return int(a >> 32), int(b >> 32)
}

// Exp returns an Exp(1) variate (divide by a rate for Exp(rate)), by the ziggurat method of Marsaglia & Tsang
// ("The ziggurat method for generating random variables", J. Stat. Softw. 5(8), 2000) with 256 layers of equal area
// under e^(−x). One 64-bit draw gives the layer (low 8 bits) and a 53-bit uniform (high bits); about 98.9% of draws
// are accepted at once. The base layer's overflow is the tail beyond R, sampled exactly as R + Exp(1)
// (memorylessness); the other layers' overflows are accepted under the curve with a second uniform.
func (r *Rand) Exp() float64 {
	for {
		u := r.pcg.Uint64()
		i := u & 0xff
		x := float64(u>>11) * 0x1p-53 * zig.x[i]
		if x < zig.x[i+1] {
			return x
		}
		if i == 0 {
			return zigR + r.Exp()
		}
		if zig.f[i]+r.Float64()*(zig.f[i+1]-zig.f[i]) < math.Exp(-x) {
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
