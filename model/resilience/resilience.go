// Package resilience is the request-level model of seed 004 ("Load balancing and resilience, simulated"): clients,
// one balancer and servers with workers and explicit queues, where a request is an object with a lifecycle, so that
// anything pending can be slowed, paused, dropped, timed out or retried after it was dispatched. It is the world the
// resilience mechanisms live in (DESIGN.md, "The request-level world"); this package builds timeouts, retries with
// backoff and a retry budget, bounded FIFO and LIFO queues, dropping expired work, adaptive concurrency limits
// (limiter.go), GC pauses and a fault timeline.
//
// # Units
//
// Time is in milliseconds and rates are per second, as seed 004: 5 ms network hops, 300 ms pauses every 2 s, 100 ms
// timeouts, 400 requests/s.
//
// # Model
//
// Clients are an open-loop Poisson stream at `rate` requests/s, or a closed loop of `users`, each thinking an
// Exp(`think`) time before its next request and waiting for the request's final answer. A request's attempt travels
// client → balancer → server and back, each leg taking `hop` ms (constant, or exponential with that mean:
// `hop_law`). The balancer picks a server with a dispatch policy from model/policy (it sees its own outstanding
// counts: attempts it sent and has neither had answered nor timed out), starts the attempt's timeout (`timeout`; it
// answers 504 when it fires, and the server keeps working unless `drop_expired`) and forwards it. A server (a class
// of `servers`) has `workers` that serve attempts and a queue behind them, unbounded or holding `queue` attempts;
// FIFO (a full queue answers 503 at once) or LIFO (the newest queued attempt is served first, and a full queue drops
// its oldest attempt with a 503 to make room: adaptive LIFO, Maurer 2015). Service work is a unit-mean draw
// (constant, exponential, or lognormal with `cv`) times `mean` ms, done at the server's speed (a class's `speed`
// times any timeline slow-down factor), so a server at speed 0.25 takes four times as long. With probability
// `error_rate` (the class's, or a timeline fail's) an attempt is answered with a 500 after the same draw times
// `error_latency`. A class may pause periodically (`gc_every`, `gc_pause`, `gc_phase`): stop-the-world, running work
// stops too and nothing starts. Timeline entries (`timeline`) kill, restart, slow, restore, pause, fail, recover or
// add a server, or change the rate, at given times: seed 004's buttons as data. A killed server loses its work (its
// attempts are answered 500 at once: connection reset) and refuses new ones (500 after the round trip), which the
// balancer only learns from those answers: there are no health checks (seed 004).
//
// A client retries a request whose attempt failed (500, 503 or 504) up to `retries` times, after an exponential
// backoff `backoff`·2^(i−1) for the i-th retry, capped at 10 s, with full jitter (a uniform wait in [0, that]:
// Brooker 2015) or none. A retry budget (`retry_budget` = b) is a token bucket: each request deposits b tokens, a
// retry spends one, the bucket holds at most max(10, 100·b) and starts full; without a whole token the request fails
// instead of retrying. This is seed 004's bucket, which it likens to Finagle's RetryBudget (a time-windowed deposit
// of percentCanRetry per request plus minRetriesPerSec, Finagle 22.x com.twitter.finagle.service.RetryBudget) and
// Envoy's retry budget (budget_percent of the active requests, with min_retry_concurrency: a concurrency bound, not a
// bucket; envoy.config.cluster.v3.CircuitBreakers.Thresholds.RetryBudget). Deviations: no time window, the bucket
// starts full, and the reserve is the bucket's floor of 10 rather than a rate.
//
// Circuit breakers at the balancer (`cb_threshold`, `cb_window`, `cb_open`, `cb_probes`; breaker.go), one per server,
// follow seed 004's rule on resilience4j 2.x's count-based CircuitBreaker: a breaker opens when at least
// cb_threshold of its server's last cb_window results (500, 503, 504) failed, bars the server from the policy's
// eligibility mask for cb_open ms, then lets cb_probes attempts through half-open (one fails → open, all succeed →
// closed). They draw no random numbers.
//
// # Fixes for a failing server (seed 000 §6.4, §10)
//
// Balancer-side mechanisms (guards), each off unless its parameter is set, and twin parameters so that fleets with
// different fixes see the same requests: Envoy's outlier detection by consecutive 5xx (`outlier_consecutive_5xx`,
// with `outlier_interval`, `outlier_base_ejection`, `outlier_max_ejection`, `outlier_max_ejection_percent`) and by
// success rate (`outlier_success_rate_minimum_hosts`, `_request_volume`, `_stdev_factor`,
// `outlier_enforcing_success_rate`): ejected servers are barred from the policy's picks; outlier.go); gRPC A58's weighted round robin (`wrr_update`, with
// `wrr_blackout`, `wrr_expiration`, `wrr_penalty`, and `wrr_report`, the servers' report window), which stands in
// for a round-robin policy: weights qps/(utilization + eps/qps·penalty) from the load reports every answer carries,
// picked by grpc-go's static stride scheduler (a58.go); and the SRE book's errors counted as active requests
// (`errors_active`: a 500 holds one more outstanding count at its server for that long; errorsactive.go). With
// `fault_level`, fault_window measures how long the balancer keeps feeding the server of the first timeline fail
// (faultwindow.go); the series' `sent` column counts each server's attempts per bin.
//
// # Keys and caches (issue 16; keys.go)
//
// With `keys`, each request carries a key, its popularity rank drawn from Zipf(`zipf`), which the policy sees
// (policy.Request.Key) and its retries and hedges keep; with `cache`, each server holds an LRU cache of keys,
// looked up when an attempt starts service, a hit doing `hit_cost` of the miss's work, emptied by a kill. Measured:
// hit_ratio (overall, per server, its min and max), load_peak_to_mean and keys_moved by the first timeline add;
// theory: Che's approximation (analytic/che.go) for random dispatch and for ring_hash.
//
// # Engine
//
// One future-event list with handles (sim.Events): arrivals, hops, service completions, timeouts, backoffs, GC
// pauses and timeline changes. A pending completion is moved when its server's speed changes and removed when it
// pauses, an answered attempt's timeout is cancelled, so nothing is decided ahead of time. Attempts and requests are
// records in pools, reused once nothing refers to them, so a run allocates nothing per request in steady state.
//
// # Randomness
//
// Streams (sim.NewRand of the run seed): arrival and think times; first attempts' work and error draws (one pair per
// request, in arrival order, so policies compared at a point see the same requests: common random numbers); retries'
// draws and backoff jitter; network hop times (exponential hops only); the requests' keys (one draw per request, in
// arrival order, with keys only); and the policy's own draws. The timeline and
// the series bin are twin parameters (model.Param.Twin), left out of the run seed: a run with one more timeline
// change at time t draws exactly the same numbers as the run without it until t, so their time series agree before
// t (causality; a test checks it).
//
// # Measurement
//
// The run ends at `horizon`; requests arriving in [warmup, horizon) are measured: offered, succeeded, failed and still
// pending at the horizon; their attempts, retries and the attempt outcomes the balancer saw (timeouts, errors,
// rejections); latency (final answer − arrival, backoffs included) of the successes and of all final answers; wasted
// work (worker time spent on attempts whose balancer had already timed them out); each server's share of their
// attempts; with a limiter, the attempts it rejected (limited) and its limit averaged over time and servers
// (mean_limit), and each server's limit per bin in the series. Each run checks its own books (Little's law over the
// window as an exact identity of the integrated number in the system and the requests' clipped times in it;
// offered = succeeded + failed + pending; attempts = requests + retries) and fills the `warning` column when one does
// not hold.
package resilience

