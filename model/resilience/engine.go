package resilience

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"lbsweep/model"
	"lbsweep/model/policy"
	"lbsweep/model/sim"
)

// Stream identifiers of this model's random streams beyond sim.Streams' (see sim.NewRand). Fixed forever.
const (
	streamRetries = 0x7265747269657320 // "retries ": retries' work and error draws, backoff jitter
	streamNetwork = 0x6e6574776f726b20 // "network ": exponential hop times
	streamHedges  = 0x6865646765732020 // "hedges  ": hedge copies' work and error draws
)

// kind is what an event does.
type kind uint8

// Event kinds. An event's index is an attempt's, a request's, a server's, a user's or a timeline entry's, by kind.
const (
	evArrival    kind = iota // the next open-loop arrival
	evThink                  // a closed-loop user's think time ends: it sends a request (idx: user)
	evRetry                  // a request's backoff ends: it sends its next attempt (idx: request)
	evAtBalancer             // an attempt reaches the balancer (idx: attempt)
	evAtServer               // an attempt reaches its server
	evComplete               // a server finishes an attempt's work
	evAnswer                 // a server's answer (or refusal) reaches the balancer
	evTimeout                // the balancer's timeout of an attempt fires
	evAtClient               // the balancer's answer reaches the client
	evGCStart                // a server's periodic pause begins (idx: server)
	evGCEnd                  // it ends
	evPauseEnd               // a timeline pause ends (idx: server)
	evChange                 // a timeline entry applies (idx: its position in config.timeline)
	evGuard                  // a guard's timer (idx: its position in engine.guards << guardShift | its payload)
	evHedge                  // a request's hedge delay ends with its attempt unanswered (idx: request)
	evCancel                 // a client's cancel of a hedge's loser reaches the balancer, then its server (idx: attempt)
)

// Where an attempt is at its server.
const (
	stTravel  uint8 = iota // not arrived yet
	stQueued               // in its server's queue
	stRunning              // in service
	stGone                 // left the server (served, dropped, shed, lost in a kill, skipped)
)

// event is an event list payload.
type event struct {
	kind kind
	idx  int32
}

// attempt is one attempt of a request: a pooled record, freed when no event, queue or worker refers to it (refs).
// measured is its request's (arrived in the window), kept here because a timed-out attempt may still be queued or in
// service after its request has ended and the request's record has been reused.
type attempt struct {
	req        int32
	measured   bool
	server     int32
	num        int32   // its request's attempts sent before it (first attempts, retries and hedges)
	gen        uint32  // its request's generation when sent (see request.gen)
	sent       float64 // when the client sent it
	key        uint64  // its request's key (0: no keys)
	x          float64 // unit-mean work draw
	u          float64 // uniform error draw: the attempt fails when u < its server's error rate at service start
	dispatched float64 // when the balancer sent it on
	admitted   float64 // when its server admitted it (queued or into service)
	deadline   float64 // when the balancer times it out (+Inf: never)
	rem        float64 // in service: work left at speed 1, as of since
	since      float64
	busy       float64 // worker time spent on it so far
	done       sim.Handle
	timer      sim.Handle
	slot       int32 // in service: its index in its server's running list
	refs       int32
	outcome    policy.Outcome // what the balancer answers the client
	timedOut   bool           // the balancer's timeout fired
	failing    bool           // in service as a 500
	hedge      bool           // a hedge copy
	replied    bool           // the balancer forwarded its answer to the client
	cancel     uint8          // a hedge's loser: 1 once its cancel reached the balancer, 2 its server
	state      uint8          // stTravel, stQueued, stRunning, stGone
}

// request is one client request: a pooled record, freed at its final answer.
type request struct {
	arrival  float64
	user     int32 // closed loop: the user; −1 in an open loop
	attempts int32 // attempts sent so far (first, retries, hedges)
	tries    int32 // retries sent so far
	measured bool
	next     int32 // free list link
	// gen counts the record's lives: it grows when the request ends, so an attempt whose gen differs belongs to an
	// earlier request (a hedge's loser answered after the winner) and its answer is ignored.
	gen uint32
	// Hedging: the copies sent and not yet answered at the client (at most two: an attempt and its hedge), the
	// current attempt and its hedge (−1: none), the server the attempt went to (−1: not dispatched yet), and the
	// pending hedge timer.
	out                    int32
	primary, second, where int32
	sent                   float64 // when the current attempt was sent
	hedgeTimer             sim.Handle
	key                    uint64 // its key rank, 1..keys (0: no keys)
}

// srv is one server's state.
type srv struct {
	class     *class
	workers   int
	speed     float64 // current: the class's speed times any slow-down
	errorRate float64 // current
	stops     int     // pauses in effect (GC and timeline pauses may overlap)
	alive     bool
	active    bool
	running   []int32   // attempts in service
	queue     ring      // attempts waiting
	counts    srvCounts // attempts finished, 500s among them, their worker time (A58's load reports)
	// The time series' integrals over the current bin of the attempts held (in service and queued) and queued, up to
	// areaT (see touch).
	heldArea, queuedArea, areaT float64
}

// rate is the server's current speed of work (0 while paused).
func (s *srv) rate() float64 {
	if s.stops > 0 {
		return 0
	}
	return s.speed
}

// ring is a growable ring buffer of attempt indices: a server's queue, oldest first.
type ring struct {
	buf  []int32 // len is a power of two, or 0
	head int
	n    int
}

func (q *ring) len() int { return q.n }

