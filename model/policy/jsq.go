package policy

import (
	"lbsweep/model/sim"
)

const jsqDoc = "join the shortest queue: scan all n servers, ties uniformly at random (optimal for identical " +
	"exponential servers with fresh information: Winston, J. Appl. Prob. 14(1), 1977); O(1) per pick through the " +
	"sorted levels"

type jsq struct{}

func newJSQ(Args, Servers) Policy { return jsq{} }

func (jsq) Pick(l *sim.Levels, r *sim.Rand, _ float64) int { return PickShortest(l, r) }
