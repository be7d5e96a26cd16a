package policy

import (
	"lbsweep/model/sim"
)

const leastOutstandingDoc = "least outstanding requests (least connections): the server with the fewest requests " +
	"sent to it and not yet answered (queued and in service); ties to the first in list order (tie = first, seed " +
	"000's LeastConn: Python's min) or uniformly at random (tie = random, as jsq); with d, the same over d distinct " +
	"servers sampled in random order (power of d choices; seed 000 §5.3, §7.2, §7.3)"

// leastOutstandingArgs are least_outstanding's arguments: the scoring rule's d and tie.
var leastOutstandingArgs = scoreArgs

// LeastOutstandingConfig is least_outstanding's configuration: the candidate rule (d, tie).
type LeastOutstandingConfig struct{ ScoreConfig }

func buildLeastOutstanding(v Values) Config { return LeastOutstandingConfig{scoreConfigOf(v)} }

// Check implements Config: d.
func (c LeastOutstandingConfig) Check(s Servers) error { return c.check(s) }

// New implements Config.
func (c LeastOutstandingConfig) New(s Servers) Policy {
	return &leastOutstanding{scorer: newScorer(c.ScoreConfig, s.N)}
}

// Traits implements Config: load-aware unless d = 1; no theory family is declared (with tie = random and no d its law
// is JSQ's, but its rows have never carried theory); eligibility honored.
func (c LeastOutstandingConfig) Traits(s Servers) Traits { return c.traits(s) }

// leastOutstanding is seed 000's LeastConn (§5.3: score = in-flight requests, through ScorePolicy.pick): the score is
// the server's level in the view's loads, which models keep at the requests sent and not yet answered. With tie =
// first and no d its ties, the common case on an idle-ish fleet, are decided by list order (§7.2); with tie = random
// and no d it picks as jsq does (but draws its tie-breaks differently, so the streams differ).
type leastOutstanding struct {
	scorer
}

func (p *leastOutstanding) score(l *sim.Levels, k int) float64 { return float64(l.Len(k)) }

// Pick implements Policy.
func (p *leastOutstanding) Pick(v View, req Request, r *sim.Rand) int {
	return p.pick(v, req.Key, r, p)
}