import (
	"fmt"
	"math"

	"lbsweep/model"
	"lbsweep/model/policy"
	"lbsweep/results/schema"
)

// Model is the resilience model; its zero value is ready to use.
type Model struct{}

// Parameter indices into Params() and a Point.
const (
	pN = iota
	pServers
	pWorkers
	pQueue
	pDiscipline
	pDropExpired
	pService
	pMean
	pCV
	pErrorRate
	pErrorLatency
	pRate
	pUsers
	pThink
	pHop
	pHopLaw
	pTimeout
	pRetries
	pBackoff
	pJitter
	pRetryBudget
	pHedge
	pHedgeQuantile
	pHedgeWindow
	pHedgeCancel
	pHedgeBudget
	pTimeline
	pHorizon
	pWarmup
	pBin
	pCBThreshold
	pCBWindow
	pCBOpen
	pCBProbes
	pLimiter
	pLimitInitial
	pLimitMin
	pLimitMax
	pAIMDBackoff
	pAIMDTimeout
	pAIMDRound
	pGradTolerance
	pGradSmoothing
	pGradWindow
	pGradQueue
	pGradBaseline
	pOutlier5xx
	pOutlierInterval
	pOutlierBase
	pOutlierMax
	pOutlierMaxPercent
	pOutlierSRHosts
	pOutlierSRVolume
	pOutlierSRFactor
	pOutlierSREnforcing
	pWRRUpdate
	pWRRBlackout
	pWRRExpiration
	pWRRPenalty
	pWRRReport
	pErrorsActive
	pFaultLevel
	pFaultBin
	pKeys
	pZipf
	pCache
	pHitCost
	pPolicy // the policy arguments, policy.Params in order, follow
)

// Fields of a server class in `servers`.
const (
	fCount = iota
	fWorkers
	fSpeed
	fWeight
	fErrorRate
	fGCEvery
	fGCPause
	fGCPhase
	fActive
)

