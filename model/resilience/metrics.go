package resilience

import (
	"math"
	"slices"

	"lbsweep/results/schema"
)

// The metric columns, in the order of metrics. Counts are of the requests arriving in [warmup, horizon) ("measured")
// and of their attempts made before the horizon.
var (
	colOffered          = schema.Column{Name: "offered", Type: schema.Int64, Doc: "measured requests: arrivals in [warmup, horizon)"}
	colSucceeded        = schema.Column{Name: "succeeded", Type: schema.Int64, Doc: "measured requests answered successfully before the horizon"}
	colFailed           = schema.Column{Name: "failed", Type: schema.Int64, Doc: "measured requests that failed before the horizon: their last attempt failed and no retry was left or allowed"}
	colPending          = schema.Column{Name: "pending", Type: schema.Int64, Doc: "measured requests with no final answer at the horizon"}
	colGoodput          = schema.Column{Name: "goodput", Type: schema.Float64, Doc: "succeeded / offered: the share answered successfully (seed 004's goodput); null when nothing was offered"}
	colGoodputRate      = schema.Column{Name: "goodput_rate", Type: schema.Float64, Unit: "requests/s", Doc: "succeeded / (horizon − warmup)"}
	colAttempts         = schema.Column{Name: "attempts", Type: schema.Int64, Doc: "attempts the measured requests sent before the horizon: first attempts and retries"}
	colRetries          = schema.Column{Name: "retries_sent", Type: schema.Int64, Doc: "retries sent (attempts after the first)"}
	colAttemptsPerReq   = schema.Column{Name: "attempts_per_request", Type: schema.Float64, Doc: "attempts / offered; null when nothing was offered"}
	colAttemptRate      = schema.Column{Name: "attempt_rate", Type: schema.Float64, Unit: "attempts/s", Doc: "attempts / (horizon − warmup): the load the servers see, beside the retry fixed point's states"}
	colTimeouts         = schema.Column{Name: "timeouts", Type: schema.Int64, Doc: "attempts the balancer timed out (504)"}
	colErrors           = schema.Column{Name: "errors", Type: schema.Int64, Doc: "attempts answered 500: server errors, refused connections of a down server, work lost in a kill"}
	colRejections       = schema.Column{Name: "rejections", Type: schema.Int64, Doc: "attempts answered 503 by a full queue (FIFO: the newcomer; LIFO: the oldest queued) or by a concurrency limit (limited)"}
	colDropped          = schema.Column{Name: "dropped", Type: schema.Int64, Doc: "attempts a server skipped because their timeout had passed (drop_expired)"}
	colLimited          = schema.Column{Name: "limited", Type: schema.Int64, Doc: "attempts a server's concurrency limit answered 503 at their arrival, counted at the server (in rejections too once the 503 reaches the balancer, a hop later: limited may exceed the limiter's share of rejections by the 503s on their way at the horizon); 0 with no limiter"}
	colMeanLimit        = schema.Column{Name: "mean_limit", Type: schema.Float64, Unit: "attempts", Doc: "the concurrency limit admission used (⌊limit⌋), averaged over time in [warmup, horizon) and over the servers; null with no limiter"}
	colBudgetDenied     = schema.Column{Name: "budget_denied", Type: schema.Int64, Doc: "retries the retry budget refused (the request failed instead)"}
	colHedges           = schema.Column{Name: "hedges", Type: schema.Int64, Doc: "hedge copies sent (counted in attempts, apart from retries_sent)"}
	colHedgeRate        = schema.Column{Name: "hedge_rate", Type: schema.Float64, Doc: "hedges / offered: the extra attempts hedging costs per request; null when nothing was offered"}
	colHedgeWins        = schema.Column{Name: "hedge_wins", Type: schema.Int64, Doc: "requests answered by a hedge copy (it succeeded first)"}
	colHedgeDenied      = schema.Column{Name: "hedge_denied", Type: schema.Int64, Doc: "hedges the hedge budget refused"}
	colHedgeSkipped     = schema.Column{Name: "hedges_skipped", Type: schema.Int64, Doc: "hedges' losers a server skipped because their cancel arrived while they were queued"}
	colHedgeCut         = schema.Column{Name: "hedges_cut", Type: schema.Int64, Doc: "hedges' losers stopped in service by their cancel (hedge_cancel)"}
	colBreakerOpens     = schema.Column{Name: "breaker_opens", Type: schema.Int64, Doc: "times a circuit breaker opened in [warmup, horizon), summed over the servers: closed → open and half-open → open (a failed probe); null without breakers (cb_threshold)"}
	colBreakerCloses    = schema.Column{Name: "breaker_closes", Type: schema.Int64, Doc: "times a circuit breaker closed in [warmup, horizon) (every probe of a half-open breaker succeeded), summed over the servers; null without breakers"}
	colBreakerOpenFr    = schema.Column{Name: "breaker_open_fraction", Type: schema.Float64List, Doc: "element k: the fraction of [warmup, horizon) server k's breaker was open (barred; half-open time not included); null without breakers"}
	colMeanLatency      = schema.Column{Name: "mean_latency", Type: schema.Float64, Unit: ms, Doc: "mean latency (final answer − arrival, backoffs included) of the successful requests; exact; null when none"}
	colP50Latency       = schema.Column{Name: "p50_latency", Type: schema.Float64, Unit: ms, Doc: "median latency of the successful requests, relative error ≤ 0.1% (DDSketch); null when none"}
	colP95Latency       = schema.Column{Name: "p95_latency", Type: schema.Float64, Unit: ms, Doc: "95th percentile of the successful requests' latency; null when none"}
	colP99Latency       = schema.Column{Name: "p99_latency", Type: schema.Float64, Unit: ms, Doc: "99th percentile of the successful requests' latency; null when none"}
	colP50AllLatency    = schema.Column{Name: "p50_all_latency", Type: schema.Float64, Unit: ms, Doc: "median latency of every final answer, failures included; null when none"}
	colP99AllLatency    = schema.Column{Name: "p99_all_latency", Type: schema.Float64, Unit: ms, Doc: "99th percentile latency of every final answer, failures included; null when none"}
	colWastedWork       = schema.Column{Name: "wasted_work", Type: schema.Float64, Unit: ms, Doc: "worker time spent on the measured requests' attempts whose balancer had timed them out, or whose client had withdrawn them (a hedge's loser), before their service ended (nobody waited for the answer)"}
	colWorkPerRequest   = schema.Column{Name: "work_per_request", Type: schema.Float64, Unit: ms, Doc: "worker time spent on the measured requests' attempts (copies, retries and wasted work included) per offered request; null when nothing was offered"}
	colWastedFraction   = schema.Column{Name: "wasted_fraction", Type: schema.Float64, Doc: "wasted_work / the worker time spent on the measured requests' attempts; null when none"}
	colShares           = schema.Column{Name: "shares", Type: schema.Float64List, Doc: "element k: the fraction of the measured attempts the balancer sent to server k; null when there were none"}
	colMeanInSystem     = schema.Column{Name: "mean_in_system", Type: schema.Float64, Unit: "requests", Doc: "L: the time-average number of requests in the system (arrived, no final answer) over [warmup, horizon)"}
	colMeanTimeInSys    = schema.Column{Name: "mean_time_in_system", Type: schema.Float64, Unit: ms, Doc: "W: the measured requests' mean time in the system, counted up to the horizon for the pending ones, so that L ≈ (offered / window)·W (Little's law; exact but for the requests carried over from before warmup)"}
	colPeakQueue        = schema.Column{Name: "peak_queue", Type: schema.Int64, Unit: "attempts", Doc: "the longest queue (waiting, not in service) at any server in [warmup, horizon)"}
	colEvents           = schema.Column{Name: "events", Type: schema.Int64, Doc: "events simulated (arrivals, hops, completions, timeouts, backoffs, pauses, timeline changes), warm-up included"}
	colWarning          = schema.Column{Name: "warning", Type: schema.String, Doc: "null when the run's books balance (Little's law over the window, offered = succeeded + failed + pending, attempts = offered + retries), else what does not"}
	colEjections        = schema.Column{Name: "ejections", Type: schema.Int64, Doc: "outlier ejections the balancer enforced over the run (Envoy ejections_enforced_total); null without outlier detection"}
	colFirstEjection    = schema.Column{Name: "first_ejection", Type: schema.Float64, Unit: ms, Doc: "when the balancer's outlier detection first ejected a server (warm-up included); null when it never did or is off"}
	colFaultWindow      = schema.Column{Name: "fault_window", Type: schema.Float64, Unit: ms, Doc: "time from the first timeline fail naming a server until the balancer last sent that server a share ≥ fault_level of its attempts over a fault_bin window (horizon − fail: never stopped; 0: never fed it); null without fault_level"}
	colFaultShare       = schema.Column{Name: "fault_share", Type: schema.Float64, Doc: "the share of the attempts sent from the first timeline fail naming a server to the horizon that went to that server (warm-up or not); null without fault_level or when none was sent"}
	colHitRatio         = schema.Column{Name: "hit_ratio", Type: schema.Float64, Doc: "cache hits / lookups over the measured attempts (a lookup: an attempt starting service, not a 500's; keys.go); null with no cache or no lookup"}
	colHitRatioMin      = schema.Column{Name: "hit_ratio_min", Type: schema.Float64, Doc: "the smallest hit ratio of a server with lookups (hits / lookups at that server); null as hit_ratio"}
	colHitRatioMax      = schema.Column{Name: "hit_ratio_max", Type: schema.Float64, Doc: "the largest hit ratio of a server with lookups; null as hit_ratio"}
	colServerHitRatio   = schema.Column{Name: "server_hit_ratio", Type: schema.Float64List, Doc: "element k: server k's hit ratio (0 for a server with no lookups); null as hit_ratio"}
	colLoadPeakToMean   = schema.Column{Name: "load_peak_to_mean", Type: schema.Float64, Doc: "the most loaded server's measured attempts started in service over the mean of the servers in the fleet, each weighted by its time in the fleet within the window (a server added at half the window counts half); 1 is perfectly even; null when none started"}
	colKeysMoved        = schema.Column{Name: "keys_moved", Type: schema.Float64, Doc: "of the keys whose first attempts were dispatched both before and after the first timeline add (warm-up included), the fraction whose server changed: the server of its last first attempt before against its first after; null with no keys, no add, or no such key"}
	colKeysBoth         = schema.Column{Name: "keys_both", Type: schema.Int64, Doc: "the keys keys_moved is over (requested both before and after the first add); null as keys_moved"}
	colTheoryPTimeout   = schema.Column{Name: "theory_p_timeout", Type: schema.Float64, Doc: "probability that a first attempt times out at the offered load: the M/M/c sojourn tail at timeout − 2·hop (see theory_source); null elsewhere"}
	colTheoryBlocking   = schema.Column{Name: "theory_blocking", Type: schema.Float64, Doc: "M/M/c/K blocking probability of an attempt at a bounded queue, at the offered load; null elsewhere"}
	colTheoryMean       = schema.Column{Name: "theory_mean_latency", Type: schema.Float64, Unit: ms, Doc: "mean latency of a successful request: four hops plus the M/M/c (M/M/c/K: admitted) mean sojourn; with no timeout, no errors and no retries (or none that can fire: an unbounded queue) only; null elsewhere"}
	colTheoryP99        = schema.Column{Name: "theory_p99_latency", Type: schema.Float64, Unit: ms, Doc: "99th percentile of the successful requests' latency, as theory_mean_latency; null elsewhere"}
	colTheoryHealthy    = schema.Column{Name: "theory_attempt_rate_healthy", Type: schema.Float64, Unit: "attempts/s", Doc: "the retry fixed point's smallest stable state x = λ·Σ_{i≤R} p(x)^i (the healthy state); null elsewhere"}
	colTheoryMeta       = schema.Column{Name: "theory_attempt_rate_metastable", Type: schema.Float64, Unit: "attempts/s", Doc: "the retry fixed point's largest stable state when it has more than one (the metastable state; Bronson et al., HotOS 2021); null when the fixed point is unique or no theory applies"}
	colTheoryHedgeDelay = schema.Column{Name: "theory_hedge_delay", Type: schema.Float64, Unit: ms, Doc: "the hedge delay H the hedging theory uses: hedge, or with hedge_quantile q its fixed point 4·hop + (the q-quantile of the service time); null elsewhere"}
	colTheoryHedgeRate  = schema.Column{Name: "theory_hedge_rate", Type: schema.Float64, Doc: "hedged attempts per request with no queueing, P(4·hop + X > H); null elsewhere"}
	colTheoryHedgeMean  = schema.Column{Name: "theory_hedge_mean_latency", Type: schema.Float64, Unit: ms, Doc: "mean hedged latency with no queueing, E[4·hop + min(X₁, H + X₂)]; null elsewhere"}
	colTheoryHedgeP99   = schema.Column{Name: "theory_hedge_p99_latency", Type: schema.Float64, Unit: ms, Doc: "99th percentile of the hedged latency 4·hop + min(X₁, H + X₂) with no queueing; null elsewhere"}
	colTheoryHitRatio   = schema.Column{Name: "theory_hit_ratio", Type: schema.Float64, Doc: "Che's approximation of the LRU hit ratio (analytic.CheHitRatio): a key-blind policy (random, two choices, round robin…), each server sees the whole Zipf law; ring_hash, each server the keys its ring owns, traffic-weighted; per fleet epoch of the timeline's adds, time-weighted (cold starts not modelled); null for the other keyed policies (no closed form), with kills, hedges or retries, and for ring_hash with breakers or ejections"}
	colTheoryKeysMoved  = schema.Column{Name: "theory_keys_moved", Type: schema.Float64, Doc: "ring_hash with a timeline add: the fraction of the keys 1..keys whose ring owner (the first server in the fleet clockwise, as the policy walks) changes at the first add, on this point's ring; an ideal consistent hash moves 1/(n+1) (Karger et al. 1997); null elsewhere"}
	colTheorySource     = schema.Column{Name: "theory_source", Type: schema.String, Doc: "the formulas behind the theory columns; null where none applies"}
	colTheoryPauseP99   = schema.Column{Name: "theory_p99_pause_bound", Type: schema.Float64, Unit: ms, Doc: "a lower bound on the p99 latency of all answers when a load-blind policy sends a share of the requests to servers with periodic pauses: an arrival there during a pause waits out its rest; null elsewhere"}
	metrics             = schema.New(colOffered, colSucceeded, colFailed, colPending, colGoodput, colGoodputRate, colAttempts, colRetries, colAttemptsPerReq, colAttemptRate, colTimeouts, colErrors, colRejections, colDropped, colLimited, colMeanLimit, colBudgetDenied, colHedges, colHedgeRate, colHedgeWins, colHedgeDenied, colHedgeSkipped, colHedgeCut, colBreakerOpens, colBreakerCloses, colBreakerOpenFr, colMeanLatency, colP50Latency, colP95Latency, colP99Latency, colP50AllLatency, colP99AllLatency, colWastedWork, colWorkPerRequest, colWastedFraction, colShares, colMeanInSystem, colMeanTimeInSys, colPeakQueue, colEvents, colWarning, colEjections, colFirstEjection, colFaultWindow, colFaultShare, colHitRatio, colHitRatioMin, colHitRatioMax, colServerHitRatio, colLoadPeakToMean, colKeysMoved, colKeysBoth, colTheoryPTimeout, colTheoryBlocking, colTheoryMean, colTheoryP99, colTheoryHealthy, colTheoryMeta, colTheoryPauseP99, colTheoryHedgeDelay, colTheoryHedgeRate, colTheoryHedgeMean, colTheoryHedgeP99, colTheoryHitRatio, colTheoryKeysMoved, colTheorySource)
)

