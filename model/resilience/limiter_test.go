package resilience

import (
	"context"
	"math"
	"strings"
	"testing"

	"lbsweep/model"
)

// AIMDLimit._update at commit 784c960d (the rules quoted beside each case), and seed 004's once-per-round option.
func TestAIMDRules(t *testing.T) {
	base := limiterConfig{algo: LimiterAIMD, min: 2, max: 30, backoff: 0.9, timeout: 100}
	round := base
	round.round = true
	never := math.Inf(-1)
	for _, c := range []struct {
		rule     string
		cfg      limiterConfig
		est      float64
		rtt      float64
		inflight int
		drop     bool
		admitted float64 // the attempt's admission; the sample comes at now = 1000
		last     float64 // the last backoff
		want     float64
	}{
		{"else if (inflight * 2 >= currentLimit) currentLimit + 1", base, 10, 50, 5, false, 900, never, 11},
		{"inflight * 2 >= currentLimit: the limit fully in use", base, 10, 50, 10, false, 900, never, 11},
		{"otherwise unchanged (app-limited: under half in use)", base, 10, 50, 4, false, 900, never, 10},
		{"if (didDrop || rtt > timeout) (int)(currentLimit * backoffRatio)", base, 10, 50, 10, true, 900, never, 9},
		{"rtt > timeout counts as a drop, even answered", base, 25, 100.5, 25, false, 900, never, 22},
		{"rtt = timeout is not slow (strictly greater)", base, 10, 100, 10, false, 900, never, 11},
		{"the (int) cast truncates: 15·0.9 = 13.5 → 13", base, 15, 200, 15, false, 900, never, 13},
		{"backoff wins over in use", base, 20, 200, 20, false, 900, never, 18},
		{"Math.min(maxLimit, ...): clamped at the max", base, 30, 50, 30, false, 900, never, 30},
		{"Math.max(minLimit, ...): clamped at the min", base, 2, 200, 2, false, 900, never, 2},
		{"backoff of a small limit floors at the min: (int)(2·0.9) = 1 → 2", base, 3, 200, 3, false, 900, never, 2},
		{"backoffRatio 0.5", limiterConfig{algo: LimiterAIMD, min: 1, max: 30, backoff: 0.5, timeout: 100}, 9, 0, 1, true, 900, never, 4},
		{"seed 004: at most once per round: admitted before the last backoff, nothing", round, 10, 200, 10, false, 900, 950, 10},
		{"seed 004: a drop in a round already backed off, nothing", round, 10, 50, 10, true, 900, 950, 10},
		{"seed 004: admitted after the last backoff: a new round backs off", round, 10, 200, 10, false, 960, 950, 9},
		{"seed 004: the round rule leaves increases alone", round, 10, 50, 10, false, 900, 950, 11},
	} {
		s := limState{est: c.est, lastBackoff: c.last}
		c.cfg.aimd(&s, c.rtt, c.inflight, c.drop, c.admitted, 1000)
		if s.est != c.want {
			t.Errorf("%s: limit %v → %v, want %v", c.rule, c.est, s.est, c.want)
		}
	}
}