func (q *ring) pushBack(v int32) {
	if q.n == len(q.buf) {
		nb := make([]int32, max(8, 2*len(q.buf)))
		for i := range q.n {
			nb[i] = q.buf[(q.head+i)&(len(q.buf)-1)]
		}
		q.buf, q.head = nb, 0
	}
	q.buf[(q.head+q.n)&(len(q.buf)-1)] = v
	q.n++
}

func (q *ring) popFront() int32 {
	v := q.buf[q.head]
	q.head = (q.head + 1) & (len(q.buf) - 1)
	q.n--
	return v
}

func (q *ring) popBack() int32 {
	q.n--
	return q.buf[(q.head+q.n)&(len(q.buf)-1)]
}

// bin is one time-series bin's counts.
type bin struct {
	offered, attempts, successes, failures, timeouts, errors, rejections, retries, hedges int64
	lookups, hits                                                                         int64 // cache lookups at service start, and hits among them
	latencies                                                                             []float64
	hedgeDelay                                                                            float64 // at the bin's end (NaN: no hedging)
}

// sample is one closed bin.
type sample struct {
	t        float64
	counts   bin
	p        [3]float64 // p50, p95, p99 of the successes (NaN: none)
	inFlight []float64  // time averages over the bin, per server
	sent     []float64  // attempts the balancer sent to each server in the bin
	queue    []float64
	limit    []float64 // time averages over the bin of the servers' limits (nil: no limiter)
	inSystem float64
	cbOpen   []float64 // per server: the fractions of the bin its breaker was open and half-open (nil: no breakers)
	cbHalf   []float64
}

// outcome is what a run measured.
type outcome struct {
	offered, succeeded, failed, pending  int64
	attempts, retries, firsts            int64
	timeouts, errors, rejections         int64
	dropped, budgetDenied                int64
	hedges, hedgeWins, hedgeDenied       int64
	hedgeSkipped, hedgeCut               int64
	limited                              int64   // attempts the limiter rejected
	meanLimit                            float64 // the limiter's time- and server-averaged limit (NaN: none)
	ok, all                              *sim.Sojourns
	wasted, busy                         float64
	sent                                 []int64
	area, clipped, carry                 float64
	peakQueue                            int
	ejections                            int64   // outlier ejections enforced
	ejectionsOn                          bool    // outlier detection is on
	firstEjection                        float64 // ms; NaN: none
	faultWindow, faultShare              float64 // ms, and a share; NaN: none (see faultWindow)
	events                               int64
	warning                              string
	series                               []sample
	cbOpens, cbCloses                    int64          // breakers' transitions to open and to closed in the window
	cbOpenFraction                       []float64      // per server: the fraction of the window its breaker was open (nil: no breakers)
	cbLog                                []cbTransition // tests (config.cbTrace): every breaker transition
	freeAttempts, liveAttempts, liveReqs int            // tests: the pools after the run
	// Keys and caches: per server, the measured attempts that started service, their cache lookups and hits (nil
	// lookups: no caches); the time each server was in the fleet within the window (ms); the keys requested both
	// before and after the first timeline add, and those among them whose server changed (keysBoth 0: none, or no
	// add).
	served, lookups, hits []int64
	activeTime            []float64
	keysBoth, keysMoved   int64
}

// engine is one run's state.
type engine struct {
	c         config
	ev        sim.Events[event]
	servers   []srv
	att       []attempt
	freeAtt   []int32
	reqs      []request
	freeReq   int32 // head of the free list, −1: none
	live      int   // requests in the system
	pol       policy.Policy
	obs       policy.Observer
	view      policy.View
	lv        *sim.Levels // the balancer's outstanding counts
	eligible  []bool      // the policy's mask (nil: every server): in the fleet and barred by no guard
	nEligible int         // true entries of eligible
	guards    []guard     // balancer-side mechanisms, in order
	adm       admission   // the servers' admission control (nil: none)
	brk       *breaker    // the circuit breakers, also in guards (nil: none)
	binSent   []int64     // per server: attempts sent in the current bin (nil: no series)
	arrivals  *sim.Rand   // inter-arrival and think times
	service   *sim.Rand   // first attempts' draws
	retryR    *sim.Rand   // retries' draws and jitter
	network   *sim.Rand   // hop times
	dispatch  *sim.Rand
	next      sim.Handle // the pending open-loop arrival
	rate      float64    // current open-loop rate, per ms
	tokens    float64    // retry budget
	capacity  float64    // the bucket's size
	hedger    *hedger    // nil: no hedging
	hedgeR    *sim.Rand  // hedge copies' draws
	hTokens   float64    // hedge budget
	hCap      float64    // its bucket's size (0: unbudgeted)
	now       float64
	lastT     float64 // time of the last area update
	out       outcome
	cur       bin
	liveArea  float64 // ∫ live dt over the current bin up to liveT (the series' in_system)
	liveT     float64
	binEnd    float64   // end of the current bin, (bins + 1)·bin: a product, not a running sum, so it does not drift
	bins      int64     // bins closed
	seedRun   uint64    // the run seed (seed.Run), for the streams made after the start
	keyR      *sim.Rand // the keys' draws (nil: no keys)
	keyTable  alias
	caches    []*lru    // per server (nil: no caches)
	joined    []float64 // per server: when it joined the fleet (0 for the servers active from the start)
	added     bool      // the first timeline add has happened
	// Per key rank r at r−1: the server of its last first attempt dispatched before the first add, and of its
	// first after (−1: none); nil with no keys or no add.
	keyBefore, keyAfter []int32
}