// The time-series columns: one row per bin [time, time + bin).
var (
	colTime        = schema.Column{Name: "time", Type: schema.Float64, Unit: ms, Doc: "start of the bin"}
	colSOffered    = schema.Column{Name: "offered", Type: schema.Int64, Doc: "requests arriving in the bin"}
	colSAttempts   = schema.Column{Name: "attempts", Type: schema.Int64, Doc: "attempts sent by the clients in the bin (first attempts and retries)"}
	colSSuccesses  = schema.Column{Name: "successes", Type: schema.Int64, Doc: "requests answered successfully in the bin"}
	colSFailures   = schema.Column{Name: "failures", Type: schema.Int64, Doc: "requests that failed in the bin (no retry left or allowed)"}
	colSTimeouts   = schema.Column{Name: "timeouts", Type: schema.Int64, Doc: "attempts the balancer timed out in the bin"}
	colSErrors     = schema.Column{Name: "errors", Type: schema.Int64, Doc: "attempts answered 500 at the balancer in the bin"}
	colSRejections = schema.Column{Name: "rejections", Type: schema.Int64, Doc: "attempts answered 503 at the balancer in the bin"}
	colSRetries    = schema.Column{Name: "retries_sent", Type: schema.Int64, Doc: "retries sent in the bin"}
	colSHedges     = schema.Column{Name: "hedges", Type: schema.Int64, Doc: "hedge copies sent in the bin"}
	colSHedgeDelay = schema.Column{Name: "hedge_delay", Type: schema.Float64, Unit: ms, Doc: "the hedge delay in effect at the bin's end (hedge_quantile: the running estimate); null with no hedging or no estimate yet"}
	colSP50        = schema.Column{Name: "p50_latency", Type: schema.Float64, Unit: ms, Doc: "median latency of the requests answered successfully in the bin (exact, nearest rank); null when none"}
	colSP95        = schema.Column{Name: "p95_latency", Type: schema.Float64, Unit: ms, Doc: "95th percentile, as p50_latency"}
	colSP99        = schema.Column{Name: "p99_latency", Type: schema.Float64, Unit: ms, Doc: "99th percentile, as p50_latency"}
	colSInFlight   = schema.Column{Name: "in_flight", Type: schema.Float64List, Doc: "element k: the time average over the bin of the attempts at server k (in service and queued), exact"}
	colSQueue      = schema.Column{Name: "queued", Type: schema.Float64List, Doc: "element k: the time average over the bin of the attempts waiting in server k's queue, exact"}
	colSLimit      = schema.Column{Name: "limit", Type: schema.Float64List, Unit: "attempts", Doc: "element k: the time average over the bin of server k's concurrency limit (⌊limit⌋, the one admission used), exact; null with no limiter"}
	colSInSystem   = schema.Column{Name: "in_system", Type: schema.Float64, Doc: "the time average over the bin of the requests in the system (arrived, no final answer), exact"}
	colSSent       = schema.Column{Name: "sent", Type: schema.Float64List, Doc: "element k: the attempts the balancer sent to server k in the bin (a count)"}
	colSBreakerOp  = schema.Column{Name: "breaker_open", Type: schema.Float64List, Doc: "element k: the fraction of the bin server k's circuit breaker was open, exact (1: open throughout; a re-open within the bin shows as a fraction); null without breakers"}
	colSBreakerHf  = schema.Column{Name: "breaker_half_open", Type: schema.Float64List, Doc: "element k: the fraction of the bin server k's breaker was half-open, exact (closed is 1 − breaker_open − breaker_half_open); null without breakers"}
	colSHitRatio   = schema.Column{Name: "hit_ratio", Type: schema.Float64, Doc: "cache hits / lookups of the attempts starting service in the bin, over every server; null with no cache or no lookup"}
	colSFaultShare = schema.Column{Name: "fault_share", Type: schema.Float64, Doc: "the share of the attempts sent in the bin that went to the server of the first timeline fail naming one (fault_window's fault), from the bin holding the fail on; null before, without fault_level, or with no attempt in the bin"}
	seriesSchema   = schema.New(colTime, colSOffered, colSAttempts, colSSuccesses, colSFailures, colSTimeouts, colSErrors, colSRejections, colSRetries, colSHedges, colSHedgeDelay, colSP50, colSP95, colSP99, colSInFlight, colSQueue, colSLimit, colSInSystem, colSSent, colSFaultShare, colSBreakerOp, colSBreakerHf, colSHitRatio)
)

