package sim

import (
	"testing"

	"lbsweep/model"
)

// TestStreamsGolden pins the start of each stream. Pinned: changing the stream derivation changes every published
// result. Computed once with math/rand/v2 (Go 1.26): rand.New(rand.NewPCG(seed, purpose)).Uint64() with seed = Run for
// arrivals and service, Run XOR Policy for dispatch, and purpose the ASCII words "arrivals", "services", "dispatch".
func TestStreamsGolden(t *testing.T) {
	s := NewStreams(model.Seed{Run: 1, Policy: 2})
	for _, c := range []struct {
		name string
		got  func() uint64
		want [3]uint64
	}{
		{"Arrivals", s.Arrivals.Uint64, [3]uint64{0xa30c403fcf7b0a4c, 0x55342badac3762dc, 0x6d5aa9b901a53dd6}},
		{"Service", s.Service.Uint64, [3]uint64{0xc89f8ef8bf9b713f, 0x652e8bfca49b9282, 0x04d5225f5e2d2b80}},
		{"Dispatch", s.Dispatch.Uint64, [3]uint64{0x95ae4a24e655be2e, 0xef6426bda64d69d4, 0xa82137db38e2dfab}},
	} {
		for i, want := range c.want {
			if got := c.got(); got != want {
				t.Errorf("%s value %d = %#016x, want %#016x", c.name, i, got, want)
			}
		}
	}
}

// first returns the first k values of each stream of seed: arrivals, service, dispatch.
func first(seed model.Seed, k int) [3][]uint64 {
	s := NewStreams(seed)
	var out [3][]uint64
	for range k {
		out[0] = append(out[0], s.Arrivals.Uint64())
		out[1] = append(out[1], s.Service.Uint64())
		out[2] = append(out[2], s.Dispatch.Uint64())
	}
	return out
}

func sameValues(a, b []uint64) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func anyShared(a, b []uint64) bool {
	for _, x := range a {
		for _, y := range b {
			if x == y {
				return true
			}
		}
	}
	return false
}

// TestStreamsCommonRandomNumbers: runs that differ only in the policy share arrivals and service but not dispatch;
// runs that differ in Run share nothing. Also the three streams of one run are distinct from each other.
func TestStreamsCommonRandomNumbers(t *testing.T) {
	const k = 16
	names := [3]string{"Arrivals", "Service", "Dispatch"}
	base := model.Seed{Run: 1, Policy: 2}
	a := first(base, k)
	for i := range 3 {
		for j := i + 1; j < 3; j++ {
			if anyShared(a[i], a[j]) {
				t.Errorf("%s and %s of one run share values", names[i], names[j])
			}
		}
	}
	otherPolicy := first(model.Seed{Run: 1, Policy: 3}, k)
	for i, want := range []bool{true, true, false} {
		if got := sameValues(a[i], otherPolicy[i]); got != want {
			t.Errorf("another Policy: %s equal = %v, want %v", names[i], got, want)
		}
	}
	for _, seed := range []model.Seed{{Run: 2, Policy: 2}, {Run: 1 << 40, Policy: 2}} {
		b := first(seed, k)
		for i := range 3 {
			if anyShared(a[i], b[i]) {
				t.Errorf("Run %d vs %d: %s share values", base.Run, seed.Run, names[i])
			}
		}
	}
	// A fresh NewStreams restarts every stream: the derivation is a pure function of the seed.
	again := first(base, k)
	for i := range 3 {
		if !sameValues(a[i], again[i]) {
			t.Errorf("%s not reproducible from the same seed", names[i])
		}
	}
}