// simulate runs point c with streams s and policy pol (which observes responses when observe is AtCompletion).
func simulate(ctx context.Context, c config, seed model.Seed, pol policy.Policy, observe policy.When) (outcome, error) {
	st := sim.NewStreams(seed)
	e := &engine{c: c, pol: pol, arrivals: st.Arrivals, service: st.Service, dispatch: st.Dispatch,
		retryR: sim.NewRand(seed.Run, streamRetries), network: sim.NewRand(seed.Run, streamNetwork),
		freeReq: -1, rate: c.rate, lastT: c.warmup, seedRun: seed.Run}
	if observe == policy.AtCompletion {
		e.obs = pol.(policy.Observer)
	}
	e.lv = sim.NewLevels(c.n)
	e.view = policy.View{Loads: e.lv}
	e.out = outcome{ok: sim.NewSojourns(), all: sim.NewSojourns(), sent: make([]int64, c.n), meanLimit: math.NaN(),
		faultWindow: math.NaN(), faultShare: math.NaN(), firstEjection: math.NaN()}
	if c.budget > 0 {
		e.capacity = max(10, 100*c.budget)
		e.tokens = e.capacity
	}
	if c.hedging() {
		e.hedger = newHedger(c)
		e.hedgeR = sim.NewRand(seed.Run, streamHedges)
		if c.hedgeBudget > 0 {
			e.hCap = max(10, 100*c.hedgeBudget)
			e.hTokens = e.hCap
		}
	}
	anyInactive := false
	for i := range c.classes {
		cl := &c.classes[i]
		for range cl.count {
			e.servers = append(e.servers, srv{class: cl, workers: cl.workers, speed: cl.speed, errorRate: cl.errorRate,
				alive: true, active: cl.active})
			anyInactive = anyInactive || !cl.active
		}
	}
	e.guards = e.newGuards()
	e.adm = e.newAdmission()
	e.newKeys()
	if anyInactive || len(e.guards) > 0 || e.hedger != nil {
		e.eligible = make([]bool, c.n)
		for k := range e.servers {
			e.recheck(k)
		}
		e.view.Eligible = e.eligible
	}
	// Timeline entries and the first pauses go first, so that at equal times they precede the traffic.
	for i, ch := range c.timeline {
		e.ev.Push(ch.at, event{evChange, int32(i)})
	}
	for k := range e.servers {
		if cl := e.servers[k].class; cl.gcEvery > 0 && cl.gcPhase < c.horizon {
			e.ev.Push(cl.gcPhase, event{evGCStart, int32(k)})
		}
	}
	if c.users > 0 {
		for u := range c.users {
			e.ev.Push(e.arrivals.Exp()*c.think, event{evThink, int32(u)})
		}
	} else if c.script != nil {
		e.next = e.ev.Schedule(c.script[0], event{evArrival, 0})
	} else {
		if t := e.arrivals.Exp() / c.rate; t < c.horizon {
			e.next = e.ev.Schedule(t, event{evArrival, 0})
		}
	}
	if c.bin > 0 {
		e.binEnd = c.bin
		e.binSent = make([]int64, c.n)
	} else {
		e.binEnd = math.Inf(1)
	}
	peakOn := false // the queues at warmup count towards peak_queue; admit tracks it from there
	for e.ev.Len() > 0 {
		t := e.ev.Next()
		if t >= c.horizon {
			break
		}
		for t >= e.binEnd {
			e.closeBin()
		}
		e.advance(t)
		if !peakOn && t >= c.warmup {
			peakOn = true
			for k := range e.servers {
				e.out.peakQueue = max(e.out.peakQueue, e.servers[k].queue.len())
			}
		}
		_, x := e.ev.Pop()
		e.out.events++
		if e.out.events&(1<<16-1) == 0 && ctx.Err() != nil {
			return outcome{}, ctx.Err()
		}
		e.handle(x)
	}
	for c.bin > 0 && e.binEnd <= c.horizon+1e-9*c.bin { // the last whole bin, whatever the rounding of (bins+1)·bin
		e.closeBin()
	}
	e.advance(c.horizon)
	if e.adm != nil {
		e.out.meanLimit = e.adm.meanLimit(c.horizon)
	}
	for _, g := range e.guards {
		if f, ok := g.(finisher); ok {
			f.finish(e)
		}
	}
	e.finishKeys()
	e.finishBooks()
	if e.brk != nil {
		e.brk.finish(c.horizon, &e.out)
	}
	return e.out, nil
}

// advance integrates the number of requests in the system up to t over the window.
func (e *engine) advance(t float64) {
	if e.c.bin > 0 {
		e.liveArea += float64(e.live) * (t - e.liveT)
		e.liveT = t
	}
	e.now = t
	if t > e.lastT {
		e.out.area += float64(e.live) * (t - e.lastT)
		e.lastT = t
	}
}

