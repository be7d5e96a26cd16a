// Package modeltest holds what the models' tests share: a run's metric by name, and the allocations a run makes per
// unit of its work. It is imported by tests only.
package modeltest

import (
	"context"
	"testing"

	"lbsweep/model"
)

// Metric returns the index of m's metric column named name in a row from model.RunRow (rows are aligned with
// m.Metrics()); t fails when m has no such column.
func Metric(t testing.TB, m model.Model, name string) int {
	t.Helper()
	for i, c := range m.Metrics() {
		if c.Name == name {
			return i
		}
	}
	t.Fatalf("model %s has no metric %s", m.Name(), name)
	return -1
}

// AllocsPerWork runs build(h) and build(4h) with seed once each under testing.AllocsPerRun (model.RunRow: the run
// and its theory columns) and returns the extra allocations of the longer run per extra unit of its integer metric
// work (events, say), beside both runs' allocations and work: how an engine shows that it allocates nothing per
// event, whatever it allocates once per run.
func AllocsPerWork(t testing.TB, m model.Model, build func(h float64) model.Point, h float64, seed model.Seed, work string) (per, a1, a4 float64, w1, w4 int64) {
	t.Helper()
	j := Metric(t, m, work)
	count := func(h float64) (float64, int64) {
		p := build(h)
		var w int64
		a := testing.AllocsPerRun(1, func() {
			row, err := model.RunRow(context.Background(), m, p, seed)
			if err != nil {
				t.Fatal(err)
			}
			w = row[j].I
		})
		return a, w
	}
	a1, w1 = count(h)
	a4, w4 = count(4 * h)
	return (a4 - a1) / float64(w4-w1), a1, a4, w1, w4
}
