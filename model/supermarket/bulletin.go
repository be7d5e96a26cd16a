package supermarket

import (
	"context"
	"fmt"
	"math"

	"lbsweep/analytic"
	"lbsweep/model"
	"lbsweep/model/policy"
	"lbsweep/model/sim"
	"lbsweep/results/schema"
)

// BulletinBoard is the supermarket model whose dispatchers read a bulletin board of queue lengths instead of the true
// ones (Mitzenmacher, "How Useful Is Old Information?", PODC 1997 / IEEE TPDS 11(1), 2000; seed 002 §6; seed 004's
// herd): n identical FIFO servers with Exp(1) service, Poisson arrivals at rate λ·n shared by `dispatchers`
// dispatchers, each with its own instance of the policy. The board is refreshed by `update` every `period` (see the
// update rules in board.go); period 0 is fresh information and reproduces the supermarket model. Policies that read
// loads (jsq_d, jsq, least_request, peak_ewma's outstanding count) read the board; random and the round robins ignore
// it. Its zero value is ready to use.
type BulletinBoard struct{}

// Parameter indices of BulletinBoard.
const (
	bN = iota
	bLambda
	bHorizon
	bWarmup
	bPeriod
	bUpdate
	bDispatchers
	bSample
	bTrack
	bPolicy
	bD // the policy arguments, policy.Params in order, from here
)

var boardParams = append([]model.Param{
	bN:           {Name: "n", Kind: model.Int, Doc: "number of servers, 1 ≤ n ≤ 2^26 (about 40 bytes each)"},
	bLambda:      {Name: "lambda", Kind: model.Float, Unit: "jobs per server per unit time", Doc: "arrival rate per server, 0 < λ < 1 for stability; total arrival rate λ·n"},
	bHorizon:     {Name: "horizon", Kind: model.Float, Unit: timeUnit, Doc: "simulated time at which arrivals stop, > 0"},
	bWarmup:      {Name: "warmup", Kind: model.Float, Unit: timeUnit, Default: model.FloatValue(0), Doc: "start of the measurement window, 0 ≤ warmup < horizon"},
	bPeriod:      {Name: "period", Kind: model.Float, Unit: timeUnit, Doc: "T ≥ 0: time between board refreshes (periodic, dispatch_counts) or mean time between one entry's refreshes (individual); 0: fresh information"},
	bUpdate:      {Name: "update", Kind: model.Enum, Choices: []string{"periodic", "individual", "dispatch_counts"}, Default: model.IntValue(int64(periodic)), Doc: "periodic: every entry refreshed together every T (Mitzenmacher's bulletin board); individual: each entry at its own Poisson rate 1/T; dispatch_counts: periodic, plus each dispatch adds one to its target in the sender's own copy at once (TranSend's fix; seed 004's local counts)"},
	bDispatchers: {Name: "dispatchers", Kind: model.Int, Default: model.IntValue(1), Doc: "k ≥ 1 independent dispatchers sharing the arrivals (each gets λn/k); with dispatch_counts each keeps its own copy of the board"},
	bSample:      {Name: "sample", Kind: model.Float, Unit: timeUnit, Default: model.FloatValue(0), Twin: true, Doc: "interval between time-series samples over [0, horizon), ≥ horizon/200000; 0: no time series. Observation only: not part of the run seed"},
	bTrack:       {Name: "track", Kind: model.Int, Default: model.IntValue(4), Twin: true, Doc: "time series: servers 0..min(track, n)−1 whose queue lengths are recorded, 0 ≤ track ≤ 64. Observation only: not part of the run seed"},
	bPolicy:      {Name: "policy", Kind: model.Enum, Choices: policy.Names(), Policy: true, Doc: "dispatch policy name (sweep -list)"},
}, policy.Params...)

var colRefreshes = schema.Column{Name: "refreshes", Type: schema.Int64, Doc: "board refreshes (periodic: whole board; individual: one entry) before the horizon"}