// Gradient2Limit._update at commit f2528def and ExpAvgMeasurement at 11c70606 (the rules quoted beside each case),
// and seed 004's unqueued baseline.
func TestGradient2Rules(t *testing.T) {
	cfg := limiterConfig{algo: LimiterGradient2, min: 1, max: 100, tolerance: 1.5, smoothing: 0.2, window: 600, queue: 4}
	unq := cfg
	unq.baseline = BaselineUnqueued
	f := 2.0 / 601 // ExpAvgMeasurement.factor(600)
	warm := limState{est: 20, long: 20, sum: 200, n: 10}
	for _, c := range []struct {
		rule     string
		cfg      limiterConfig
		s        limState
		rtt      float64
		inflight int
		unqueued bool
		est      float64 // the limit after
		long     float64 // longRtt after
	}{
		{"warm-up: the first samples' arithmetic mean (count < warmupWindow: value = sum / count)", cfg,
			limState{est: 20, long: 20, sum: 60, n: 3}, 40, 20, false, 20*0.8 + (20*(1.5*25/40)+4)*0.2, 25},
		{"value = value·(1 − f) + sample·f, f = 2/(window + 1), after 10 samples", cfg, warm, 25, 20, false,
			20*0.8 + (20*1+4)*0.2, 20*(1-f) + 25*f},
		{"gradient = min(1.0, tolerance·longRtt/shortRtt): no queueing, newLimit = L + queueSize, smoothed", cfg, warm, 20, 10, false,
			20 + 0.2*4, 20},
		{"gradient = tolerance·long/short between the clamps: 1.5·20/40 = 0.75", cfg, warm, 40, 10, false,
			20*0.8 + (20*(1.5*(20*(1-f)+40*f)/40)+4)*0.2, 20*(1-f) + 40*f},
		{"gradient = max(0.5, ...): a very slow sample halves at most", cfg, warm, 1000, 10, false,
			20*0.8 + (20*0.5+4)*0.2, 20*(1-f) + 1000*f},
		{"if (inflight < estimatedLimit / 2) return: app-limited, the limit stays (longRtt still learns)", cfg, warm, 1000, 9, false,
			20, 20*(1-f) + 1000*f},
		{"longRtt / shortRtt > 2: longRtt ·= 0.95, the gradient from the value before", cfg, warm, 5, 20, false,
			20 + 0.2*4, (20*(1-f) + 5*f) * 0.95},
		{"the decay also when app-limited", cfg, warm, 5, 1, false, 20, (20*(1-f) + 5*f) * 0.95},
		{"in warm-up the decay is undone by the next add (value = sum / count)", cfg,
			limState{est: 20, long: 20 * 0.95, sum: 60, n: 3}, 20, 20, false, 20 + 0.2*4, 20},
		{"Math.min(maxLimit, newLimit)", cfg, limState{est: 99.5, long: 20, sum: 200, n: 10}, 20, 99, false, 100, 20},
		{"Math.max(minLimit, newLimit)", limiterConfig{algo: LimiterGradient2, min: 19, max: 100, tolerance: 1, smoothing: 1, window: 600, queue: 0},
			warm, 1000, 20, false, 19, 20*(1-f) + 1000*f},
		{"smoothing 1: the new estimate replaces the limit", limiterConfig{algo: LimiterGradient2, min: 1, max: 100, tolerance: 1.5, smoothing: 1, window: 600, queue: 4},
			warm, 70, 20, false, 20*0.5 + 4, 20*(1-f) + 70*f},
		{"seed 004 unqueued: a queued sample leaves the baseline alone", unq, warm, 60, 20, false,
			20*0.8 + (20*0.5+4)*0.2, 20},
		{"seed 004 unqueued: an unqueued sample feeds it", unq, warm, 25, 20, true,
			20*0.8 + (20*1+4)*0.2, 20*(1-f) + 25*f},
		{"seed 004 unqueued: no baseline yet, no change", unq, limState{est: 20}, 60, 20, false, 20, 0},
	} {
		s := c.s
		c.cfg.gradient(&s, c.rtt, c.inflight, c.unqueued)
		if math.Abs(s.est-c.est) > 1e-12*c.est || math.Abs(s.long-c.long) > 1e-12*c.long {
			t.Errorf("%s: limit %v, longRtt %v; want %v, %v", c.rule, s.est, s.long, c.est, c.long)
		}
	}
}

