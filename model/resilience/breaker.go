package resilience

import "lbsweep/model/policy"

// Circuit breakers at the balancer, one per server: seed 004's rule ("closed while fewer than the threshold share of
// the last cbWindow results (at least 10) failed; open (no traffic) for cbOpenMs; then half-open, letting cbProbes
// requests through — all succeed → closed, one fails → open again. Errors and timeouts count as failures."), built
// as resilience4j 2.x's count-based CircuitBreaker (github.com/resilience4j/resilience4j, read at commits 335f5eb
// (circuitbreaker/CircuitBreakerConfig.java), 06b25fb (internal/CircuitBreakerMetrics.java) and 1a4a716
// (internal/CircuitBreakerStateMachine.java); no release tag resolved, the rules and defaults used here are the same
// throughout 1.x and 2.x; CircuitBreakerConfig's names in brackets):
//
//   - Closed: the breaker keeps the outcomes of its server's last cb_window results (slidingWindowType =
//     COUNT_BASED, slidingWindowSize = cb_window). Failures are 500s, 503s and 504s (resilience4j records every
//     exception by default). It opens on a result that leaves the window full and its failed fraction ≥ cb_threshold
//     (failureRateThreshold; resilience4j's "failureRate >= failureRateThreshold"). Seed 004's "at least 10" is read
//     as the window's smallest size, and the window must be full before it can open: resilience4j's
//     minimumNumberOfCalls equal to slidingWindowSize (its defaults: both 100), so no breaker opens on its first
//     few results.
//   - Open: the server is barred from the policy's eligibility mask (no traffic) for cb_open ms
//     (waitDurationInOpenState); then half-open, by a timer at exactly cb_open (resilience4j's
//     automaticTransitionFromOpenToHalfOpenEnabled = true; its default, false, turns half-open lazily at the first
//     call after the wait, which behind a balancer with steady traffic is the next dispatch).
//   - Half-open: the server is eligible until cb_probes attempts have been sent to it
//     (permittedNumberOfCallsInHalfOpenState), then barred until they are answered or time out. The first failed
//     probe opens the breaker again at once; when all cb_probes succeed it closes with an empty window.
//
// Where this differs from resilience4j 2.x:
//   - Half-open decides by seed 004's rule, not resilience4j's: there the permitted calls fill a window of their
//     own and, once all are recorded, a failure rate ≥ failureRateThreshold opens the breaker and a lower one closes
//     it. The two reach the same state when cb_threshold ≤ 1/cb_probes, resilience4j only once every probe is back.
//   - Results of attempts sent before the breaker's current state began (sent while closed, answered after it
//     opened; or sent while half-open, answered after the first probe failed) are ignored: they are not in the next
//     closed period's window (it starts empty) and they are not probes. resilience4j cannot tell them apart: it
//     records them in whatever metrics its current state holds (a late failure while half-open counts as a probe's).
//   - A breaker guards one server behind a balancer: while it is open the policy routes around the server, and the
//     balancer answers 503 only when every server is barred (resilience4j guards one callee and fails each call
//     with CallNotPermittedException). No slow-call rate (slowCallRateThreshold = 100%, its default), no time-based
//     window, no maxWaitDurationInHalfOpenState (its default 0: wait for the probes for ever). Every attempt sent
//     gets its result here (an answer or a timeout, before the horizon); a mechanism that withdraws an attempt (a
//     hedge's loser) must still report its result to the guards, or a half-open breaker waiting on it stays barred.
//
// Envoy's "circuit breaking" (envoy.config.cluster.v3.CircuitBreakers: max_connections, max_pending_requests,
// max_requests, max_retries) is a different mechanism: concurrency thresholds per cluster and priority, over which
// Envoy answers 503 at once, with no notion of a failure rate or of open and half-open states.
//
// The open fraction of time has no closed form in general (it depends on the load the policy sends the server
// while closed, the window, and the probes' latency); for a server that fails every attempt, each open period is
// cb_open plus the time to the first probe's failure, which the breaker experiment sets beside the measurement.