// boardMetrics is the supermarket's metric schema with refreshes before the theory columns.
var boardMetrics = schema.New(colMeanSojourn, colP50Sojourn, colP99Sojourn, colQueueTail, colMeanMaxQueue,
	colPeakQueue, colJobs, colEvents, colUnstable, colRefreshes,
	colTheoryMeanSojourn, colTheoryP99Sojourn, colTheoryQueueTail, colTheorySource)

var (
	colTime     = schema.Column{Name: "time", Type: schema.Float64, Unit: timeUnit, Doc: "sample time, multiples of sample in [0, horizon)"}
	colMaxQueue = schema.Column{Name: "max_queue", Type: schema.Int64, Unit: "jobs", Doc: "longest queue at that time"}
	colMinQueue = schema.Column{Name: "min_queue", Type: schema.Int64, Unit: "jobs", Doc: "shortest queue at that time"}
	colQueues   = schema.Column{Name: "queues", Type: schema.Float64List, Unit: "jobs", Doc: "queue lengths of servers 0..track−1 at that time"}
)

var boardSeries = schema.New(colTime, colMaxQueue, colMinQueue, colQueues)

// SourceBoardFluid names the bulletin board's fluid limit in theory_source.
const SourceBoardFluid = "bulletin-board fluid limit (exact as n -> infinity)"

// Name implements model.Model.
func (BulletinBoard) Name() string { return "bulletin_board" }

// Doc implements model.Model.
func (BulletinBoard) Doc() string {
	return "the supermarket model whose dispatchers read a bulletin board refreshed every T (Mitzenmacher, PODC 1997 / IEEE TPDS 11(1), 2000; seed 002 §6; seed 004 herd)"
}

// Params implements model.Model.
func (BulletinBoard) Params() []model.Param { return boardParams }

// Metrics implements model.Model: the supermarket's metrics, plus refreshes.
func (BulletinBoard) Metrics() []schema.Column { return boardMetrics.Columns() }

// SeriesColumns implements model.SeriesModel: the queue lengths over time (with sample > 0).
func (BulletinBoard) SeriesColumns() []schema.Column { return boardSeries.Columns() }

// maxSamples bounds one run's time series.
const maxSamples = 200_000

// Check implements model.Model.
func (BulletinBoard) Check(p model.Point, o model.CheckOptions) (warnings []string, err error) {
	n, lambda, horizon := p[bN].I, p[bLambda].F, p[bHorizon].F
	finite := func(x float64) bool { return !math.IsInf(x, 0) && !math.IsNaN(x) }
	switch {
	case n < 1 || n > MaxServers:
		return nil, model.Issue{Param: "n", Message: fmt.Sprintf("%d servers: need 1 ≤ n ≤ %d (about 40 bytes each)", n, MaxServers)}
	case !(lambda > 0) || !finite(lambda):
		return nil, model.Issue{Param: "lambda", Message: fmt.Sprintf("%v: need 0 < λ", lambda)}
	case model.CheckWindow(p[bWarmup].F, horizon) != nil:
		return nil, model.CheckWindow(p[bWarmup].F, horizon)
	case !(p[bPeriod].F >= 0) || !finite(p[bPeriod].F):
		return nil, model.Issue{Param: "period", Message: fmt.Sprintf("%v: need a finite period T ≥ 0", p[bPeriod].F)}
	case p[bPeriod].F > 0 && horizon/p[bPeriod].F*float64(n) > 1e12:
		return nil, model.Issue{Param: "period", Message: fmt.Sprintf("%v: more than 10^12 entry refreshes before the horizon", p[bPeriod].F)}
	case p[bDispatchers].I < 1 || p[bDispatchers].I > 1<<16:
		return nil, model.Issue{Param: "dispatchers", Message: fmt.Sprintf("%d: need 1 ≤ dispatchers ≤ 65536", p[bDispatchers].I)}
	case !(p[bSample].F >= 0) || !finite(p[bSample].F) || p[bSample].F > 0 && horizon/p[bSample].F > maxSamples:
		return nil, model.Issue{Param: "sample", Message: fmt.Sprintf("%v: need 0 (no series) or an interval ≥ horizon/%d", p[bSample].F, maxSamples)}
	case p[bTrack].I < 0 || p[bTrack].I > 64:
		return nil, model.Issue{Param: "track", Message: fmt.Sprintf("%d: need 0 ≤ track ≤ 64", p[bTrack].I)}
	}
	cfg, ps := boardPolicyOf(p)
	if err := cfg.Check(ps); err != nil {
		return nil, err
	}
	if cfg.Traits(ps).Observe == policy.AtDispatch {
		return nil, errNoForesight
	}
	if err := policy.CheckUnkeyed(cfg.Traits(ps), policy.Registry[p[bPolicy].I].Name); err != nil {
		return nil, err
	}
	if lambda >= 1 {
		msg := fmt.Sprintf("λ = %v ≥ 1: the system is unstable (queues grow without bound)", lambda)
		if !o.AllowUnstable {
			return nil, model.Issue{Param: "lambda", Message: msg + "; set allow_unstable = true to run it anyway"}
		}
		if backlog := (lambda - 1) * float64(n) * horizon; backlog > maxBacklog {
			return nil, model.Issue{Param: "lambda", Message: fmt.Sprintf("%v: about %.3g jobs would wait at the horizon (more than %.0g)", lambda, backlog, float64(maxBacklog))}
		}
		warnings = append(warnings, msg+"; its statistics are not steady-state (unstable = true)")
	}
	return warnings, nil
}