// nullIfNaN is x as a cell, null when NaN.
func nullIfNaN(x float64) schema.Cell {
	if math.IsNaN(x) {
		return schema.Null()
	}
	return schema.Float(x)
}

// set fills the measured columns of row from the run's outcome.
func (o *outcome) set(row *schema.Builder, window float64) {
	row.Set(colOffered, schema.Int(o.offered))
	row.Set(colSucceeded, schema.Int(o.succeeded))
	row.Set(colFailed, schema.Int(o.failed))
	row.Set(colPending, schema.Int(o.pending))
	if o.offered > 0 {
		row.Set(colGoodput, schema.Float(float64(o.succeeded)/float64(o.offered)))
		row.Set(colAttemptsPerReq, schema.Float(float64(o.attempts)/float64(o.offered)))
	}
	row.Set(colGoodputRate, schema.Float(float64(o.succeeded)/window*1000))
	row.Set(colAttempts, schema.Int(o.attempts))
	row.Set(colRetries, schema.Int(o.retries))
	row.Set(colAttemptRate, schema.Float(float64(o.attempts)/window*1000))
	row.Set(colTimeouts, schema.Int(o.timeouts))
	row.Set(colErrors, schema.Int(o.errors))
	row.Set(colRejections, schema.Int(o.rejections))
	row.Set(colDropped, schema.Int(o.dropped))
	row.Set(colLimited, schema.Int(o.limited))
	row.Set(colMeanLimit, nullIfNaN(o.meanLimit))
	row.Set(colBudgetDenied, schema.Int(o.budgetDenied))
	row.Set(colHedges, schema.Int(o.hedges))
	if o.offered > 0 {
		row.Set(colHedgeRate, schema.Float(float64(o.hedges)/float64(o.offered)))
	}
	row.Set(colHedgeWins, schema.Int(o.hedgeWins))
	row.Set(colHedgeDenied, schema.Int(o.hedgeDenied))
	row.Set(colHedgeSkipped, schema.Int(o.hedgeSkipped))
	row.Set(colHedgeCut, schema.Int(o.hedgeCut))
	if o.cbOpenFraction != nil {
		row.Set(colBreakerOpens, schema.Int(o.cbOpens))
		row.Set(colBreakerCloses, schema.Int(o.cbCloses))
		row.Set(colBreakerOpenFr, schema.List(o.cbOpenFraction))
	}
	row.Set(colMeanLatency, nullIfNaN(o.ok.Mean()))
	row.Set(colP50Latency, nullIfNaN(o.ok.Quantile(0.5)))
	row.Set(colP95Latency, nullIfNaN(o.ok.Quantile(0.95)))
	row.Set(colP99Latency, nullIfNaN(o.ok.Quantile(0.99)))
	row.Set(colP50AllLatency, nullIfNaN(o.all.Quantile(0.5)))
	row.Set(colP99AllLatency, nullIfNaN(o.all.Quantile(0.99)))
	row.Set(colWastedWork, schema.Float(o.wasted))
	if o.offered > 0 {
		row.Set(colWorkPerRequest, schema.Float(o.busy/float64(o.offered)))
	}
	if o.busy > 0 {
		row.Set(colWastedFraction, schema.Float(o.wasted/o.busy))
	}
	shares := make([]float64, len(o.sent))
	total := int64(0)
	for _, c := range o.sent {
		total += c
	}
	for k, c := range o.sent {
		if total > 0 {
			shares[k] = float64(c) / float64(total)
		}
	}
	if total > 0 { // null when no attempt was measured
		row.Set(colShares, schema.List(shares))
	}
	row.Set(colMeanInSystem, schema.Float(o.area/window))
	if o.offered > 0 {
		row.Set(colMeanTimeInSys, schema.Float(o.clipped/float64(o.offered)))
	}
	row.Set(colPeakQueue, schema.Int(int64(o.peakQueue)))
	row.Set(colEvents, schema.Int(o.events))
	if o.ejectionsOn {
		row.Set(colEjections, schema.Int(o.ejections))
	}
	row.Set(colFirstEjection, nullIfNaN(o.firstEjection))
	row.Set(colFaultWindow, nullIfNaN(o.faultWindow))
	row.Set(colFaultShare, nullIfNaN(o.faultShare))
	o.setKeys(row)
	if o.warning != "" {
		row.Set(colWarning, schema.Str(o.warning))
	}
}