// cbState is a breaker's state.
type cbState uint8

// Breaker states.
const (
	cbClosed   cbState = iota // traffic flows; results fill the window
	cbOpen                    // the server is barred
	cbHalfOpen                // probes go through
)

var cbStateNames = [...]string{"closed", "open", "half-open"}

// String returns the state's name.
func (s cbState) String() string { return cbStateNames[s] }

// cbTransition is one state change of a breaker (the test hook config.cbTrace records them).
type cbTransition struct {
	t        float64 // ms
	server   int
	from, to cbState
}

// breaker is the guard holding every server's circuit breaker.
type breaker struct {
	g         int // its position in engine.guards (its timers' address)
	threshold float64
	window    int
	open      float64 // ms
	probes    int32
	state     []cbState
	epoch     []uint32 // per server: incremented at each transition
	results   []bool   // server k's window is results[k·window : (k+1)·window], a ring: true = failed
	pos       []int32  // next slot of the ring
	filled    []int32  // results held
	fails     []int32  // failures held
	sentP     []int32  // half-open: probes sent
	okP       []int32  // half-open: probes succeeded
	// tag[a] is attempt a's server epoch at its dispatch << 1 | 1 if it was a probe; grown with the attempt pool.
	tag []uint32
	// Time accounting per server: time open and half-open since areaT, in the current bin and in [warmup, ...).
	areaT, sinceT    []float64
	openBin, halfBin []float64
	openWin          []float64
	opens, closes    int64 // transitions to open (closed → open and half-open → open) and to closed, at or after warmup
	warmup           float64
	trace            bool
	log              []cbTransition
}

// newBreaker builds the breakers of the run c as guard number g, every one closed.
func newBreaker(c config, g int) *breaker {
	n := c.n
	return &breaker{g: g, threshold: c.cbThreshold, window: c.cbWindow, open: c.cbOpen, probes: int32(c.cbProbes),
		state: make([]cbState, n), epoch: make([]uint32, n), results: make([]bool, n*c.cbWindow),
		pos: make([]int32, n), filled: make([]int32, n), fails: make([]int32, n), sentP: make([]int32, n),
		okP: make([]int32, n), areaT: make([]float64, n), sinceT: make([]float64, n), openBin: make([]float64, n), halfBin: make([]float64, n),
		openWin: make([]float64, n), warmup: c.warmup, trace: c.cbTrace}
}

// bars implements guard: an open breaker bars its server, and a half-open one once its probes are all sent.
func (b *breaker) bars(k int) bool {
	return b.state[k] == cbOpen || b.state[k] == cbHalfOpen && b.sentP[k] >= b.probes
}

// sent implements guard: it tags attempt a with server k's epoch (and as a probe when half-open).
func (b *breaker) sent(e *engine, k int, a int32) {
	for int(a) >= len(b.tag) {
		b.tag = append(b.tag, 0) // amortised: grows only with the attempt pool's peak
	}
	t := b.epoch[k] << 1
	if b.state[k] == cbHalfOpen {
		t |= 1
		b.sentP[k]++
		if b.sentP[k] == b.probes {
			e.recheck(k)
		}
	}
	b.tag[a] = t
}

