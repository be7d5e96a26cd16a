package policy

import (
	"lbsweep/model/sim"
)

const leastOutstandingDoc = "least outstanding requests (least connections): the server with the fewest requests " +
	"sent to it and not yet answered (queued and in service); ties to the first in list order (tie = first, seed " +
	"000's LeastConn: Python's min) or uniformly at random (tie = random, as jsq); with d, the same over d distinct " +
	"servers sampled in random order (power of d choices; seed 000 §5.3, §7.2, §7.3)"

// leastOutstanding is seed 000's LeastConn (§5.3: score = in-flight requests, through ScorePolicy.pick): the score is
// the server's level in sim.Levels, which models keep at the requests sent and not yet answered. With tie = first
// and no d its ties, the common case on an idle-ish fleet, are decided by list order (§7.2); with tie = random and no
// d it picks as jsq does (but draws its tie-breaks differently, so the streams differ).
type leastOutstanding struct {
	scorer
}

func newLeastOutstanding(a Args, s Servers) Policy {
	return &leastOutstanding{scorer: newScorer(a, s.N)}
}

func (p *leastOutstanding) score(l *sim.Levels, k int) float64 { return float64(l.Len(k)) }

func (p *leastOutstanding) Pick(l *sim.Levels, r *sim.Rand, _ float64) int { return p.pick(l, r, p) }