// Fields of a timeline entry.
const (
	tAt = iota
	tAction
	tServer
	tFactor
	tDuration
	tRate
)

// Service-time laws, in the order of the `service` choices.
const (
	Constant = iota
	Exponential
	Lognormal
)

// Queue disciplines, in the order of the `discipline` choices.
const (
	FIFO = iota
	LIFO
)

// Hop laws, in the order of the `hop_law` choices.
const (
	HopConstant = iota
	HopExponential
)

// Backoff jitter, in the order of the `jitter` choices.
const (
	JitterFull = iota
	JitterNone
)

// Action is a timeline entry's action, in the order of the `action` choices.
type Action uint8

// Timeline actions: what seed 004's "Do something" buttons do.
const (
	Kill    Action = iota // the server stops: its work is lost (answered 500 at once) and it refuses new attempts
	Restart               // a killed server comes back, empty
	Slow                  // the server's speed becomes its class's times factor (0 < factor; 0.25 = a quarter speed; not compounded)
	Restore               // the server's speed returns to its class's
	Pause                 // a stop-the-world pause of duration ms
	Fail                  // the server answers a fraction factor (default 1) of attempts with fast 500s
	Recover               // the server's error rate returns to its class's
	Add                   // a server declared active = false joins the fleet
	Rate                  // the open-loop arrival rate becomes rate requests/s
)

var actionNames = []string{"kill", "restart", "slow", "restore", "pause", "fail", "recover", "add", "rate"}

// String returns the action's name as specs write it.
func (a Action) String() string {
	if int(a) < len(actionNames) {
		return actionNames[a]
	}
	return fmt.Sprintf("Action(%d)", a)
}

// Bounds on a point.
const (
	// MaxServers bounds n.
	MaxServers = 100_000
	// MaxWorkers bounds a server's workers.
	MaxWorkers = 100_000
	// MaxRequests bounds the expected requests rate·horizon (open loop) and users (closed loop).
	MaxRequests = 1e8
	// MaxRetries bounds retries.
	MaxRetries = 100
	// MaxBins bounds one run's time series.
	MaxBins = 1_000_000
	// BackoffCap is the cap on a retry's backoff, in ms (seed 004: 10 s).
	BackoffCap = 10_000.0
	// MaxUsers bounds a closed loop's users (each holds a pending event from the start).
	MaxUsers = 1_000_000
	// MaxCycles bounds users·horizon/(think + 4·hop), the requests a closed loop could make if every one were
	// answered with no service (a 503, a refused connection).
	MaxCycles = 1e10
	// MaxQueue bounds a bounded queue (workers + queue must not overflow; M/M/c/K theory is computed up to
	// K = MaxTheoryK only).
	MaxQueue = 1_000_000_000
	// MaxTheoryK is the largest system capacity K = workers + queue for which the M/M/c/K theory columns are
	// computed (its stationary law is a vector of K + 1 values).
	MaxTheoryK = 1_000_000
	// MaxCV bounds the lognormal service's coefficient of variation (σ = √ln(1 + cv²) ≈ 3.03 at 100).
	MaxCV = 100
	// MinRate bounds an open-loop rate from below, in requests/s (one per 11.6 days; smaller underflows the
	// per-ms rate used in rescaling).
	MinRate = 1e-6
	// MinCBWindow is seed 004's smallest circuit-breaker window ("at least 10" results).
	MinCBWindow = 10
	// MaxCBWindow bounds cb_window.
	MaxCBWindow = 10_000
	// DefaultCBWindow, DefaultCBOpen (ms) and DefaultCBProbes are cb_window, cb_open and cb_probes when null.
	DefaultCBWindow = 20
	DefaultCBOpen   = 1000.0
	DefaultCBProbes = 3
	// MaxSeriesCells bounds (horizon/bin)·n, the per-server time-series values of one run.
	MaxSeriesCells = 1e8
)

const ms = "ms"

var (
	serviceChoices    = []string{"constant", "exponential", "lognormal"}
	disciplineChoices = []string{"fifo", "lifo"}
	hopChoices        = []string{"constant", "exponential"}
	jitterChoices     = []string{"full", "none"}
)

