package render

import (
	"os"
	"testing"

	"lbsweep/experiments"
	"lbsweep/results"
)

func TestDbg(t *testing.T) {
	s, err := experiments.Load("../../experiments/supermarket-tail.toml")
	if err != nil {
		t.Fatal(err)
	}
	tb, err := results.ReadDataset("../../results/supermarket-tail")
	if err != nil {
		t.Fatal(err)
	}
	f := s.Figures[0]
	ss, _ := build(f, tb)
	for _, sr := range ss {
		for k := range sr.x {
			t.Logf("%s i=%v mean=%g half=%g th=%g", sr.label, sr.x[k], sr.est[k].Mean, sr.est[k].Half, sr.theory[k])
		}
	}
	fh, _ := os.Create("/tmp/dbg.svg")
	Draw(s, f, tb, fh)
	fh.Close()
}