// The admission: admitted while fewer than ⌊limit⌋ are held (SimpleLimiter's tryAcquire), rejected exactly at it
// (counted in limited); a rejection and a cancellation teach the limit nothing, a served or dropped attempt one
// sample each (onSuccess, onDropped), with the held count at its admission as inflight (AbstractLimiter).
func TestLimiterAdmission(t *testing.T) {
	p := point(t, []model.Record{srvClass(t, 1)}, nil, "round_robin", "rate=100", "horizon=1000",
		"limiter=aimd", "limit_initial=3", "limit_min=1", "limit_max=10")
	e := &engine{c: configOf(p), att: make([]attempt, 8)}
	e.servers = []srv{{workers: 1, speed: 1, alive: true, active: true}}
	for a := range e.att {
		e.att[a].measured = true
	}
	l := newLimiter(e)
	for a := range int32(3) {
		if !l.admit(e, 0, a) {
			t.Fatalf("attempt %d rejected below the limit 3", a)
		}
		e.att[a].admitted = 0
		if got := l.acq[a].inflight; got != a+1 {
			t.Errorf("attempt %d: inflight at admission %d, want %d (itself included)", a, got, a+1)
		}
	}
	if l.admit(e, 0, 3) || e.out.limited != 1 {
		t.Fatalf("the 4th attempt at limit 3: admitted, or not counted (limited %d)", e.out.limited)
	}
	if l.limit(0) != 3 {
		t.Errorf("a rejection changed the limit: %v", l.limit(0))
	}
	e.now = 10
	l.left(e, 0, 2, exitCancelled)
	if l.limit(0) != 3 || l.st[0].held != 2 {
		t.Errorf("a cancellation: limit %v held %d, want 3 and 2 (onIgnore: no sample, the permit released)", l.limit(0), l.st[0].held)
	}
	l.left(e, 0, 1, exitServed) // rtt 10, inflight 2 of 3: 2·2 ≥ 3, +1
	if l.limit(0) != 4 {
		t.Errorf("a served attempt in use: limit %v, want 4", l.limit(0))
	}
	l.left(e, 0, 0, exitDropped) // didDrop: ⌊4·0.9⌋ = 3
	if l.limit(0) != 3 || l.st[0].held != 0 {
		t.Errorf("a dropped attempt: limit %v held %d, want 3 and 0", l.limit(0), l.st[0].held)
	}
}

// limitScenarios are runs with a limiter over an overloaded fleet (random dispatch, 4 servers of 2 workers, 20 ms,
// 500/s on 400/s of capacity), with pauses, a kill and LIFO shedding in some, so drops reach the limiter too.
func limitScenarios(t *testing.T) []scenario {
	two := []model.Record{srvClass(t, 4, "workers=2")}
	lim := []string{"rate=500", "limit_initial=10", "limit_min=1", "limit_max=50"}
	with := func(kv ...string) []string { return append(append([]string{}, lim...), kv...) }
	return []scenario{
		{"aimd", two, nil, "random", with("limiter=aimd")},
		{"aimd round", two, nil, "least_outstanding", with("limiter=aimd", "aimd_round=true", "timeout=100", "retries=1")},
		{"gradient2", two, []model.Record{entry(t, 2000, "kill", "server=1"), entry(t, 2500, "restart", "server=1")}, "random",
			with("limiter=gradient2")},
		{"gradient2 unqueued lifo", []model.Record{srvClass(t, 3, "workers=2"), srvClass(t, 1, "workers=2", "gc_every=1000", "gc_pause=200")}, nil,
			"round_robin", with("limiter=gradient2", "gradient_baseline=unqueued", "queue=6", "discipline=lifo", "drop_expired=true", "timeout=80")},
	}
}

// With a limiter on, the books still balance, limited counts only the limiter's 503s, every limit stays in
// [limit_min, limit_max], and the series' bin averages of the limit, over the bins of the window, average to
// mean_limit (both exact integrals of the same step function; warmup and horizon on bin boundaries).
func TestLimiterBooks(t *testing.T) {
	for _, s := range limitScenarios(t) {
		p := s.build(t, 6000)
		p[pWarmup] = model.FloatValue(1000)
		c := configOf(p)
		out := runSeries(t, p, 3)
		if out.warning != "" {
			t.Errorf("%s: %s", s.name, out.warning)
		}
		if out.limited == 0 {
			t.Errorf("%s: the limiter rejected nothing at 1.25 times the capacity", s.name)
		}
		if len(out.series) != 24 {
			t.Fatalf("%s: %d bins, want 24", s.name, len(out.series))
		}
		sum, bins := 0.0, 0
		for _, smp := range out.series {
			if len(smp.limit) != c.n {
				t.Fatalf("%s: bin %v: %d limits for %d servers", s.name, smp.t, len(smp.limit), c.n)
			}
			for k, v := range smp.limit {
				if !(v >= c.lim.min && v <= c.lim.max) {
					t.Errorf("%s: bin %v server %d: limit %v outside [%v, %v]", s.name, smp.t, k, v, c.lim.min, c.lim.max)
				}
				if smp.t >= c.warmup {
					sum += v
				}
			}
			if smp.t >= c.warmup {
				bins++
			}
		}
		if got := sum / float64(bins*c.n); math.Abs(got-out.meanLimit) > 1e-9*out.meanLimit {
			t.Errorf("%s: the bins average %v, mean_limit %v", s.name, got, out.meanLimit)
		}
		t.Logf("%s: limited %d of %d offered, mean limit %.3g", s.name, out.limited, out.offered, out.meanLimit)
	}
}

