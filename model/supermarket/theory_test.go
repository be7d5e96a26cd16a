package supermarket

import (
	"math"
	"testing"

	"lbsweep/analytic"
	"lbsweep/model"
	"lbsweep/results/schema"
)

// theoryRow returns the metric row of schema s with a queue_tail of length k, filled by th.
func theoryRow(s *schema.Schema, th model.Theory, k int) schema.Row {
	b := s.NewRow()
	b.Set(colQueueTail, schema.List(make([]float64, k)))
	row := b.Row()
	th(row)
	return row
}

// sameCell reports whether a and b are the same cell, floats compared bit for bit.
func sameCell(a, b schema.Cell) bool {
	if a.Valid != b.Valid || a.Type != b.Type || a.I != b.I || a.B != b.B || a.S != b.S || len(a.L) != len(b.L) ||
		math.Float64bits(a.F) != math.Float64bits(b.F) {
		return false
	}
	for i := range a.L {
		if math.Float64bits(a.L[i]) != math.Float64bits(b.L[i]) {
			return false
		}
	}
	return true
}

// The shared theory gives each run exactly what computing theory at the run's queue_tail length gives (as Run did
// before theory was shared), below, at and above the length it is first computed for, in an order that makes it
// grow and then cut its longer tail.
func TestSharedTheoryIsPerRunTheory(t *testing.T) {
	hetero := []analytic.Class{{Count: 20, Rate: 0.5}, {Count: 80, Rate: 1}}
	for _, c := range []struct {
		name string
		p    model.Point
	}{
		{"random", point(t, 10, 0.9, 10, 0, "random", 0, false)},
		{"round_robin", point(t, 10, 0.9, 10, 0, "round_robin", 0, false)},
		{"jsq_d d=2", point(t, 10, 0.95, 10, 0, "jsq_d", 2, false)},
		{"jsq_d d=1", point(t, 10, 0.9, 10, 0, "jsq_d", 1, false)},
		{"smooth_wrr", point(t, 10, 0.9, 10, 0, "smooth_wrr", 0, false)},
		{"hetero random", heteroPoint(t, hetero, 0.4, 10, 0, "random", 0, false)},
		{"hetero round_robin", heteroPoint(t, hetero, 0.4, 10, 0, "round_robin", 0, false)},
	} {
		th := Model{}.Theory(c.p)
		if th == nil {
			t.Fatalf("%s: no theory", c.name)
		}
		srv := serversOf(c.p)
		for _, k := range []int{0, 3, firstTheoryLength, firstTheoryLength + 1, 300, 10, 1000} {
			row := theoryRow(metrics, th, k)
			want := metrics.NewRow()
			want.Set(colQueueTail, schema.List(make([]float64, k)))
			theory(c.p, srv, k).set(want, k)
			for i, col := range metrics.Columns() {
				if !sameCell(row[i], want.Row()[i]) {
					t.Errorf("%s, k = %d: %s = %v, per-run theory %v", c.name, k, col.Name, row[i], want.Row()[i])
				}
			}
		}
	}
	if (Model{}).Theory(point(t, 5, 0.5, 10, 0, "jsq", 0, false)) != nil {
		t.Error("jsq: a theory, want none")
	}
}

// The bulletin board's fluid limit is computed once per point; each run's tail is the limit's, cut or padded with
// zeros to the run's length, as it was computed per run before.
func TestBoardFluidTheoryShared(t *testing.T) {
	p := boardPoint(t, 100, 0.9, 10, 0, 1, periodic, 1, "jsq_d", 2)
	th := BulletinBoard{}.Theory(p)
	if th == nil {
		t.Fatal("jsq_d on a periodic board: no theory")
	}
	f, err := analytic.BulletinBoardFluid(0.9, 2, 1, analytic.BoardPeriodic)
	if err != nil {
		t.Fatal(err)
	}
	tailCol, meanCol, srcCol := boardMetrics.Index("theory_queue_tail"), boardMetrics.Index("theory_mean_sojourn"), boardMetrics.Index("theory_source")
	for _, k := range []int{0, 2, len(f.Tail), len(f.Tail) + 5, 200} {
		row := theoryRow(boardMetrics, th, k)
		want := make([]float64, k)
		copy(want, f.Tail)
		if !sameCell(row[tailCol], schema.List(want)) || row[meanCol].F != f.MeanSojourn || row[srcCol].S != SourceBoardFluid {
			t.Errorf("k = %d: tail %v mean %v source %q; want %v, %v, %q", k, row[tailCol].L, row[meanCol].F, row[srcCol].S, want, f.MeanSojourn, SourceBoardFluid)
		}
	}
}