var params = append([]model.Param{
	pN: {Name: "n", Kind: model.Int, Optional: true, Doc: "number of servers, filled in as the sum of the classes' counts (give it only if equal), ≤ 10^5"},
	pServers: {Name: "servers", Kind: model.Records, Doc: "server classes in list order, e.g. [{count = 4}, {count = 1, gc_every = 2000, gc_pause = 300}]: servers 0..count₁−1 form the first class, and so on",
		Fields: []model.Param{
			fCount:     {Name: "count", Kind: model.Int, Doc: "servers in the class, ≥ 1"},
			fWorkers:   {Name: "workers", Kind: model.Int, Optional: true, Doc: "attempts served at once, 1 ≤ workers ≤ 10^5 (default: the fleet's workers)"},
			fSpeed:     {Name: "speed", Kind: model.Float, Optional: true, Doc: "speed factor, > 0: work of w ms takes w/speed ms (default 1)"},
			fWeight:    {Name: "weight", Kind: model.Float, Optional: true, Doc: "static weight for weighted policies (smooth_wrr, wrr_expanded, least_request), > 0 (default: the speed, as seed 004)"},
			fErrorRate: {Name: "error_rate", Kind: model.Float, Optional: true, Doc: "fraction of attempts answered with a 500, 0 ≤ error_rate ≤ 1 (default: the fleet's error_rate)"},
			fGCEvery:   {Name: "gc_every", Kind: model.Float, Optional: true, Unit: ms, Doc: "period of the stop-the-world pauses, > gc_pause (null: none)"},
			fGCPause:   {Name: "gc_pause", Kind: model.Float, Optional: true, Unit: ms, Doc: "length of each pause, > 0; required with gc_every"},
			fGCPhase:   {Name: "gc_phase", Kind: model.Float, Optional: true, Unit: ms, Doc: "start of the first pause, ≥ 0 (default gc_every)"},
			fActive:    {Name: "active", Kind: model.Bool, Optional: true, Doc: "false: the class's servers stay out of the fleet until a timeline add (default true)"},
		}},
	pWorkers:       {Name: "workers", Kind: model.Int, Default: model.IntValue(1), Doc: "attempts each server serves at once, for the classes that set none, 1 ≤ workers ≤ 10^5 (default 1)"},
	pQueue:         {Name: "queue", Kind: model.Int, Optional: true, Doc: "attempts a server holds waiting behind its workers, 0 ≤ queue ≤ 10^9 (null: unbounded); a full queue sheds by the discipline"},
	pDiscipline:    {Name: "discipline", Kind: model.Enum, Choices: disciplineChoices, Default: model.IntValue(FIFO), Doc: "queue discipline: fifo (a full queue answers 503 at once) or lifo (newest served first; a full queue drops its oldest with a 503)"},
	pDropExpired:   {Name: "drop_expired", Kind: model.Bool, Default: model.BoolValue(false), Doc: "a server skips a queued attempt whose balancer timeout has passed (deadline propagation), instead of serving it"},
	pService:       {Name: "service", Kind: model.Enum, Choices: serviceChoices, Default: model.IntValue(Exponential), Doc: "service-work law: constant, exponential (default) or lognormal with coefficient of variation cv"},
	pMean:          {Name: "mean", Kind: model.Float, Unit: ms, Default: model.FloatValue(20), Doc: "mean service work at speed 1, > 0 (default 20)"},
	pCV:            {Name: "cv", Kind: model.Float, Optional: true, Doc: "lognormal service: coefficient of variation, 0 ≤ cv ≤ 100 (null: 1); only with service = lognormal"},
	pErrorRate:     {Name: "error_rate", Kind: model.Float, Default: model.FloatValue(0), Doc: "fraction of attempts answered with a 500 for the classes that set none, 0 ≤ error_rate ≤ 1 (default 0)"},
	pErrorLatency:  {Name: "error_latency", Kind: model.Float, Unit: ms, Optional: true, Doc: "mean work of a 500 at speed 1, > 0 (null: mean: failing takes as long as succeeding)"},
	pRate:          {Name: "rate", Kind: model.Float, Unit: "requests/s", Optional: true, Doc: "open loop: Poisson arrival rate of requests, ≥ 10^-6; rate·horizon ≤ 10^8 (over the timeline's rate changes too); exactly one of rate and users"},
	pUsers:         {Name: "users", Kind: model.Int, Optional: true, Doc: "closed loop: users, each waiting for its request's final answer and then thinking, 1 ≤ users ≤ 10^6; exactly one of rate and users"},
	pThink:         {Name: "think", Kind: model.Float, Unit: ms, Optional: true, Doc: "closed loop: mean exponential think time, ≥ 0 (> 0 when hop = 0); required with users"},
	pHop:           {Name: "hop", Kind: model.Float, Unit: ms, Default: model.FloatValue(5), Doc: "time of one network leg (client → balancer, balancer → server and back), ≥ 0 (default 5, as seed 004)"},
	pHopLaw:        {Name: "hop_law", Kind: model.Enum, Choices: hopChoices, Default: model.IntValue(HopConstant), Doc: "law of a leg's time: constant (default) or exponential with mean hop"},
	pTimeout:       {Name: "timeout", Kind: model.Float, Unit: ms, Optional: true, Doc: "per-attempt timeout at the balancer (it answers 504), > 0 (null: none)"},
	pRetries:       {Name: "retries", Kind: model.Int, Default: model.IntValue(0), Doc: "retries of a failed (500, 503, 504) request at the client, 0 ≤ retries ≤ 100 (default 0)"},
	pBackoff:       {Name: "backoff", Kind: model.Float, Unit: ms, Default: model.FloatValue(10), Doc: "backoff base: the i-th retry waits base·2^(i−1), capped at 10 s, ≥ 0 (default 10)"},
	pJitter:        {Name: "jitter", Kind: model.Enum, Choices: jitterChoices, Default: model.IntValue(JitterFull), Doc: "full: wait uniform in [0, backoff] (Brooker 2015; default); none: wait the backoff"},
	pRetryBudget:   {Name: "retry_budget", Kind: model.Float, Optional: true, Doc: "retry budget: tokens each request deposits, a retry spends one, the bucket holds max(10, 100·b); 0 < b ≤ 10 (null: no budget)"},
	pHedge:         {Name: "hedge", Kind: model.Float, Unit: ms, Optional: true, Doc: "hedging: an attempt with no answer this long after the client sent it gets one copy sent to another server, the first success answers the request, > 0; with hedge_quantile, the delay until the first window's estimate (null: no hedging, or none until then)"},
	pHedgeQuantile: {Name: "hedge_quantile", Kind: model.Float, Optional: true, Doc: "hedging at a running quantile: the delay is the q-quantile of the attempts' client-side round trips (successes) over the last whole hedge_window, 0 < q < 1 (e.g. 0.95: Dean & Barroso's p95; null: a fixed hedge)"},
	pHedgeWindow:   {Name: "hedge_window", Kind: model.Float, Unit: ms, Optional: true, Doc: "hedge_quantile's window: the estimate is renewed from each whole window's latencies, > 0 (null: 1000)"},
	pHedgeCancel:   {Name: "hedge_cancel", Kind: model.Bool, Optional: true, Doc: "true: a hedge's loser is cancelled in service too (its worker freed when the cancel arrives), not only skipped while queued (null or false: queued only, as seed 004)"},
	pHedgeBudget:   {Name: "hedge_budget", Kind: model.Float, Optional: true, Doc: "hedge budget: a token bucket as retry_budget's, its own: each request deposits b tokens, a hedge spends one, it holds max(10, 100·b); 0 < b ≤ 10 (null: hedges unbudgeted, as seed 004)"},
	pTimeline: {Name: "timeline", Kind: model.Records, Optional: true, Twin: true, Doc: "fault timeline, e.g. [{at = 5000, server = 2, action = \"slow\", factor = 0.25}, {at = 6500, server = 2, action = \"restore\"}]; server omitted: every server. A twin parameter: left out of the run seed, so a run with one more change draws the same numbers until it",
		Fields: []model.Param{
			tAt:       {Name: "at", Kind: model.Float, Unit: ms, Doc: "when, 0 ≤ at < horizon"},
			tAction:   {Name: "action", Kind: model.Enum, Choices: actionNames, Doc: "kill, restart, slow (factor), restore, pause (duration), fail (factor: error rate, default 1), recover, add, rate (rate)"},
			tServer:   {Name: "server", Kind: model.Int, Optional: true, Doc: "the server, 0 ≤ server < n, in the fleet at the time (null: every server in the fleet; add: the first inactive one)"},
			tFactor:   {Name: "factor", Kind: model.Float, Optional: true, Doc: "slow: speed multiplier, > 0; fail: error rate, 0 < factor ≤ 1 (default 1)"},
			tDuration: {Name: "duration", Kind: model.Float, Optional: true, Unit: ms, Doc: "pause: its length, > 0"},
			tRate:     {Name: "rate", Kind: model.Float, Optional: true, Unit: "requests/s", Doc: "rate: the new open-loop arrival rate, ≥ 10^-6"},
		}},
	pHorizon:       {Name: "horizon", Kind: model.Float, Unit: ms, Doc: "end of the run, > 0; rate·horizon ≤ 10^8"},
	pWarmup:        {Name: "warmup", Kind: model.Float, Unit: ms, Default: model.FloatValue(0), Doc: "start of the measurement window, 0 ≤ warmup < horizon (default 0)"},
	pBin:           {Name: "bin", Kind: model.Float, Unit: ms, Default: model.FloatValue(250), Twin: true, Doc: "time-series bin width, ≥ horizon/10^6 and ≥ horizon·n/10^8; 0: no time series (default 250, as seed 004's charts). Observation only: not part of the run seed"},
	pCBThreshold:   {Name: "cb_threshold", Kind: model.Float, Optional: true, Doc: "circuit breakers at the balancer, one per server (breaker.go: resilience4j 2.x's count-based CircuitBreaker as seed 004 states it): a server's breaker opens when at least this fraction of its last cb_window results failed (500, 503, 504), 0 < cb_threshold ≤ 1 (null: no breakers; resilience4j's default is 0.5). Needs a policy that honors eligibility"},
	pCBWindow:      {Name: "cb_window", Kind: model.Int, Optional: true, Doc: "results in a breaker's count-based window; it can open only once the window is full (resilience4j's minimumNumberOfCalls = slidingWindowSize), 10 ≤ cb_window ≤ 10^4 (seed 004: at least 10; null: 20); only with cb_threshold"},
	pCBOpen:        {Name: "cb_open", Kind: model.Float, Unit: ms, Optional: true, Doc: "how long an open breaker bars its server before it turns half-open (resilience4j's waitDurationInOpenState), > 0 (null: 1000, four of seed 004's 250 ms bins); only with cb_threshold"},
	pCBProbes:      {Name: "cb_probes", Kind: model.Int, Optional: true, Doc: "attempts a half-open breaker lets through (resilience4j's permittedNumberOfCallsInHalfOpenState): all succeed → closed, one fails → open again; 1 ≤ cb_probes ≤ cb_window (null: 3); only with cb_threshold"},
	pLimiter:       {Name: "limiter", Kind: model.Enum, Choices: limiterChoices, Optional: true, Doc: "adaptive concurrency limit per server on attempts in service plus queued, the excess answered 503 at once: none (null: none), aimd (Netflix AIMDLimit) or gradient2 (Netflix Gradient2Limit); learns only from the attempts it admitted (limiter.go)"},
	pLimitInitial:  {Name: "limit_initial", Kind: model.Int, Optional: true, Doc: "limiter: the initial limit, limit_min ≤ limit_initial ≤ limit_max (null: 20, as the sources)"},
	pLimitMin:      {Name: "limit_min", Kind: model.Int, Optional: true, Doc: "limiter: the smallest limit, ≥ 1 (null: 20, as the sources)"},
	pLimitMax:      {Name: "limit_max", Kind: model.Int, Optional: true, Doc: "limiter: the largest limit, limit_min ≤ limit_max ≤ 10^6 (null: 200, as the sources)"},
	pAIMDBackoff:   {Name: "aimd_backoff", Kind: model.Float, Optional: true, Doc: "aimd: the limit's factor on a dropped or slow sample, 0.5 ≤ aimd_backoff < 1 (null: 0.9, as AIMDLimit)"},
	pAIMDTimeout:   {Name: "aimd_timeout", Kind: model.Float, Unit: ms, Optional: true, Doc: "aimd: a sample slower than this (admission → service end) backs the limit off, > 0 (null: 5 × mean, as seed 004; AIMDLimit's default is 5 s)"},
	pAIMDRound:     {Name: "aimd_round", Kind: model.Bool, Optional: true, Doc: "aimd: back off at most once per round of admitted attempts (seed 004): a slow or dropped sample of an attempt admitted before the last backoff changes nothing (null: false: every such sample backs off, as AIMDLimit)"},
	pGradTolerance: {Name: "gradient_tolerance", Kind: model.Float, Optional: true, Doc: "gradient2: rttTolerance, the latency increase tolerated before the limit shrinks, ≥ 1 (null: 1.5, as Gradient2Limit)"},
	pGradSmoothing: {Name: "gradient_smoothing", Kind: model.Float, Optional: true, Doc: "gradient2: smoothing, the weight of each new estimate, 0 < gradient_smoothing ≤ 1 (null: 0.2, as Gradient2Limit)"},
	pGradWindow:    {Name: "gradient_window", Kind: model.Int, Optional: true, Doc: "gradient2: longWindow, samples of the long-term RTT's exponential average (factor 2/(window + 1) after 10 plain-mean samples), 1 ≤ gradient_window ≤ 10^6 (null: 600, as Gradient2Limit)"},
	pGradQueue:     {Name: "gradient_queue_size", Kind: model.Int, Optional: true, Doc: "gradient2: queueSize, the limit's growth per estimate while latency stays low, 0 ≤ gradient_queue_size ≤ 10^6 (null: 4, as Gradient2Limit's default function)"},
	pGradBaseline:  {Name: "gradient_baseline", Kind: model.Enum, Choices: baselineChoices, Optional: true, Doc: "gradient2: what feeds the long-term RTT: average (every sample, as Gradient2Limit; default) or unqueued (only attempts that went into service at once, as seed 004)"},
	// The fixes of seed 000 §6.4 (outlier.go, a58.go, errorsactive.go, faultwindow.go). All optional with no default
	// (a default would enter every point's key and so every existing seed) and twins (left out of the run seed), so
	// that fleets with and without a fix, or with different fixes, see the same requests (common random numbers).
	pOutlier5xx:         {Name: "outlier_consecutive_5xx", Kind: model.Int, Optional: true, Twin: true, Doc: "Envoy outlier detection (v1.31): eject a server after this many consecutive 5xx (500, 503, 504 timeouts), 1 ≤ n ≤ 10^6 (Envoy consecutive_5xx, default 5 there; null: no outlier detection); the policy must honor eligibility"},
	pOutlierInterval:    {Name: "outlier_interval", Kind: model.Float, Unit: ms, Optional: true, Twin: true, Doc: "outlier detection: the interval timer's period, at whose ticks ejections end and the ejection multiplier decays, > 0, ≥ horizon/10^6 and ≥ horizon·n/10^8 (Envoy interval; null: 10000, Envoy's default)"},
	pOutlierBase:        {Name: "outlier_base_ejection", Kind: model.Float, Unit: ms, Optional: true, Twin: true, Doc: "outlier detection: base ejection time, multiplied by the ejection multiplier, > 0 (Envoy base_ejection_time; null: 30000)"},
	pOutlierMax:         {Name: "outlier_max_ejection", Kind: model.Float, Unit: ms, Optional: true, Twin: true, Doc: "outlier detection: cap on an ejection's length, > 0 (Envoy max_ejection_time; null: max(300000, outlier_base_ejection))"},
	pOutlierMaxPercent:  {Name: "outlier_max_ejection_percent", Kind: model.Float, Optional: true, Twin: true, Doc: "outlier detection: an ejection happens only if the ejected servers, it included, are at most this percent of the fleet, 0 ≤ p ≤ 100 (Envoy max_ejection_percent since v1.28: with 4 servers, 25 ejects one; null: 10, which with fewer than 10 servers ejects none)"},
	pOutlierSRHosts:     {Name: "outlier_success_rate_minimum_hosts", Kind: model.Int, Optional: true, Twin: true, Doc: "outlier detection's success-rate ejection runs at an interval tick only if this many servers had outlier_success_rate_request_volume answers in the interval just ended, ≥ 1 (Envoy success_rate_minimum_hosts; null: 5)"},
	pOutlierSRVolume:    {Name: "outlier_success_rate_request_volume", Kind: model.Int, Optional: true, Twin: true, Doc: "success-rate ejection: the answers a server needs in an interval to be judged, ≥ 1 (Envoy success_rate_request_volume; null: 100)"},
	pOutlierSRFactor:    {Name: "outlier_success_rate_stdev_factor", Kind: model.Int, Optional: true, Twin: true, Doc: "success-rate ejection: a server is ejected when its success rate is below mean − (factor/1000)·stdev of the judged servers', ≥ 0 (Envoy success_rate_stdev_factor, in thousandths; null: 1900)"},
	pOutlierSREnforcing: {Name: "outlier_enforcing_success_rate", Kind: model.Int, Optional: true, Twin: true, Doc: "success-rate ejection: 100 enforces it, 0 turns it off (Envoy enforcing_success_rate, a percentage chance; other values are refused here; null: 100)"},
	pWRRUpdate:          {Name: "wrr_update", Kind: model.Float, Unit: ms, Optional: true, Twin: true, Doc: "gRPC A58 weighted round robin: the scheduler is rebuilt from the servers' weights every this many ms, ≥ 100, ≥ horizon/10^6 and ≥ horizon·n/10^8 (weight_update_period; null: A58 off); replaces a round-robin policy"},
	pWRRBlackout:        {Name: "wrr_blackout", Kind: model.Float, Unit: ms, Optional: true, Twin: true, Doc: "A58: a server's weight counts only once it has had reports for this long, ≥ 0 (blackout_period; null: 10000)"},
	pWRRExpiration:      {Name: "wrr_expiration", Kind: model.Float, Unit: ms, Optional: true, Twin: true, Doc: "A58: a weight with no report for this long is dropped, > 0 (weight_expiration_period; null: 180000)"},
	pWRRPenalty:         {Name: "wrr_penalty", Kind: model.Float, Optional: true, Twin: true, Doc: "A58: error_utilization_penalty in weight = qps/(utilization + eps/qps·penalty), ≥ 0 (null: 1)"},
	pWRRReport:          {Name: "wrr_report", Kind: model.Float, Unit: ms, Optional: true, Twin: true, Doc: "A58: the window over which a server computes the qps, eps and utilization it reports with each answer, > 0, ≥ horizon/10^6 and ≥ horizon·n/10^8 (null: 1000)"},
	pErrorsActive:       {Name: "errors_active", Kind: model.Float, Unit: ms, Optional: true, Twin: true, Doc: "the SRE book's fix (ch. 20): a 500 from a server counts as one more outstanding request there for this many ms, > 0 (null: off)"},
	pFaultLevel:         {Name: "fault_level", Kind: model.Float, Optional: true, Twin: true, Doc: "fault_window's level: the faulty server's share of the balancer's attempts per fault_bin, 0 < level ≤ 1 (null: no fault_window)"},
	pFaultBin:           {Name: "fault_bin", Kind: model.Float, Unit: ms, Optional: true, Twin: true, Doc: "fault_window's windows, > 0 (null: 100)"},
	// Keys and caches (keys.go): optional with no default and twins, as the fixes, so that existing points keep their
	// keys and seeds, and points that differ only in them see the same requests.
	pKeys:    {Name: "keys", Kind: model.Int, Optional: true, Twin: true, Doc: "keys: each request carries a key, its popularity rank 1..keys drawn from Zipf(zipf) from a stream of its own (retries and hedges keep it), 1 ≤ keys ≤ 10^7 (null: no keys: every key is 0 and keyed policies are refused)"},
	pZipf:    {Name: "zipf", Kind: model.Float, Optional: true, Twin: true, Doc: "keys: the Zipf exponent s, P(rank r) ∝ r^−s, 0 ≤ s ≤ 100 (0: uniform; null: 1); only with keys"},
	pCache:   {Name: "cache", Kind: model.Int, Optional: true, Twin: true, Doc: "each server's LRU cache, in keys, ≥ 1, keys·n ≤ 2·10^7: an attempt looks its key up when it starts service (not a 500's), a hit's work is hit_cost of the miss's, a miss inserts the key evicting the least recently used; a kill empties it (null: no caches); only with keys"},
	pHitCost: {Name: "hit_cost", Kind: model.Float, Optional: true, Twin: true, Doc: "a cache hit's work as a fraction of its miss's, 0 ≤ hit_cost ≤ 1 (null: 0.1, this model's choice: seed 004 says only \"cheaper\"); only with cache"},
	pPolicy:  {Name: "policy", Kind: model.Enum, Choices: policy.Names(), Policy: true, Doc: "the balancer's dispatch policy (sweep -list); it sees its own outstanding counts; times in ms"},
}, policy.Params...)

