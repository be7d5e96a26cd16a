package sim

import (
	"testing"

	"lbsweep/model"
)

// TestStreamsGolden pins the start of each stream. Pinned: changing the stream derivation changes every published
// result. Computed once with a separate C program (xoshiro256** seeded by four SplitMix64 outputs from
// seed XOR mix64(purpose), as NewRand documents) with seed = Run for arrivals, service and the board, Run XOR Policy for
// dispatch, and purpose the ASCII words "arrivals", "services", "dispatch", "board   ".
func TestStreamsGolden(t *testing.T) {
	s := NewStreams(model.Seed{Run: 1, Policy: 2})
	for _, c := range []struct {
		name string
		got  func() uint64
		want [3]uint64
	}{
		{"Arrivals", s.Arrivals.Uint64, [3]uint64{0x2193d3ff2c5bda0d, 0x8ed7a5e75f4dd10e, 0x6e349d7914292f6e}},
		{"Service", s.Service.Uint64, [3]uint64{0x971db681a2e5f66d, 0xe19aac7baea77366, 0x6313509ed01cb128}},
		{"Dispatch", s.Dispatch.Uint64, [3]uint64{0x3524326dcf98921e, 0x3ebbd92054763278, 0x2b9433d5756c7980}},
		{"Board", s.Board.Uint64, [3]uint64{0xee9245fa091c8058, 0xfbae74013d2a817f, 0x0252a175e852b4a5}},
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