// handle processes one event.
func (e *engine) handle(x event) {
	switch x.kind {
	case evArrival:
		e.newRequest(-1)
		if s := e.c.script; s != nil {
			if i := int(x.idx) + 1; i < len(s) {
				e.next = e.ev.Schedule(s[i], event{evArrival, int32(i)})
			}
		} else if t := e.now + e.arrivals.Exp()/e.rate; t < e.c.horizon {
			e.next = e.ev.Schedule(t, event{evArrival, 0})
		}
	case evThink:
		e.newRequest(x.idx)
	case evRetry:
		e.sendWith(x.idx, e.retryR, false)
	case evHedge:
		e.hedgeFires(x.idx)
	case evCancel:
		e.cancelArrives(x.idx)
		e.release(x.idx)
	case evAtBalancer:
		e.dispatchAttempt(x.idx)
		e.release(x.idx) // each attempt event held a reference, dropped once it is handled
	case evAtServer:
		e.admit(x.idx)
		e.release(x.idx)
	case evComplete:
		e.complete(x.idx)
		e.release(x.idx)
	case evAnswer:
		e.answer(x.idx)
		e.release(x.idx)
	case evTimeout:
		e.timeout(x.idx)
		e.release(x.idx)
	case evAtClient:
		e.atClient(x.idx)
		e.release(x.idx)
	case evGCStart:
		s := &e.servers[x.idx]
		e.stop(int(x.idx), +1)
		e.ev.Push(e.now+s.class.gcPause, event{evGCEnd, x.idx})
		if t := e.now + s.class.gcEvery; t < e.c.horizon {
			e.ev.Push(t, event{evGCStart, x.idx})
		}
	case evGCEnd, evPauseEnd:
		e.stop(int(x.idx), -1)
	case evChange:
		e.apply(e.c.timeline[x.idx])
	case evGuard:
		e.guards[x.idx>>guardShift].fire(e, x.idx&(1<<guardShift-1))
	}
}

// hop draws one network leg's time.
func (e *engine) hop() float64 {
	if e.c.hopLaw == HopExponential {
		return e.network.Exp() * e.c.hop
	}
	return e.c.hop
}

// schedule schedules an event about attempt a, counting the reference.
func (e *engine) schedule(t float64, k kind, a int32) sim.Handle {
	e.att[a].refs++
	return e.ev.Schedule(t, event{k, a})
}

// push is schedule with no handle.
func (e *engine) push(t float64, k kind, a int32) {
	e.att[a].refs++
	e.ev.Push(t, event{k, a})
}

// release drops one reference to attempt a, freeing it at the last.
func (e *engine) release(a int32) {
	e.att[a].refs--
	if e.att[a].refs == 0 {
		e.freeAtt = append(e.freeAtt, a)
	}
}

// newRequest starts a request (of closed-loop user u, or −1) at now: its first attempt's draws come from the service
// stream, in arrival order.
func (e *engine) newRequest(u int32) {
	r := e.freeReq
	if r >= 0 {
		e.freeReq = e.reqs[r].next
	} else {
		r = int32(len(e.reqs))
		e.reqs = append(e.reqs, request{})
	}
	measured := e.now >= e.c.warmup
	e.reqs[r] = request{arrival: e.now, user: u, measured: measured, next: -1, gen: e.reqs[r].gen, primary: -1, second: -1, where: -1}
	if e.keyR != nil {
		e.reqs[r].key = uint64(e.keyTable.draw(e.keyR)) + 1
	}
	e.live++
	if measured {
		e.out.offered++
	}
	e.cur.offered++
	if e.capacity > 0 {
		e.tokens = min(e.capacity, e.tokens+e.c.budget)
	}
	if e.hCap > 0 {
		e.hTokens = min(e.hCap, e.hTokens+e.c.hedgeBudget)
	}
	e.sendWith(r, e.service, false)
}

// sendWith sends request r's next attempt from the client (a hedge copy of its current one when hedge), its work and
// error drawn from rnd, and starts its hedge delay when hedging.
func (e *engine) sendWith(r int32, rnd *sim.Rand, hedge bool) {
	x := 1.0
	switch e.c.service {
	case Exponential:
		x = rnd.Exp()
	case Lognormal:
		x = math.Exp(e.c.sigma*rnd.Norm() + e.c.shift)
	}
	u := rnd.Float64()
	var a int32
	if n := len(e.freeAtt); n > 0 {
		a = e.freeAtt[n-1]
		e.freeAtt = e.freeAtt[:n-1]
	} else {
		a = int32(len(e.att))
		e.att = append(e.att, attempt{})
	}
	rq := &e.reqs[r]
	e.att[a] = attempt{req: r, gen: rq.gen, measured: rq.measured, num: rq.attempts, key: rq.key, x: x, u: u, deadline: math.Inf(1),
		server: -1, sent: e.now, hedge: hedge}
	rq.attempts++
	rq.out++
	if rq.measured {
		e.out.attempts++
		switch {
		case hedge:
			e.out.hedges++
		case rq.attempts > 1:
			e.out.retries++
		default:
			e.out.firsts++
		}
	}
	e.cur.attempts++
	switch {
	case hedge:
		e.cur.hedges++
		rq.second = a
	default:
		if rq.attempts > 1 {
			e.cur.retries++
		}
		rq.primary, rq.second, rq.where, rq.sent = a, -1, -1, e.now
		if e.hedger != nil && e.hedger.delay < math.Inf(1) {
			rq.hedgeTimer = e.ev.Schedule(e.now+e.hedger.delay, event{evHedge, r})
		}
	}
	e.push(e.now+e.hop(), evAtBalancer, a)
}

// hedgeFires: request r's current attempt has no answer after the hedge delay: the client sends one copy, if the
// hedge budget has a token.
func (e *engine) hedgeFires(r int32) {
	if e.hCap > 0 {
		if e.hTokens < 1 {
			if e.reqs[r].measured {
				e.out.hedgeDenied++
			}
			return
		}
		e.hTokens--
	}
	e.sendWith(r, e.hedgeR, true)
}

