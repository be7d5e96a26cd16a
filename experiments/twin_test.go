package experiments_test

import (
	"testing"

	"lbsweep/experiments"
	"lbsweep/model"
)

// Twin parameters and Records fields stay in the point's key but not in its seed: twin worlds share every stream.
func TestTwinSeeds(t *testing.T) {
	ps := []model.Param{
		{Name: "servers", Kind: model.Records, Fields: []model.Param{
			{Name: "count", Kind: model.Int},
			{Name: "healthy", Kind: model.Bool, Optional: true, Twin: true},
		}},
		{Name: "broken", Kind: model.Int, Optional: true, Twin: true},
		{Name: "lambda", Kind: model.Float},
	}
	world := func(healthy bool, broken int64, lambda float64) model.Point {
		r := model.Record{model.IntValue(3), {}}
		if !healthy {
			r[1] = model.BoolValue(false)
		}
		return model.Point{model.RecordsValue([]model.Record{r}), model.IntValue(broken), model.FloatValue(lambda)}
	}
	up, down := world(true, 0, 0.32), world(false, 3, 0.32)
	if ku, kd := experiments.Key(ps, up), experiments.Key(ps, down); ku == kd {
		t.Fatalf("twin worlds have the same key %q", ku)
	}
	if su, sd := experiments.RunSeed(7, ps, up, 0), experiments.RunSeed(7, ps, down, 0); su != sd {
		t.Errorf("twin worlds: seeds %+v and %+v differ", su, sd)
	}
	if su, so := experiments.RunSeed(7, ps, up, 0), experiments.RunSeed(7, ps, world(true, 0, 0.5), 0); su.Run == so.Run {
		t.Errorf("lambda 0.32 and 0.5 share the run seed %d", su.Run)
	}
	// The seed text of a Records value without twin fields is its Format (existing seeds do not move).
	p := ps[0]
	v := model.RecordsValue([]model.Record{{model.IntValue(2), {}}})
	if p.SeedFormat(v) != p.Format(v) || p.Format(v) != "[{count = 2}]" {
		t.Errorf("Format %q, SeedFormat %q; want both [{count = 2}]", p.Format(v), p.SeedFormat(v))
	}
	if got := p.SeedFormat(down[0]); got != "[{count = 3}]" {
		t.Errorf("SeedFormat leaves the twin field in: %q", got)
	}
}
