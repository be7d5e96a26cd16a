package sim

import (
	"lbsweep/model"
)

// Stream identifiers: the second seed of each purpose (see NewRand). Fixed forever: changing one changes every result.
const (
	streamArrivals = 0x6172726976616c73 // "arrivals"
	streamService  = 0x7365727669636573 // "services"
	streamDispatch = 0x6469737061746368 // "dispatch"
	streamBoard    = 0x626f617264202020 // "board   "
)

// Streams are the independent random streams of one run, one per purpose, so that runs that differ only in their
// dispatch policy see identical arrival times (common random numbers). Each is an xoshiro256** generator
// seeded with (seed, purpose) (NewRand).
type Streams struct {
	Arrivals *Rand // inter-arrival times
	Service  *Rand // service completions
	Dispatch *Rand // the policy's own choices; also keyed by the policy parameters
	// Board drives what the dispatchers are told rather than what they do: which dispatcher takes an arrival and
	// when a bulletin board's entries refresh (not keyed by the policy, so policies share it).
	Board *Rand
}

// NewStreams derives the streams of a run from its seed.
func NewStreams(s model.Seed) Streams {
	return Streams{
		Arrivals: NewRand(s.Run, streamArrivals),
		Service:  NewRand(s.Run, streamService),
		Dispatch: NewRand(s.Run^s.Policy, streamDispatch),
		Board:    NewRand(s.Run, streamBoard),
	}
}