// dispatchAttempt: the balancer picks a server for attempt a, starts its timeout and sends it on.
func (e *engine) dispatchAttempt(a int32) {
	at := &e.att[a]
	rq := &e.reqs[at.req]
	if at.cancel > 0 {
		return // a hedge's loser whose cancel overtook it (exponential hops)
	}
	at.dispatched = e.now
	if e.eligible != nil && e.nEligible == 0 {
		// Every server is barred (open breakers, ejections, all out of the fleet): the balancer answers 503 at once.
		at.server, at.outcome = -1, policy.Rejected
		e.countOutcome(at)
		e.push(e.now+e.hop(), evAtClient, a)
		return
	}
	req := policy.Request{Key: at.key, Client: max(rq.user, 0), Attempt: at.num, Now: e.now}
	var k int
	if j := rq.where; at.hedge && at.gen == rq.gen && j >= 0 && e.eligible[j] && e.nEligible > 1 {
		e.eligible[j] = false // a hedge goes to another server than its attempt's
		k = e.pol.Pick(e.view, req, e.dispatch)
		e.eligible[j] = true
	} else {
		k = e.pol.Pick(e.view, req, e.dispatch)
	}
	if !at.hedge && at.gen == rq.gen {
		rq.where = int32(k)
	}
	at.server = int32(k)
	if e.keyBefore != nil && at.num == 0 {
		e.keySent(at.key, k)
	}
	e.lv.Up(k, e.now)
	if rq.measured {
		e.out.sent[k]++
	}
	if e.binSent != nil {
		e.binSent[k]++
	}
	for _, g := range e.guards {
		g.sent(e, k, a)
	}
	if !math.IsInf(e.c.timeout, 1) {
		at.deadline = e.now + e.c.timeout
		at.timer = e.schedule(at.deadline, evTimeout, a)
	}
	e.push(e.now+e.hop(), evAtServer, a)
}

// admit: attempt a reaches its server.
func (e *engine) admit(a int32) {
	at := &e.att[a]
	if at.cancel == 2 {
		at.state = stGone // a hedge's loser, cancelled on its way
		return
	}
	s := &e.servers[at.server]
	e.touch(s, e.now)
	if !s.alive {
		at.outcome = policy.Error // connection refused
		e.push(e.now+e.hop(), evAnswer, a)
		return
	}
	if e.c.dropExpired && e.now >= at.deadline {
		if at.measured {
			e.out.dropped++
		}
		return
	}
	now := s.rate() > 0 && len(s.running) < s.workers && s.queue.len() == 0
	full := !now && e.c.queue >= 0 && s.queue.len() >= e.c.queue
	if full && (e.c.discipline == FIFO || e.c.queue == 0) || e.adm != nil && !e.adm.admit(e, int(at.server), a) {
		at.outcome = policy.Rejected // a full FIFO queue, or the admission control
		e.push(e.now+e.hop(), evAnswer, a)
		return
	}
	at.admitted = e.now
	if now {
		e.start(s, a)
		return
	}
	if full {
		old := s.queue.popFront() // LIFO: the oldest makes room
		e.att[old].outcome = policy.Rejected
		e.att[old].state = stGone
		e.push(e.now+e.hop(), evAnswer, old)
		e.leave(int(at.server), old, exitDropped)
		e.release(old) // its queue residency
	}
	at.refs++ // queue residency
	at.state = stQueued
	s.queue.pushBack(a)
	if e.now >= e.c.warmup {
		e.out.peakQueue = max(e.out.peakQueue, s.queue.len())
	}
}

// start puts attempt a into service at server s (a worker is free and s is running).
func (e *engine) start(s *srv, a int32) {
	at := &e.att[a]
	at.failing = at.u < s.errorRate
	work := at.x * e.c.mean
	if at.failing {
		work = at.x * e.c.errorLatency
	} else if e.caches != nil && e.lookup(int(at.server), at) {
		work *= e.c.hitCost
	}
	if at.measured {
		e.out.served[at.server]++
	}
	at.rem, at.since, at.busy = work, e.now, 0
	at.slot = int32(len(s.running))
	at.state = stRunning
	s.running = append(s.running, a)
	at.refs++ // residency in the running list, released by unrun
	at.done = e.schedule(e.now+work/s.speed, evComplete, a)
}

// startNext fills server k's free workers from its queue (FIFO: oldest first; LIFO: newest first), skipping expired
// attempts when drop_expired.
func (e *engine) startNext(k int) {
	s := &e.servers[k]
	e.touch(s, e.now)
	for s.alive && s.rate() > 0 && len(s.running) < s.workers && s.queue.len() > 0 {
		var a int32
		if e.c.discipline == LIFO {
			a = s.queue.popBack()
		} else {
			a = s.queue.popFront()
		}
		if e.att[a].cancel == 2 { // a hedge's loser: skipped
			if e.att[a].measured {
				e.out.hedgeSkipped++
			}
			e.att[a].state = stGone
			e.leave(k, a, exitCancelled)
			e.release(a)
			continue
		}
		if e.c.dropExpired && e.now >= e.att[a].deadline {
			if e.att[a].measured {
				e.out.dropped++
			}
			e.att[a].state = stGone
			e.leave(k, a, exitDropped)
			e.release(a)
			continue
		}
		e.start(s, a)
		e.release(a) // queue residency; the completion event holds it now
	}
}