// Name implements model.Model.
func (Model) Name() string { return "resilience" }

// Doc implements model.Model.
func (Model) Doc() string {
	return "seed 004's request-level world in ms: open- or closed-loop clients, network hops, one balancer with a dispatch policy, servers with workers and FIFO/LIFO bounded queues, timeouts, retries with backoff and a retry budget, drop-expired, GC pauses and a fault timeline; goodput, attempts and latency by outcome, with M/M/c theory and the retry fixed point"
}

// Params implements model.Model.
func (Model) Params() []model.Param { return params }

// Metrics implements model.Model.
func (Model) Metrics() []schema.Column { return metrics.Columns() }

// Cost implements model.Model: about six events per attempt, attempts per request taken as √(1+retries) (a healthy
// run makes one attempt per request, a storm up to 1 + retries: the geometric mean is within a factor √(1+retries)
// of both, so within 2× for up to 3 retries) times 1 + the hedged share with no queueing (config.hedgeShare), a
// pick's server reads (policy.Traits.Reads) at an eighth of an event each, the GC pauses' events, and the fixes'
// periodic timers (outlier detection's interval, A58's report windows and updates) at an eighth of an event per
// server a tick visits, and with keys the alias table's and the caches' key indexes at an eighth of an event per
// entry.
func (Model) Cost(p model.Point) float64 {
	cfg := configOf(p)
	requests := cfg.requestsEstimate()
	gc := 0.0
	for _, c := range cfg.classes {
		if c.gcEvery > 0 {
			gc += float64(c.count) * 2 * cfg.horizon / c.gcEvery
		}
	}
	for _, x := range cfg.periodics() { // the fixes' timers: a tick visits every server
		gc += float64(cfg.n) * cfg.horizon / x.period / 8
	}
	attempts := requests * math.Sqrt(1+float64(cfg.retries)) * (1 + cfg.hedgeShare())
	ps := cfg.policyServers()
	reads := float64(policyConfig(p).Traits(ps).Reads) // a pick's server reads: a full scan costs n
	// The alias table's build and each cache's key index, an eighth of an event per entry.
	keys := 0.0
	if cfg.keys > 0 {
		keys = float64(cfg.keys) / 8
		if cfg.cache > 0 {
			keys += float64(cfg.keys*cfg.n) / 8
		}
	}
	return attempts*(6+reads/8) + gc + float64(len(cfg.timeline)) + keys
}

// EventsPerSecond implements model.Rater: 7·10^6 events per CPU-second of the runs themselves (5–9·10^6 over the
// breaker, gc-ewma, rr-slow and sinkhole experiments' points on the project's machine, 2026-12-02; experiments/sweep
// TestPlanRates -calibrate); the time series a run writes is the plan's own term (model.Bounds.SeriesRows).
func (Model) EventsPerSecond(model.Point) float64 { return 7e6 }

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
