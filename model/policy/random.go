package policy

import (
	"lbsweep/model/sim"
)

const randomDoc = "uniform random server, ignoring loads (JSQ(1)); with identical servers each is an M/M/1 queue " +
	"(Mitzenmacher, Richa & Sitaraman survey, 2001, §4)"

type random struct{}

func newRandom(Args, Servers) Policy { return random{} }

func (random) Pick(l *sim.Levels, r *sim.Rand, _ float64) int { return PickRandom(l, r) }
