package supermarket

import (
	"sync"

	"lbsweep/model"
	"lbsweep/results/schema"
)

// closedForm is a point's theory columns, as theory and boardFluid compute them; source "" where none applies (the
// columns stay null).
type closedForm struct {
	mean, p99 schema.Cell // theory_mean_sojourn, theory_p99_sojourn: Float or Null
	tail      []float64   // theory_queue_tail at the length it was computed for
	zeros     bool        // the tail continues with zeros past its end (the fluid limit's); else it is computed longer
	source    string
}

// set fills the theory columns of row for a run whose queue_tail has length k: the tail cut to k (sharing c.tail's
// array, capped so that no append can reach it) or, when zeros, padded with zeros to k. It needs len(c.tail) ≥ k
// unless zeros.
func (c closedForm) set(row *schema.Builder, k int) {
	if c.source == "" {
		return
	}
	tail := c.tail
	if k <= len(tail) {
		tail = tail[:k:k]
	} else {
		tail = make([]float64, k)
		copy(tail, c.tail)
	}
	row.Set(colTheoryMeanSojourn, c.mean)
	row.Set(colTheoryP99Sojourn, c.p99)
	row.Set(colTheoryQueueTail, schema.List(tail))
	row.Set(colTheorySource, schema.Str(c.source))
}

// firstTheoryLength is the tail length a point's theory is first computed for: longer than most runs' longest queue.
const firstTheoryLength = 64

// sharedTheory returns the model.Theory of a point of schema s whose theory columns at tail length k are at(k): it is
// computed once, at firstTheoryLength, and again (at twice the length or the run's, whichever is longer) only for a
// run whose queue_tail outgrows the tail computed so far; nil when no theory applies.
//
// Cutting the tail is exact, so rows are the same numbers as computing at(len(queue_tail)) for each run: every tail
// theory and boardFluid use gives element i independently of the length asked for (analytic.MM1Tail:
// ρ^(i+1); RoundRobinTail: λσ^i; JSQdTail: λ^((d^(i+1)−1)/(d−1)); RandomHeteroTail and RoundRobinHeteroTail: sums over
// the classes of the same per-class terms; the fluid limit's tail is a copy of the limit's law), and the other
// columns do not depend on the length. The replications of a point call the Theory concurrently: the mutex guards the
// longest closedForm so far, which is replaced, never modified.
func sharedTheory(s *schema.Schema, at func(k int) closedForm) model.Theory {
	cf := at(firstTheoryLength)
	if cf.source == "" {
		return nil
	}
	var mu sync.Mutex
	return func(row schema.Row) {
		b := s.Edit(row)
		k := len(b.Get(colQueueTail).L)
		mu.Lock()
		if k > len(cf.tail) && !cf.zeros {
			cf = at(max(k, 2*len(cf.tail)))
		}
		c := cf
		mu.Unlock()
		c.set(b, k)
	}
}