// runSeries runs p with a 250 ms series and seed (run, 7).
func runSeries(t *testing.T, p model.Point, run uint64) outcome {
	t.Helper()
	c := configOf(p)
	c.bin = 250
	ps := c.policyServers()
	pc := policyConfig(p)
	out, err := simulate(context.Background(), c, model.Seed{Run: run, Policy: 7}, pc.New(ps), pc.Traits(ps).Observe)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// A limit pinned at K (limit_min = limit_initial = limit_max = K) admits exactly what a FIFO queue of K − workers
// admits at a work-conserving server (one with no pauses: a free worker means an empty queue), so the runs agree
// exactly, attempt for attempt, but for the limited column: rejection exactly at the limit, and the limiter's count
// of what its server holds kept through kills, timeouts, retries and drops. No hops, so that every 503 counted at the
// server (limited) reaches the balancer (rejections) before the horizon.
func TestPinnedLimitIsBoundedQueue(t *testing.T) {
	two := []model.Record{srvClass(t, 4, "workers=2")}
	kill := []model.Record{entry(t, 2000, "kill", "server=1"), entry(t, 2500, "restart", "server=1"), entry(t, 3000, "slow", "server=2", "factor=0.5")}
	for _, lim := range []string{"aimd", "gradient2"} {
		for _, set := range [][]string{
			{"rate=500"},
			{"rate=450", "timeout=60", "retries=2", "drop_expired=true"},
			{"users=40", "think=10", "timeout=80", "retries=1"},
		} {
			tl := kill
			if set[0] == "rate=500" {
				tl = nil
			}
			q := point(t, two, tl, "least_outstanding", append([]string{"queue=3", "horizon=6000", "hop=0"}, set...)...)
			l := point(t, two, tl, "least_outstanding", append([]string{"limiter=" + lim, "limit_initial=5", "limit_min=5", "limit_max=5", "horizon=6000", "hop=0"}, set...)...)
			oq, ol := run(t, q, 5), run(t, l, 5)
			if ol.limited != ol.rejections || ol.limited == 0 || oq.limited != 0 {
				t.Errorf("%s %v: limited %d, rejections %d (bounded queue: %d)", lim, set, ol.limited, ol.rejections, oq.rejections)
			}
			if math.Abs(ol.meanLimit-5) > 1e-12 || !math.IsNaN(oq.meanLimit) { // 5 up to the integral's rounding
				t.Errorf("%s %v: mean limit %v (want 5), without a limiter %v (want NaN)", lim, set, ol.meanLimit, oq.meanLimit)
			}
			ol.limited, ol.meanLimit, oq.meanLimit = 0, 0, 0
			if !sameOutcome(oq, ol) {
				t.Errorf("%s %v: the pinned limit 5 and the queue of 3 differ: %+v vs %+v", lim, set, summary(ol), summary(oq))
			}
		}
	}
}

// sameOutcome compares two runs' counts and latency laws.
func sameOutcome(a, b outcome) bool {
	return summary(a) == summary(b) && a.ok.Mean() == b.ok.Mean() && a.ok.Quantile(0.99) == b.ok.Quantile(0.99) &&
		a.area == b.area && a.wasted == b.wasted && a.events == b.events
}

// summary is an outcome's counts.
func summary(o outcome) [12]int64 {
	return [12]int64{o.offered, o.succeeded, o.failed, o.pending, o.attempts, o.retries, o.timeouts, o.errors,
		o.rejections, o.dropped, o.budgetDenied, int64(o.peakQueue)}
}

// With a limiter, steady state still allocates nothing per request: TestNoAllocationPerRequest's argument, with one
// more growable slice (the limiter's per-attempt record) and, with a series, the bin's one buffer (its limits are a
// part of it).
func TestLimiterNoAllocationPerRequest(t *testing.T) {
	const h = 40000
	for _, s := range limitScenarios(t) {
		for _, bin := range []float64{0, 250} {
			a1, a4, o1, o4 := allocsOver(t, func(h float64) model.Point { return s.build(t, h) }, h, bin)
			n := float64(configOf(s.build(t, h)).n)
			extra := a4 - a1
			bound := 7 * (14 + 1 + 2*n)
			if bin > 0 {
				extra -= float64(len(o4.series) - len(o1.series))
				bound += 7 * 2
			}
			perRequest := extra / float64(o4.offered-o1.offered)
			t.Logf("%s, bin %v: %v allocations over %v ms, %v over %v ms: %.2g per extra request (bound %v in all)",
				s.name, bin, a1, h, a4, 4*h, perRequest, bound)
			if extra > bound || o4.offered < 3*o1.offered || math.IsNaN(perRequest) {
				t.Errorf("%s, bin %v: %v more allocations for %d more requests, bound %v", s.name, bin, extra, o4.offered-o1.offered, bound)
			}
		}
	}
}

// The limiter's parameters are range-checked with the sources' rules, each refusal naming its parameter; a limiter
// makes an overload stable (no allow_unstable needed: it bounds what a server holds).
func TestLimiterCheck(t *testing.T) {
	four := []model.Record{srvClass(t, 4)}
	pt := func(set ...string) model.Point {
		return raw(t, four, nil, "round_robin", append([]string{"rate=100", "horizon=1000", "limiter=aimd"}, set...)...)
	}
	for _, c := range []struct {
		set   []string
		param string
		text  string
	}{
		{[]string{"limit_min=0", "limit_initial=1"}, "limit_min", "≥ 1"},
		{[]string{"limit_max=10"}, "limit_max", "≥ limit_min"},
		{[]string{"limit_max=2000000"}, "limit_max", "≤ 1000000"},
		{[]string{"limit_initial=300"}, "limit_initial", "≤ limit_max"},
		{[]string{"limit_initial=10"}, "limit_initial", "limit_min (20) ≤"},
		{[]string{"aimd_backoff=1"}, "aimd_backoff", "Backoff ratio must be in the range [0.5, 1.0)"},
		{[]string{"aimd_backoff=0.4"}, "aimd_backoff", "[0.5, 1.0)"},
		{[]string{"aimd_timeout=0"}, "aimd_timeout", "Timeout must be positive"},
		{[]string{"gradient_tolerance=0.9"}, "gradient_tolerance", "Tolerance must be >= 1.0"},
		{[]string{"gradient_smoothing=0"}, "gradient_smoothing", "0 < gradient_smoothing ≤ 1"},
		{[]string{"gradient_window=0"}, "gradient_window", "1 ≤ gradient_window"},
		{[]string{"gradient_queue_size=-1"}, "gradient_queue_size", "0 ≤ gradient_queue_size"},
		// One algorithm's knob with the other algorithm: nothing would read it.
		{[]string{"gradient_window=10"}, "gradient_window", "gradient2 knob, given with limiter = \"aimd\""},
		{[]string{"gradient_baseline=unqueued"}, "gradient_baseline", "gradient2 knob"},
		{[]string{"limiter=gradient2", "aimd_round=true"}, "aimd_round", "aimd knob, given with limiter = \"gradient2\""},
		{[]string{"limiter=gradient2", "aimd_timeout=50"}, "aimd_timeout", "aimd knob"},
	} {
		is, _ := checkErr(pt(c.set...), model.CheckOptions{})
		if is == nil || is.Param != c.param || !strings.Contains(is.Message, c.text) {
			t.Errorf("%v: %v, want an issue on %s containing %q", c.set, is, c.param, c.text)
		}
	}
	if is, w := checkErr(pt("rate=1000"), model.CheckOptions{}); is != nil || len(w) != 0 {
		t.Errorf("1.25 times the capacity with a limiter: %v %v, want no error or warning", is, w)
	}
	if is, _ := checkErr(raw(t, four, nil, "round_robin", "rate=1000", "horizon=1000"), model.CheckOptions{}); is == nil || is.Param != "rate" {
		t.Errorf("1.25 times the capacity without a limiter: %v, want the rate refused", is)
	}
}