// unrun takes attempt a out of server s's running list, accounting its worker time up to now, and drops the list's
// reference (the caller must hold another while it still uses a).
func (e *engine) unrun(s *srv, a int32) {
	at := &e.att[a]
	if r := s.rate(); r > 0 {
		at.busy += e.now - at.since
	}
	last := s.running[len(s.running)-1]
	s.running[at.slot] = last
	e.att[last].slot = at.slot
	s.running = s.running[:len(s.running)-1]
	at.state = stGone
	if at.measured {
		e.out.busy += at.busy
		if at.timedOut || at.cancel > 0 {
			e.out.wasted += at.busy
		}
	}
	e.release(a)
}

// complete: server k finishes attempt a's work and answers.
func (e *engine) complete(a int32) {
	at := &e.att[a]
	k := int(at.server)
	if !at.timedOut { // a timed-out attempt's answer would be discarded at the balancer
		at.outcome = policy.OK
		if at.failing {
			at.outcome = policy.Error
		}
		e.push(e.now+e.hop(), evAnswer, a)
	}
	s := &e.servers[k]
	e.touch(s, e.now)
	e.unrun(s, a)
	s.counts.served++
	s.counts.work += at.busy
	if at.failing {
		s.counts.failed++
	}
	e.leave(k, a, exitServed)
	e.startNext(k)
}

// leave tells the admission control, if any, that attempt a left server k as how says.
func (e *engine) leave(k int, a int32, how exit) {
	if e.adm != nil {
		e.adm.left(e, k, a, how)
	}
}

// results tells the guards attempt a's result from server k.
func (e *engine) results(k int, a int32, o policy.Outcome) {
	for _, g := range e.guards {
		g.result(e, k, a, o, e.now-e.att[a].dispatched)
	}
}

// answer: a server's answer to attempt a reaches the balancer.
func (e *engine) answer(a int32) {
	at := &e.att[a]
	if at.timedOut || at.cancel > 0 {
		return // the balancer answered 504 already, or the client withdrew it
	}
	at.replied = true
	e.settle(a, at.outcome)
	e.countOutcome(at)
	e.push(e.now+e.hop(), evAtClient, a)
}

// settle: the balancer stops waiting for attempt a at now with outcome o (its answer, or a client's cancel): the
// timeout is cancelled, the outstanding count drops, and the policy and the guards are told.
func (e *engine) settle(a int32, o policy.Outcome) {
	at := &e.att[a]
	if e.ev.Pending(at.timer) {
		e.ev.Remove(at.timer)
		e.release(a) // never the last: the caller's event holds one
	}
	k := int(at.server)
	e.lv.Down(k, e.now)
	if e.obs != nil {
		e.obs.Observe(k, e.now-at.dispatched, e.now, o)
	}
	e.results(k, a, o)
}

// timeout: the balancer stops waiting for attempt a and answers 504.
func (e *engine) timeout(a int32) {
	at := &e.att[a]
	at.timedOut = true
	at.outcome = policy.Timeout
	k := int(at.server)
	e.lv.Down(k, e.now)
	if e.obs != nil {
		e.obs.Observe(k, e.c.timeout, e.now, policy.Timeout)
	}
	e.results(k, a, policy.Timeout)
	e.countOutcome(at)
	e.push(e.now+e.hop(), evAtClient, a)
}

// countOutcome counts attempt a's outcome at the balancer.
func (e *engine) countOutcome(at *attempt) {
	measured := at.measured
	var c, b *int64
	switch at.outcome {
	case policy.Timeout:
		c, b = &e.out.timeouts, &e.cur.timeouts
	case policy.Error:
		c, b = &e.out.errors, &e.cur.errors
	case policy.Rejected:
		c, b = &e.out.rejections, &e.cur.rejections
	default:
		return
	}
	*b++
	if measured {
		*c++
	}
}

// atClient: the balancer's answer to attempt a reaches the client, which finishes the request, waits for the other
// copy of a hedged attempt, or retries.
func (e *engine) atClient(a int32) {
	at := &e.att[a]
	r := at.req
	rq := &e.reqs[r]
	if at.gen != rq.gen {
		return // a hedge's loser, answered after its request ended
	}
	rq.out--
	if a == rq.primary && e.ev.Pending(rq.hedgeTimer) {
		e.ev.Remove(rq.hedgeTimer) // answered before its hedge delay
	}
	if at.outcome == policy.OK {
		if e.hedger != nil {
			e.hedger.add(e.now, e.now-rq.sent)
		}
		if rq.out > 0 { // the other copy lost: withdraw it
			other := rq.primary
			if a == rq.primary {
				other = rq.second
			}
			e.push(e.now+e.hop(), evCancel, other)
		}
		if at.hedge && rq.measured {
			e.out.hedgeWins++
		}
		e.finish(r, true)
		return
	}
	if rq.out > 0 {
		return // the other copy may yet succeed
	}
	if int(rq.tries) >= e.c.retries {
		e.finish(r, false)
		return
	}
	if e.capacity > 0 {
		if e.tokens < 1 {
			if e.reqs[r].measured {
				e.out.budgetDenied++
			}
			e.finish(r, false)
			return
		}
		e.tokens--
	}
	wait := math.Min(BackoffCap, e.c.backoff*math.Exp2(float64(rq.tries)))
	rq.tries++
	if e.c.jitter == JitterFull {
		wait *= e.retryR.Float64()
	}
	e.ev.Push(e.now+wait, event{evRetry, r})
}

