package resilience

import (
	"context"
	"math"

	"lbsweep/model"
	"lbsweep/results/schema"
)

// Run implements model.Model: the measured columns; the theory columns are Theory's.
func (m Model) Run(ctx context.Context, p model.Point, seed model.Seed) (schema.Row, error) {
	row, _, err := m.run(ctx, p, seed, false)
	return row, err
}

// SeriesColumns implements model.SeriesModel: the run's time series in bins of `bin` ms (none with bin = 0).
func (Model) SeriesColumns() []schema.Column { return seriesSchema.Columns() }

// RunSeries implements model.SeriesModel: Run and one row per bin [i·bin, (i+1)·bin) that ends by the horizon.
func (m Model) RunSeries(ctx context.Context, p model.Point, seed model.Seed) (schema.Row, []schema.Row, error) {
	return m.run(ctx, p, seed, true)
}

func (Model) run(ctx context.Context, p model.Point, seed model.Seed, series bool) (schema.Row, []schema.Row, error) {
	c := configOf(p)
	if !series {
		c.bin = 0
	}
	ps := c.policyServers()
	pc := policyConfig(p)
	out, err := simulate(ctx, c, seed, pc.New(ps), pc.Traits(ps).Observe)
	if err != nil {
		return nil, nil, err
	}
	row := metrics.NewRow()
	out.set(row, c.horizon-c.warmup)
	var rows []schema.Row
	fk, fat, faulty := c.fault()
	for _, s := range out.series {
		r := seriesSchema.NewRow()
		r.Set(colTime, schema.Float(s.t))
		r.Set(colSOffered, schema.Int(s.counts.offered))
		r.Set(colSAttempts, schema.Int(s.counts.attempts))
		r.Set(colSSuccesses, schema.Int(s.counts.successes))
		r.Set(colSFailures, schema.Int(s.counts.failures))
		r.Set(colSTimeouts, schema.Int(s.counts.timeouts))
		r.Set(colSErrors, schema.Int(s.counts.errors))
		r.Set(colSRejections, schema.Int(s.counts.rejections))
		r.Set(colSRetries, schema.Int(s.counts.retries))
		r.Set(colSHedges, schema.Int(s.counts.hedges))
		if d := s.counts.hedgeDelay; !math.IsNaN(d) && !math.IsInf(d, 1) {
			r.Set(colSHedgeDelay, schema.Float(d))
		}
		r.Set(colSP50, nullIfNaN(s.p[0]))
		r.Set(colSP95, nullIfNaN(s.p[1]))
		r.Set(colSP99, nullIfNaN(s.p[2]))
		r.Set(colSInFlight, schema.List(s.inFlight))
		r.Set(colSQueue, schema.List(s.queue))
		if s.limit != nil {
			r.Set(colSLimit, schema.List(s.limit))
		}
		r.Set(colSSent, schema.List(s.sent))
		total := 0.0
		for _, x := range s.sent {
			total += x
		}
		if faulty && s.t+c.bin > fat && total > 0 {
			r.Set(colSFaultShare, schema.Float(s.sent[fk]/total))
		}
		r.Set(colSInSystem, schema.Float(s.inSystem))
		if s.cbOpen != nil {
			r.Set(colSBreakerOp, schema.List(s.cbOpen))
			r.Set(colSBreakerHf, schema.List(s.cbHalf))
		}
		if s.counts.lookups > 0 {
			r.Set(colSHitRatio, schema.Float(float64(s.counts.hits)/float64(s.counts.lookups)))
		}
		rows = append(rows, r.Row())
	}
	return row.Row(), rows, nil
}