// result implements guard: a result of an attempt sent in server k's current state fills the closed window or
// resolves a probe; any other is ignored (see the type's doc).
func (b *breaker) result(e *engine, k int, a int32, o policy.Outcome, _ float64) {
	if b.tag[a]>>1 != b.epoch[k] {
		return // sent before the current state began
	}
	if o == policy.Cancelled {
		// A hedge's loser withdrawn by its client says nothing of the server: not a result; a probe gives its
		// slot back, so that a half-open breaker is not left waiting for it.
		if b.state[k] == cbHalfOpen && b.tag[a]&1 == 1 {
			b.sentP[k]--
			e.recheck(k)
		}
		return
	}
	failed := o != policy.OK
	switch b.state[k] {
	case cbClosed:
		w := k * b.window
		i := w + int(b.pos[k])
		if b.filled[k] == int32(b.window) {
			if b.results[i] {
				b.fails[k]--
			}
		} else {
			b.filled[k]++
		}
		b.results[i] = failed
		if failed {
			b.fails[k]++
		}
		b.pos[k] = (b.pos[k] + 1) % int32(b.window)
		// The failed fraction as a correctly rounded quotient: a threshold written as that fraction (3/10 as 0.3)
		// parses to the same float, so "exactly at the threshold" opens.
		if b.filled[k] == int32(b.window) && float64(b.fails[k])/float64(b.window) >= b.threshold {
			b.to(e, k, cbOpen)
		}
	case cbHalfOpen:
		if failed {
			b.to(e, k, cbOpen)
			return
		}
		b.okP[k]++
		if b.okP[k] == b.probes {
			b.to(e, k, cbClosed)
		}
	}
}

// fire implements guard: server p's open period ends and its breaker turns half-open.
func (b *breaker) fire(e *engine, p int32) {
	if k := int(p); b.state[k] == cbOpen {
		b.to(e, k, cbHalfOpen)
	}
}

// to moves server k's breaker to state s at e.now: a new epoch, the window or the probes reset, the open timer, and
// the eligibility rechecked.
func (b *breaker) to(e *engine, k int, s cbState) {
	b.account(k, e.now)
	b.accountWin(k, e.now)
	if b.trace {
		b.log = append(b.log, cbTransition{e.now, k, b.state[k], s})
	}
	b.state[k] = s
	b.epoch[k]++
	b.sentP[k], b.okP[k] = 0, 0
	b.pos[k], b.filled[k], b.fails[k] = 0, 0, 0
	switch s {
	case cbOpen:
		e.guardAt(e.now+b.open, b.g, int32(k))
		if e.now >= b.warmup {
			b.opens++
		}
	case cbClosed:
		if e.now >= b.warmup {
			b.closes++
		}
	}
	e.recheck(k)
}

// account adds server k's time in its current state from its last accounting to t, to the bin's sums.
func (b *breaker) account(k int, t float64) {
	dt := t - b.areaT[k]
	switch b.state[k] {
	case cbOpen:
		b.openBin[k] += dt
	case cbHalfOpen:
		b.halfBin[k] += dt
	}
	b.areaT[k] = t
}

// accountWin adds server k's open time in [warmup, t) since its state began (at sinceT[k]) to the window's sum; called
// at transitions and at the horizon only, so that the run's columns do not depend on the series' bins (a sum split
// at bin ends would round differently).
func (b *breaker) accountWin(k int, t float64) {
	if b.state[k] == cbOpen {
		if win := t - max(b.sinceT[k], b.warmup); win > 0 {
			b.openWin[k] += win
		}
	}
	b.sinceT[k] = t
}

// closeBin accounts every breaker up to the bin's end and writes each server's fractions of the bin (width ms)
// spent open and half-open into open and half, resetting the bin's accumulators.
func (b *breaker) closeBin(end, width float64, open, half []float64) {
	for k := range b.state {
		b.account(k, end)
		open[k], half[k] = b.openBin[k]/width, b.halfBin[k]/width
		b.openBin[k], b.halfBin[k] = 0, 0
	}
}

// finish accounts every breaker up to the horizon and writes the run's breaker measurements into out.
func (b *breaker) finish(horizon float64, out *outcome) {
	out.cbOpenFraction = make([]float64, len(b.state))
	for k := range b.state {
		b.account(k, horizon)
		b.accountWin(k, horizon)
		out.cbOpenFraction[k] = b.openWin[k] / (horizon - b.warmup)
	}
	out.cbOpens, out.cbCloses, out.cbLog = b.opens, b.closes, b.log
}