// Cost implements model.Model: about two events per job and its pick's reads (policy.Traits.PickEvents), plus n entry copies per periodic refresh, plus the samples
// (each about as costly as ten events to store and write).
func (BulletinBoard) Cost(p model.Point) float64 {
	pc, ps := boardPolicyOf(p)
	c := p[bLambda].F * float64(p[bN].I) * p[bHorizon].F * (2 + pc.Traits(ps).PickEvents())
	if s := p[bSample].F; s > 0 {
		c += 10 * p[bHorizon].F / s
	}
	if T := p[bPeriod].F; T > 0 {
		c += p[bHorizon].F / T * float64(p[bN].I) * float64(p[bDispatchers].I)
	}
	return c
}

// EventsPerSecond implements model.Rater: 2·10^7 events per CPU-second (1.3–2.6·10^7 over the herd and stale
// experiments' points, measured on the project's machine, 2026-12-02; experiments/sweep TestPlanRates -calibrate).
func (BulletinBoard) EventsPerSecond(model.Point) float64 { return 2e7 }

// Run implements model.Model: the measured columns; the theory columns are Theory's.
func (b BulletinBoard) Run(ctx context.Context, p model.Point, seed model.Seed) (schema.Row, error) {
	row, _, err := b.run(ctx, p, seed, false)
	return row, err
}

// RunSeries implements model.SeriesModel: one row per sample (none when sample = 0).
func (b BulletinBoard) RunSeries(ctx context.Context, p model.Point, seed model.Seed) (schema.Row, []schema.Row, error) {
	return b.run(ctx, p, seed, true)
}

// Theory implements model.Theorist: boardTheory, computed once for the point's replications (the fluid limit takes
// up to 0.15 s).
func (BulletinBoard) Theory(p model.Point) model.Theory {
	return sharedTheory(boardMetrics, func(k int) closedForm { return boardTheory(p, k) })
}

