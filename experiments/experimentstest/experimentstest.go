// Package experimentstest holds helpers for tests of code that runs experiments: Register, which adds a model to
// experiments.Models for one test, and Series, a small deterministic model.SeriesModel shaped like the bulletin
// board's time series (time, max_queue, min_queue, queues). Only tests import it: no spec outside a test can name its
// model.
package experimentstest

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"lbsweep/experiments"
	"lbsweep/model"
	"lbsweep/results"
)

// Register adds m to experiments.Models under m.Name() for the rest of test t and removes it when t ends. The name
// must be free. experiments.Models is a plain map read by experiments.Parse, so a test that registers a model must not
// run in parallel with others (no t.Parallel) in its package.
func Register(t testing.TB, m model.Model) {
	t.Helper()
	name := m.Name()
	if _, taken := experiments.Models[name]; taken {
		t.Fatalf("experimentstest: model %q is already registered", name)
	}
	experiments.Models[name] = m
	t.Cleanup(func() { delete(experiments.Models, name) })
}

// Series is a fake SeriesModel named "fake_series": n queues that each move by −1, 0 or +1 (floored at 0) every
// interval of simulated time, drawn from a PCG stream seeded by the run's seed. A run samples them at times
// 0, interval, 2·interval, ... ≤ horizon: one series row per sample with the time, the longest and the shortest
// queue, and the first min(n, Tracked) queues as a list. Its zero value is ready to use.
type Series struct{}

// Tracked is how many queues a Series run records in its queues column.
const Tracked = 3

// SeriesName is the registered name of Series.
const SeriesName = "fake_series"

// maxSamples bounds horizon/interval, so that a typo cannot fill a disk.
const maxSamples = 1_000_000

var seriesParams = []model.Param{
	{Name: "n", Kind: model.Int, Doc: "queues, 1 ≤ n ≤ 10000"},
	{Name: "horizon", Kind: model.Float, Unit: "mean service times", Doc: "time of the last sample, > 0"},
	{Name: "interval", Kind: model.Float, Unit: "mean service times", Default: model.FloatValue(1), Doc: "time between samples, > 0; at most 10^6 samples"},
}

var seriesMetrics = []results.Column{
	{Name: "samples", Type: results.Int64, Doc: "series rows of the run"},
	{Name: "mean_max_queue", Type: results.Float64, Unit: "jobs", Doc: "mean over the samples of the longest queue"},
}

var seriesColumns = []results.Column{
	{Name: "time", Type: results.Float64, Unit: "mean service times", Doc: "sample time"},
	{Name: "max_queue", Type: results.Int64, Unit: "jobs", Doc: "longest queue"},
	{Name: "min_queue", Type: results.Int64, Unit: "jobs", Doc: "shortest queue"},
	{Name: "queues", Type: results.Float64List, Unit: "jobs", Doc: "element k: the length of queue k, k < min(n, 3)"},
}

// Name implements model.Model.
func (Series) Name() string { return SeriesName }

// Doc implements model.Model.
func (Series) Doc() string { return "test model: n queues in a random walk, sampled every interval" }

// Params implements model.Model.
func (Series) Params() []model.Param { return seriesParams }

// Metrics implements model.Model.
func (Series) Metrics() []results.Column { return seriesMetrics }

// SeriesColumns implements model.SeriesModel.
func (Series) SeriesColumns() []results.Column { return seriesColumns }

// Check implements model.Model.
func (Series) Check(p model.Point, _ model.CheckOptions) ([]string, error) {
	n, horizon, interval := p[0].I, p[1].F, p[2].F
	switch {
	case n < 1 || n > 10000:
		return nil, model.Issue{Param: "n", Message: fmt.Sprintf("%d: need 1 ≤ n ≤ 10000", n)}
	case !(horizon > 0):
		return nil, model.Issue{Param: "horizon", Message: fmt.Sprintf("%v: need horizon > 0", horizon)}
	case !(interval > 0) || horizon/interval > maxSamples:
		return nil, model.Issue{Param: "interval", Message: fmt.Sprintf("%v: need interval > 0 and at most %d samples", interval, maxSamples)}
	}
	return nil, nil
}

// Cost implements model.Model: queue moves.
func (Series) Cost(p model.Point) float64 { return float64(p[0].I) * (math.Floor(p[1].F/p[2].F) + 1) }

// Bounds implements model.Model: nothing worth counting.
func (Series) Bounds(model.Point) model.Bounds { return model.Bounds{} }

// Run implements model.Model: RunSeries without the series.
func (m Series) Run(ctx context.Context, p model.Point, seed model.Seed) (results.Row, error) {
	row, _, err := m.RunSeries(ctx, p, seed)
	return row, err
}

// RunSeries implements model.SeriesModel.
func (Series) RunSeries(_ context.Context, p model.Point, seed model.Seed) (results.Row, []results.Row, error) {
	n, horizon, interval := int(p[0].I), p[1].F, p[2].F
	rng := rand.New(rand.NewPCG(seed.Run, seed.Policy))
	q := make([]int64, n)
	samples := int(math.Floor(horizon/interval)) + 1
	series := make([]results.Row, 0, samples)
	sumMax := 0.0
	for k := range samples {
		if k > 0 {
			for i := range q {
				q[i] = max(0, q[i]+int64(rng.IntN(3))-1)
			}
		}
		lo, hi := q[0], q[0]
		for _, x := range q {
			lo, hi = min(lo, x), max(hi, x)
		}
		tracked := make([]float64, min(n, Tracked))
		for i := range tracked {
			tracked[i] = float64(q[i])
		}
		sumMax += float64(hi)
		series = append(series, results.Row{results.Float(float64(k) * interval), results.Int(hi), results.Int(lo), results.List(tracked)})
	}
	return results.Row{results.Int(int64(samples)), results.Float(sumMax / float64(samples))}, series, nil
}