// finish ends request r at now: a success or a failure.
func (e *engine) finish(r int32, ok bool) {
	rq := &e.reqs[r]
	latency := e.now - rq.arrival
	if rq.measured {
		e.out.clipped += latency
		e.out.all.Add(latency)
		if ok {
			e.out.succeeded++
			e.out.ok.Add(latency)
		} else {
			e.out.failed++
		}
	} else if e.now > e.c.warmup {
		e.out.carry += e.now - e.c.warmup
	}
	if ok {
		e.cur.successes++
		e.cur.latencies = append(e.cur.latencies, latency)
	} else {
		e.cur.failures++
	}
	e.live--
	rq.gen++ // its attempts still out are a finished request's from now on
	if u := rq.user; u >= 0 {
		e.ev.Push(e.now+e.arrivals.Exp()*e.c.think, event{evThink, u})
	}
	rq.next = e.freeReq
	rq.user = -2 // free
	e.freeReq = r
}

// cancelArrives: the client's cancel of a hedge's loser a reaches the balancer (which stops waiting for it and sends
// the cancel on) or, a hop later, its server (which skips it if still queued, and with hedge_cancel stops it in
// service).
func (e *engine) cancelArrives(a int32) {
	at := &e.att[a]
	if at.cancel == 0 {
		at.cancel = 1
		if at.server < 0 {
			return // not dispatched yet: the balancer drops it on arrival
		}
		if !at.timedOut && !at.replied {
			e.settle(a, policy.Cancelled)
		}
		if at.state != stGone {
			e.push(e.now+e.hop(), evCancel, a)
		}
		return
	}
	at.cancel = 2
	if at.state != stRunning || !e.c.hedgeCancel {
		return // on its way (admit drops it), queued (startNext skips it), or served to the end
	}
	k := int(at.server)
	s := &e.servers[k]
	if e.ev.Pending(at.done) { // not while paused
		e.ev.Remove(at.done)
		e.release(a)
	}
	if at.measured {
		e.out.hedgeCut++
	}
	e.touch(s, e.now)
	e.leave(k, a, exitCancelled)
	e.unrun(s, a)
	e.startNext(k)
}

// stop changes server k's pause count by d (+1: a pause begins; −1: one ends), moving or removing its running
// attempts' completions: work stops while paused.
func (e *engine) stop(k, d int) {
	s := &e.servers[k]
	before := s.rate()
	s.stops += d
	e.rescale(k, before)
}

// rescale reschedules server k's running attempts after its work rate changed from before to s.rate().
func (e *engine) rescale(k int, before float64) {
	s := &e.servers[k]
	after := s.rate()
	if after == before {
		return
	}
	for _, a := range s.running {
		at := &e.att[a]
		if before > 0 {
			at.rem = max(0, at.rem-(e.now-at.since)*before)
			at.busy += e.now - at.since
		}
		at.since = e.now
		switch {
		case after == 0:
			if e.ev.Pending(at.done) {
				e.ev.Remove(at.done)
				e.release(a) // never the last: the running list holds one
			}
		case before == 0:
			at.done = e.schedule(e.now+at.rem/after, evComplete, a)
		default:
			e.ev.Move(at.done, e.now+at.rem/after)
		}
	}
	if before == 0 {
		e.startNext(k)
	}
}

// apply applies one timeline change.
func (e *engine) apply(ch change) {
	if ch.action == Rate {
		if t, ok := e.ev.When(e.next); ok {
			// The pending arrival's residual time, rescaled: the same random number, the new rate.
			e.ev.Move(e.next, e.now+(t-e.now)*e.rate/ch.rate)
		} else if t := e.now + e.arrivals.Exp()/ch.rate; t < e.c.horizon {
			// None pending: the next one at the old rate fell past the horizon.
			e.next = e.ev.Schedule(t, event{evArrival, 0})
		}
		e.rate = ch.rate
		return
	}
	if ch.action == Add {
		k := ch.server
		if k < 0 {
			k = slices.IndexFunc(e.servers, func(s srv) bool { return !s.active })
		}
		e.servers[k].active = true
		e.joined[k] = e.now
		e.added = true
		if g, ok := e.pol.(*wrr); ok {
			// A58's picker is rebuilt when its endpoints change (a new subchannel list), not only at the weight
			// update: a scheduler over the old fleet never picks the new server, and when every server it holds is
			// barred, or a hedge leaves only the new one eligible, it would loop forever.
			g.rebuild(e)
		}
		e.recheck(k)
		return
	}
	for k := range e.servers {
		if ch.server >= 0 && k != ch.server || ch.server < 0 && !e.servers[k].active {
			continue // an entry naming no server applies to the servers in the fleet at the time
		}
		s := &e.servers[k]
		switch ch.action {
		case Kill:
			if s.alive {
				e.kill(k)
			}
		case Restart:
			s.alive = true
		case Slow, Restore:
			before := s.rate()
			s.speed = s.class.speed
			if ch.action == Slow {
				s.speed *= ch.factor
			}
			e.rescale(k, before)
		case Pause:
			e.stop(k, +1)
			e.ev.Push(e.now+ch.duration, event{evPauseEnd, int32(k)})
		case Fail:
			s.errorRate = ch.factor
		case Recover:
			s.errorRate = s.class.errorRate
		}
	}
}