// setKeys fills the keys' and caches' columns of row (keys.go).
func (o *outcome) setKeys(row *schema.Builder) {
	total, weight, peak := int64(0), 0.0, int64(0)
	for k, c := range o.served {
		total += c
		peak = max(peak, c)
		weight += o.activeTime[k]
	}
	if window := slices.Max(o.activeTime); total > 0 && weight > 0 {
		row.Set(colLoadPeakToMean, schema.Float(float64(peak)/(float64(total)*window/weight)))
	}
	if o.lookups != nil {
		hits, lookups := int64(0), int64(0)
		lo, hi := math.Inf(1), math.Inf(-1)
		per := make([]float64, len(o.lookups))
		for k, l := range o.lookups {
			hits += o.hits[k]
			lookups += l
			if l > 0 {
				per[k] = float64(o.hits[k]) / float64(l)
				lo, hi = min(lo, per[k]), max(hi, per[k])
			}
		}
		if lookups > 0 {
			row.Set(colHitRatio, schema.Float(float64(hits)/float64(lookups)))
			row.Set(colHitRatioMin, schema.Float(lo))
			row.Set(colHitRatioMax, schema.Float(hi))
			row.Set(colServerHitRatio, schema.List(per))
		}
	}
	if o.keysBoth > 0 {
		row.Set(colKeysMoved, schema.Float(float64(o.keysMoved)/float64(o.keysBoth)))
		row.Set(colKeysBoth, schema.Int(o.keysBoth))
	}
}
