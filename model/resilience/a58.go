package resilience

import (
	"math"

	"lbsweep/model"
	"lbsweep/model/policy"
	"lbsweep/model/sim"
)

// wrrConfig is the resolved gRPC A58 weighted round robin (WeightedRoundRobinLbConfig, per-call load reports), times
// in ms; update = 0 is off.
type wrrConfig struct {
	update     float64 // weight_update_period
	blackout   float64 // blackout_period
	expiration float64 // weight_expiration_period
	penalty    float64 // error_utilization_penalty
	report     float64 // the servers' report window (this model's; A58 leaves it to the server)
}

// wrrOf resolves point p's A58 parameters, with A58's defaults for those left null (blackout 10 s, expiration
// 3 min, penalty 1) and a 1 s report window.
func wrrOf(p model.Point) wrrConfig {
	if !p[pWRRUpdate].Valid {
		return wrrConfig{}
	}
	c := wrrConfig{update: p[pWRRUpdate].F, blackout: 10_000, expiration: 180_000, penalty: 1, report: 1000}
	if v := p[pWRRBlackout]; v.Valid {
		c.blackout = v.F
	}
	if v := p[pWRRExpiration]; v.Valid {
		c.expiration = v.F
	}
	if v := p[pWRRPenalty]; v.Valid {
		c.penalty = v.F
	}
	if v := p[pWRRReport]; v.Valid {
		c.report = v.F
	}
	return c
}

// wrrWeights is the balancer's side of gRPC A58 (grpc/proposal A58-client-side-weighted-round-robin-lb-policy.md,
// with the error_utilization_penalty update, grpc/proposal#351, and application utilization, #373), following
// grpc-go balancer/weightedroundrobin (balancer.go at f227ba9, scheduler.go at 3eb0145): one weight per server from
// its load reports, A58's rules quoted beside each step:
//
//   - a report (qps, eps, utilization) with qps = 0 or utilization = 0 is ignored ("Ignoring empty load report");
//     otherwise weight = qps/(utilization + eps/qps·error_utilization_penalty), last_updated = now, and
//     non_empty_since = now if unset;
//   - the weight in use at time now is 0 (unknown) if the server never reported, or if now − last_updated ≥
//     weight_expiration_period (which also unsets non_empty_since), or if now − non_empty_since <
//     blackout_period (blackout_period > 0);
//   - every weight_update_period the scheduler is rebuilt: with fewer than two non-zero weights it is round robin
//     ("all subchannels will get the same weight and the policy will behave the same as round_robin"); otherwise a
//     server with weight 0 takes the mean of the non-zero weights ("still picked but with the average weight"), the
//     weights are scaled so the largest is 65535 and rounded, and picks follow grpc-go's static stride scheduler
//     (below), from a random start (grpc-go's rand.Uint32()), here drawn from the dispatch stream.
//
// The static stride scheduler (grpc-go's edfScheduler, the C++ StaticStrideScheduler): a counter seq, server i =
// seq mod n in generation g = seq div n is accepted when (w_i·g + 32767·i) mod 65535 ≥ 65535 − w_i, so over
// 65535 generations server i is accepted w_i times: shares ∝ the scaled weights (a test checks it). Deviations:
// grpc-go's scheduler holds only READY subchannels and is rebuilt when one leaves; here it holds the servers in the
// fleet and skips the ineligible (an ejected outlier) at pick time, and a killed server stays in it (its refused
// connections carry no report, so its weight expires), with no reset of its weight when it restarts (grpc-go's
// OnSubchannelBecomesReady); a scaled weight is floored at 1 (the C++
// kMinRatio floor, max(1, …), in part: grpc-go would leave a 0 that is never picked); no kMaxRatio cap (grpc-go has
// none). Reports come with every answer from a live server (per-call ORCA, enable_oob_load_report = false, A58's
// default), each the server's report as of its last closed window (see wrr).
type wrrWeights struct {
	c             wrrConfig
	weight        []float64
	nonEmptySince []float64 // NaN: unset
	lastUpdated   []float64 // NaN: never
}

func newWRRWeights(c wrrConfig, n int) *wrrWeights {
	w := &wrrWeights{c: c, weight: make([]float64, n), nonEmptySince: make([]float64, n), lastUpdated: make([]float64, n)}
	for k := range n {
		w.nonEmptySince[k], w.lastUpdated[k] = math.NaN(), math.NaN()
	}
	return w
}

// report takes server k's load report at now: qps and eps per second, utilization a fraction of its workers' time.
func (w *wrrWeights) report(k int, qps, eps, util, now float64) {
	if qps == 0 || util == 0 {
		return // "Ignoring empty load report"
	}
	w.weight[k] = qps / (util + eps/qps*w.c.penalty)
	w.lastUpdated[k] = now
	if math.IsNaN(w.nonEmptySince[k]) {
		w.nonEmptySince[k] = now
	}
}

// get returns server k's weight in use at now (0: unknown), as grpc-go's endpointWeight.weight.
func (w *wrrWeights) get(k int, now float64) float64 {
	if math.IsNaN(w.lastUpdated[k]) {
		return 0
	}
	if now-w.lastUpdated[k] >= w.c.expiration {
		w.nonEmptySince[k] = math.NaN()
		return 0
	}
	if w.c.blackout > 0 && (math.IsNaN(w.nonEmptySince[k]) || now-w.nonEmptySince[k] < w.c.blackout) {
		return 0
	}
	return w.weight[k]
}