// kill stops server k: the attempts in service and queued are answered 500 at once (the connection is reset).
func (e *engine) kill(k int) {
	s := &e.servers[k]
	e.touch(s, e.now)
	s.alive = false
	if e.caches != nil {
		e.caches[k].clear()
	}
	for len(s.running) > 0 {
		a := s.running[len(s.running)-1]
		at := &e.att[a]
		held := e.ev.Pending(at.done) // not while paused
		if held {
			e.ev.Remove(at.done)
		}
		if !at.timedOut {
			at.outcome = policy.Error
			e.push(e.now+e.hop(), evAnswer, a)
		}
		e.leave(k, a, exitDropped)
		e.unrun(s, a)
		if held {
			e.release(a)
		}
	}
	for s.queue.len() > 0 {
		a := s.queue.popFront()
		e.att[a].state = stGone
		if !e.att[a].timedOut {
			e.att[a].outcome = policy.Error
			e.push(e.now+e.hop(), evAnswer, a)
		}
		e.leave(k, a, exitDropped)
		e.release(a)
	}
}

// touch integrates server s's attempts held and queued up to t ≥ its last touch, for the series' time averages; it
// is called before either count changes (admit, startNext, complete, kill) and when a bin closes. Nothing with no
// series.
func (e *engine) touch(s *srv, t float64) {
	if e.c.bin == 0 {
		return
	}
	dt := t - s.areaT
	s.heldArea += float64(len(s.running)+s.queue.len()) * dt
	s.queuedArea += float64(s.queue.len()) * dt
	s.areaT = t
}

// closeBin closes the current time-series bin at binEnd: its counts, its successes' percentiles, and the time averages
// of the requests in the system and of each server's attempts over the bin.
func (e *engine) closeBin() {
	e.liveArea += float64(e.live) * (e.binEnd - e.liveT)
	e.liveT = e.binEnd
	n := len(e.servers)
	per := 3 // per-server columns: in_flight, queued, sent (and the breakers' open and half-open, the limits)
	if e.brk != nil {
		per += 2
	}
	if e.adm != nil {
		per++
	}
	buf := make([]float64, per*n) // one allocation per bin
	smp := sample{t: float64(e.bins) * e.c.bin, counts: e.cur, inSystem: e.liveArea / e.c.bin,
		inFlight: buf[:n:n], queue: buf[n : 2*n : 2*n], sent: buf[2*n : 3*n : 3*n]}
	for k, c := range e.binSent {
		smp.sent[k] = float64(c)
		e.binSent[k] = 0
	}
	if e.brk != nil {
		smp.cbOpen, smp.cbHalf = buf[3*n:4*n:4*n], buf[4*n:5*n:5*n]
		e.brk.closeBin(e.binEnd, e.c.bin, smp.cbOpen, smp.cbHalf)
	}
	e.liveArea = 0
	smp.counts.latencies = nil
	lat := e.cur.latencies
	slices.Sort(lat)
	for i, q := range [3]float64{0.5, 0.95, 0.99} {
		smp.p[i] = math.NaN()
		if n := len(lat); n > 0 {
			smp.p[i] = lat[max(0, int(math.Ceil(q*float64(n)))-1)]
		}
	}
	for k := range e.servers {
		s := &e.servers[k]
		e.touch(s, e.binEnd)
		smp.inFlight[k], smp.queue[k] = s.heldArea/e.c.bin, s.queuedArea/e.c.bin
		s.heldArea, s.queuedArea = 0, 0
	}
	smp.counts.hedgeDelay = math.NaN()
	if e.hedger != nil {
		smp.counts.hedgeDelay = e.hedger.delay
	}
	if e.adm != nil {
		smp.limit = buf[(per-1)*n:]
		for k := range smp.limit {
			smp.limit[k] = e.adm.binLimit(k, e.binEnd)
		}
	}
	e.out.series = append(e.out.series, smp)
	e.cur = bin{latencies: lat[:0]}
	e.bins++
	e.binEnd = float64(e.bins+1) * e.c.bin
}

// finishBooks counts the pending requests and checks the run's books.
func (e *engine) finishBooks() {
	live := 0
	for r := range e.reqs {
		rq := &e.reqs[r]
		if rq.user == -2 {
			continue
		}
		live++
		if rq.measured {
			e.out.pending++
			e.out.clipped += e.c.horizon - rq.arrival
		} else {
			e.out.carry += e.c.horizon - e.c.warmup
		}
	}
	e.out.liveReqs = live
	e.out.freeAttempts = len(e.freeAtt)
	e.out.liveAttempts = len(e.att) - len(e.freeAtt)
	var bad []string
	if live != e.live {
		bad = append(bad, fmt.Sprintf("%d requests live in the pool but %d counted in the system", live, e.live))
	}
	if got := e.out.clipped + e.out.carry; math.Abs(e.out.area-got) > 1e-9*max(1, e.out.area) {
		bad = append(bad, fmt.Sprintf("Little's law: ∫N dt = %.9g over the window but the requests' times in it sum to %.9g", e.out.area, got))
	}
	if o := &e.out; o.offered != o.succeeded+o.failed+o.pending {
		bad = append(bad, fmt.Sprintf("offered %d ≠ succeeded %d + failed %d + pending %d", o.offered, o.succeeded, o.failed, o.pending))
	}
	if o := &e.out; o.attempts != o.firsts+o.retries+o.hedges || o.firsts != o.offered {
		bad = append(bad, fmt.Sprintf("attempts %d ≠ requests %d + retries %d + hedges %d (first attempts %d)", o.attempts, o.offered, o.retries, o.hedges, o.firsts))
	}
	e.out.warning = strings.Join(bad, "; ")
}