func (BulletinBoard) run(ctx context.Context, p model.Point, seed model.Seed, series bool) (schema.Row, []schema.Row, error) {
	n := int(p[bN].I)
	cfg := config{n: n, lambda: p[bLambda].F, horizon: p[bHorizon].F, warmup: p[bWarmup].F, mu: 1}
	if series {
		cfg.sample, cfg.track = p[bSample].F, int(p[bTrack].I)
	}
	pc, ps := boardPolicyOf(p)
	newPolicy := func() policy.Policy { return pc.New(ps) }
	observes := pc.Traits(ps).Observe == policy.AtCompletion
	streams := sim.NewStreams(seed)
	var d *board
	out, err := simulate(ctx, cfg, streams, func(lv *sim.Levels) *board {
		d = newBoard(update(p[bUpdate].I), p[bPeriod].F, int(p[bDispatchers].I), newPolicy, observes, lv, streams)
		return d
	})
	if err != nil {
		return nil, nil, err
	}
	row := boardMetrics.NewRow()
	out.set(row, p[bLambda].F >= 1)
	row.Set(colRefreshes, schema.Int(d.refreshes))
	var rows []schema.Row
	for _, sn := range out.series {
		q := make([]float64, len(sn.queues))
		for i, x := range sn.queues {
			q[i] = float64(x)
		}
		r := boardSeries.NewRow()
		r.Set(colTime, schema.Float(sn.t))
		r.Set(colMaxQueue, schema.Int(int64(sn.max)))
		r.Set(colMinQueue, schema.Int(int64(sn.min)))
		r.Set(colQueues, schema.List(q))
		rows = append(rows, r.Row())
	}
	return row.Row(), rows, nil
}

// boardPolicyOf returns point p's policy configuration and the servers as the policy knows them (n, no weights).
func boardPolicyOf(p model.Point) (policy.Config, policy.Servers) {
	return policy.Registry[p[bPolicy].I].Configure(boardParams, p), policy.Servers{N: int(p[bN].I)}
}

// boardTheory: a policy whose picks ignore the loads ignores the board (policy.Traits.Split: random is M/M/1, exact),
// and with fresh information every policy sees the true lengths: then the supermarket's closed forms apply, except
// that k dispatchers each cycling their own sequence interleave into no named one. JSQ(d) and JSQ on a periodic or
// individual board with one dispatcher have the fluid limit (boardFluid). Otherwise null.
func boardTheory(p model.Point, k int) closedForm {
	lambda := p[bLambda].F
	if !(lambda < 1) {
		return noTheory()
	}
	cfg, ps := boardPolicyOf(p)
	tr := cfg.Traits(ps)
	sp := make(model.Point, len(params))
	sp[pN], sp[pLambda], sp[pPolicy] = p[bN], p[bLambda], p[bPolicy]
	copy(sp[pD:], p[bD:])
	if tr.Split != policy.LoadAware || p[bPeriod].F == 0 {
		if tr.Sequence != policy.NoSequence && p[bDispatchers].I > 1 {
			return noTheory() // k interleaved round-robin cursors are not E_n/M/1
		}
		return theory(sp, serversOf(sp), k)
	}
	return boardFluid(p, tr)
}

// boardFluid returns the fluid-limit theory columns for the JSQ(d) family (d ≥ 1) and JSQ (policy.Traits.Family of
// the point's policy, tr) on a periodic or individual board with one dispatcher (analytic.BulletinBoardFluid: exact as
// n → ∞, cycle-averaged, mean sojourn by Little's law; no p99), with the limit's tail continued by zeros. Where the
// fluid limit settles on no cycle (JSQ on a periodic board from T ≈ 5.5 on: irregular phases whose window average is
// uncertain by tens of percent) the columns are null rather than a number that is not a limit.
func boardFluid(p model.Point, tr policy.Traits) closedForm {
	d := 0
	switch tr.Family {
	case policy.FamilyJSQd:
		d = tr.D
	case policy.FamilyJSQ:
	default:
		return noTheory()
	}
	u := analytic.BoardPeriodic
	switch update(p[bUpdate].I) {
	case individual:
		u = analytic.BoardIndividual
	case dispatchCounts:
		return noTheory()
	}
	if p[bDispatchers].I != 1 || p[bPeriod].F > 1000 {
		return noTheory()
	}
	if d == 0 && u == analytic.BoardPeriodic && p[bPeriod].F > 5 {
		return noTheory() // no stable cycle (see above); BulletinBoardFluid would average 1500 irregular phases
	}
	f, err := analytic.BulletinBoardFluid(p[bLambda].F, d, p[bPeriod].F, u)
	if err != nil || f.Period == 0 {
		return noTheory()
	}
	return closedForm{mean: schema.Float(f.MeanSojourn), p99: schema.Null(), tail: f.Tail, zeros: true, source: SourceBoardFluid}
}