// strideMax is the static stride scheduler's largest scaled weight (grpc-go maxWeight = math.MaxUint16).
const strideMax = 65535

// strideScheduler is grpc-go's static stride scheduler over servers order[0..m), or round robin when rr.
type strideScheduler struct {
	order  []int    // the servers scheduled, in list order
	scaled []uint64 // their scaled weights, 1..65535
	rr     bool
	seq    uint32
}

// build rebuilds the scheduler over the servers order with weights ws (0: unknown), starting at seq.
func (s *strideScheduler) build(order []int, ws []float64, seq uint32) {
	s.order, s.seq = order, seq
	s.scaled = s.scaled[:0]
	n := len(order)
	sum, hi, zero := 0.0, 0.0, 0
	for _, w := range ws {
		if w == 0 {
			zero++
		}
		sum += w
		hi = max(hi, w)
	}
	s.rr = n <= 1 || zero >= n-1
	if s.rr {
		return
	}
	mean := sum / float64(n-zero)
	f := strideMax / hi
	equal := true
	for _, w := range ws {
		if w == 0 {
			w = mean
		}
		v := uint64(max(1, math.Round(f*w)))
		s.scaled = append(s.scaled, v)
		equal = equal && v == s.scaled[0]
	}
	s.rr = equal
}

// next returns the next scheduled server that is eligible (eligible nil: every server); at least one of order must
// be.
func (s *strideScheduler) next(eligible []bool) int {
	n := uint64(len(s.order))
	for {
		seq := uint64(s.seq)
		s.seq++
		i := seq % n
		if !s.rr {
			w := s.scaled[i]
			if (w*(seq/n)+i*32767)%strideMax < strideMax-w {
				continue
			}
		}
		if k := s.order[i]; eligible == nil || eligible[k] {
			return k
		}
	}
}

// wrr is gRPC A58 at the balancer (wrrWeights, strideScheduler) and the servers' side of its reports: each server
// counts the attempts it finished: each server counts the attempts it finished (served), the 500s among
// them and their worker time, and every `report` ms (windows aligned at multiples of report, from 0) closes its
// window into the report it sends with each answer until the next close: qps = finished/window, eps = 500s/window
// (per second), utilization = worker time of the finished attempts/(window·workers). An attempt's whole worker time
// counts in the window it finishes in (so a utilization may exceed 1 by up to one service time per worker).
// (A58 leaves how a server computes its report to the server.)
type wrr struct {
	w           *wrrWeights
	s           strideScheduler
	idx         int // its position in engine.guards
	mark        []srvCounts
	qps, eps, u []float64 // the reports, as of the last window close
	order       []int     // scratch for a rebuild: the servers in the fleet
	wbuf        []float64 // and their weights
}

// srvCounts are a server's cumulative report counters.
type srvCounts struct {
	served, failed int64
	work           float64
}

func newWRR(e *engine, idx int) *wrr {
	n := e.c.n
	g := &wrr{w: newWRRWeights(e.c.wrr, n), idx: idx, mark: make([]srvCounts, n), qps: make([]float64, n),
		eps: make([]float64, n), u: make([]float64, n)}
	g.rebuild(e)
	e.guardAt(e.c.wrr.report, idx, wrrReport)
	e.guardAt(e.c.wrr.update, idx, wrrUpdate)
	return g
}

// The wrr guard's timer payloads.
const (
	wrrReport int32 = iota // the servers close their report windows
	wrrUpdate              // the balancer rebuilds its scheduler
)

func (g *wrr) bars(k int) bool                { return false }
func (g *wrr) sent(e *engine, k int, a int32) {}

// result: an answer from a live server carries its report (a timeout carries none).
func (g *wrr) result(e *engine, k int, a int32, o policy.Outcome, latency float64) {
	if o == policy.Timeout || !e.servers[k].alive {
		return
	}
	g.w.report(k, g.qps[k], g.eps[k], g.u[k], e.now)
}

func (g *wrr) fire(e *engine, p int32) {
	c := e.c.wrr
	switch p {
	case wrrReport:
		for k := range e.servers {
			s := &e.servers[k]
			m := &g.mark[k]
			g.qps[k] = float64(s.counts.served-m.served) * 1000 / c.report
			g.eps[k] = float64(s.counts.failed-m.failed) * 1000 / c.report
			g.u[k] = (s.counts.work - m.work) / (c.report * float64(s.workers))
			*m = s.counts
		}
		if t := e.now + c.report; t < e.c.horizon {
			e.guardAt(t, g.idx, wrrReport)
		}
	case wrrUpdate:
		g.rebuild(e)
		if t := e.now + c.update; t < e.c.horizon {
			e.guardAt(t, g.idx, wrrUpdate)
		}
	}
}

// rebuild rebuilds the scheduler over the servers in the fleet from their weights at now.
func (g *wrr) rebuild(e *engine) {
	g.order, g.wbuf = g.order[:0], g.wbuf[:0]
	for k := range e.servers {
		if e.servers[k].active {
			g.order = append(g.order, k)
			g.wbuf = append(g.wbuf, g.w.get(k, e.now))
		}
	}
	g.s.build(g.order, g.wbuf, uint32(e.dispatch.Uint64()))
}

// Pick implements policy.Policy: the balancer's pick under A58 (it replaces the configured round robin).
func (g *wrr) Pick(v policy.View, req policy.Request, r *sim.Rand) int {
	return g.s.next(v.Eligible)
}
