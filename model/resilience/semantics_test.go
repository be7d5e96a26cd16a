package resilience

import (
	"math"
	"slices"
	"strconv"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"lbsweep/experiments/claims"
	"lbsweep/model"
	"lbsweep/model/policy"
)

// The semantics of each mechanism, on small deterministic scenarios (constant service, constant 5 ms hops) whose
// event times are derived by hand in the comments. Most use one closed-loop user with no think time: its first request
// leaves at 0 and each next one the moment the previous is answered, so every time is an integer number of ms and
// exact in floating point.

// ulp is the spacing of float64 values at x: the rounding unit of times near x.
func ulp(x float64) float64 { return math.Nextafter(x, math.Inf(1)) - x }

// one is a single server with one worker, one closed-loop user with no think time, constant service of mean ms,
// 5 ms hops and horizon h.
func one(t *testing.T, mean, h float64, timeline []model.Record, set ...string) model.Point {
	t.Helper()
	return point(t, []model.Record{srvClass(t, 1)}, timeline, "round_robin", append([]string{"users=1", "think=0",
		"service=constant", "mean=" + ftoa(mean), "horizon=" + ftoa(h)}, set...)...)
}

// ftoa formats x as a spec value, exactly.
func ftoa(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// wantObs checks the balancer's observations against want, exactly (integer times).
func wantObs(t *testing.T, what string, got []observation, want []observation) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("%s: the balancer saw %v, want %v", what, got, want)
	}
}

// A lone request takes four hops and its service: 4·5 + 20 = 40 ms at the client, 2·5 + 20 = 30 at the balancer.
// Requests leave at 0, 40, 80, …; over 1000 ms 24 are answered and the 25th (answered at 1000, the horizon) pending.
func TestLoneRequestLatency(t *testing.T) {
	out, f := record(t, one(t, 20, 1000, nil), 1)
	if out.ok.Count() != 24 || out.ok.Mean() != 40 || out.offered != 25 || out.pending != 1 || out.failed != 0 {
		t.Errorf("%d successes of mean %v, offered %d, pending %d, failed %d; want 24 of 40, 25, 1, 0", out.ok.Count(),
			out.ok.Mean(), out.offered, out.pending, out.failed)
	}
	var want []observation
	for k := range 25 { // the 25th answered at the balancer at 995
		want = append(want, observation{0, 30, float64(35 + 40*k), policy.OK})
	}
	wantObs(t, "lone requests", f.seen, want)

	// Open loop, many workers: no request waits, so each takes 40 ms up to the rounding of its event times (six
	// additions to the arrival time, each within half an ulp at the horizon, and the subtraction of the arrival) and
	// the summation of the mean (n values of 40, relative error ≤ n·ε).
	p := point(t, []model.Record{srvClass(t, 2, "workers=1000")}, nil, "random", "rate=200", "service=constant", "mean=20",
		"horizon=20000")
	out = run(t, p, 3)
	n := float64(out.ok.Count())
	if tol := 4*ulp(20000) + n*0x1p-52*40; n < 3000 || math.Abs(out.ok.Mean()-40) > tol {
		t.Errorf("open loop, no waiting: %v successes of mean latency %v, want 40 ± %.2g", n, out.ok.Mean(), tol)
	}
}

// A timeout: service takes 100 ms, the timeout is 50. The attempt reaches the balancer at 5, which answers 504 at 55;
// the client sees it at 60 and sends its next request, which waits behind the first's remaining work and times out
// too: 504s at 55 + 60k, each request failing after 60 ms. The server keeps working on the dead attempts (no
// drop_expired): busy from 10 without a break, finishing one every 100 ms, all of it wasted — 9 finished by 1000.
func TestTimeout(t *testing.T) {
	out, f := record(t, one(t, 100, 1000, nil, "timeout=50"), 1)
	var want []observation
	for k := range 16 {
		want = append(want, observation{0, 50, float64(55 + 60*k), policy.Timeout})
	}
	wantObs(t, "timeouts", f.seen, want)
	if out.timeouts != 16 || out.failed != 16 || out.offered != 17 || out.ok.Count() != 0 || out.all.Mean() != 60 {
		t.Errorf("timeouts %d, failed %d, offered %d, successes %d, mean answer %v; want 16, 16, 17, 0, 60", out.timeouts,
			out.failed, out.offered, out.ok.Count(), out.all.Mean())
	}
	if out.wasted != 900 || out.busy != 900 {
		t.Errorf("wasted work %v of %v busy, want 900 of 900", out.wasted, out.busy)
	}
}

// Retries without jitter: every attempt fails (error_rate 1) after error_latency 10, so an attempt sent at s is
// picked at s + 5 and answered 500 at the balancer at s + 25 and at the client at s + 30; the i-th retry waits
// 10·2^(i−1): attempts leave at 0, 40, 90, 160 and the request fails at 190.
func TestRetriesBackoff(t *testing.T) {
	out, f := record(t, one(t, 20, 200, nil, "error_rate=1", "error_latency=10", "retries=3", "backoff=10", "jitter=none"), 1)
	wantObs(t, "retries", f.seen, []observation{{0, 20, 25, policy.Error}, {0, 20, 65, policy.Error},
		{0, 20, 115, policy.Error}, {0, 20, 185, policy.Error}})
	var at []float64
	var num []int32
	for _, p := range f.picks {
		at, num = append(at, p.req.Now), append(num, p.req.Attempt)
	}
	if !slices.Equal(at, []float64{5, 45, 95, 165, 195}) || !slices.Equal(num, []int32{0, 1, 2, 3, 0}) {
		t.Errorf("picks at %v, attempts %v; want at 5, 45, 95, 165 (attempts 0–3) and the next request at 195", at, num)
	}
	if out.failed != 1 || out.all.Mean() != 190 || out.attempts != 5 || out.retries != 3 || out.errors != 4 ||
		out.offered != 2 || out.pending != 1 {
		t.Errorf("failed %d after %v, attempts %d, retries %d, errors %d, offered %d, pending %d; want 1 after 190, 5, 3, 4, 2, 1",
			out.failed, out.all.Mean(), out.attempts, out.retries, out.errors, out.offered, out.pending)
	}

	// The cap: base 3000 gives 3000, 6000, then 12000 and 24000 capped at 10 s.
	_, f = record(t, one(t, 20, 40000, nil, "error_rate=1", "error_latency=10", "retries=4", "backoff=3000", "jitter=none"), 1)
	var gaps []float64
	for i := 1; i < 5; i++ {
		gaps = append(gaps, f.picks[i].req.Now-f.picks[i-1].req.Now-30)
	}
	if !slices.Equal(gaps, []float64{3000, 6000, BackoffCap, BackoffCap}) {
		t.Errorf("backoffs %v, want 3000, 6000, %v, %v", gaps, BackoffCap, BackoffCap)
	}
}

// Full jitter: the i-th retry waits a uniform time in [0, 10·2^(i−1)]. Each wait, read off the picks (the gap
// between an attempt's pick and the next one's, less the 30 ms of the failing round trip), lies in that range up to
// the rounding of the times, and the waits over their caps are uniform: their mean is within the normal
// approximation's interval of 1/2 (sd 1/√12) at alpha.
func TestFullJitter(t *testing.T) {
	const h = 300000
	_, f := record(t, one(t, 20, h, nil, "error_rate=1", "error_latency=10", "retries=8", "backoff=10", "jitter=full"), 1)
	tol := 4 * ulp(h)
	var us []float64
	for i := 1; i < len(f.picks); i++ {
		a := f.picks[i].req.Attempt
		if a == 0 {
			continue
		}
		limit := 10 * math.Exp2(float64(a-1))
		w := f.picks[i].req.Now - f.picks[i-1].req.Now - 30
		if w < -tol || w > limit+tol {
			t.Fatalf("retry %d waited %v, outside [0, %v]", a, w, limit)
		}
		us = append(us, w/limit)
	}
	n := float64(len(us))
	mean := 0.0
	for _, u := range us {
		mean += u / n
	}
	z := distuv.UnitNormal.Quantile(1 - alpha/2)
	t.Logf("%v waits over their caps average %.4f (want 0.5 ± %.4f)", n, mean, z/math.Sqrt(12*n))
	if half := z / math.Sqrt(12*n); n < 500 || math.Abs(mean-0.5) > half {
		t.Errorf("%v waits over their caps average %.4f, want 0.5 ± %.4f", n, mean, half)
	}
}

// budgetReplay is the retry budget's rule replayed by hand for TestRetryBudget's scenario: one user, every attempt
// failing at the client 30 ms after it was sent, one retry after 10 ms when a whole token is there. Each request
// deposits b (the bucket holds at most capacity and starts full); a retry spends one token.
func budgetReplay(b, capacity, h float64) (offered, retries, denied, failed, pending int64) {
	tokens := capacity
	for t := 0.0; t < h; {
		offered++
		tokens = math.Min(capacity, tokens+b)
		if t+30 >= h { // its first answer comes at the horizon or after
			pending++
			break
		}
		if tokens < 1 {
			denied++
			failed++
			t += 30
			continue
		}
		tokens--
		if t+40 < h {
			retries++
		}
		if t+70 >= h {
			pending++
			break
		}
		failed++
		t += 70
	}
	return
}

// The retry budget. With b = 1/64 (binary, so the bucket's sums are exact) the bucket holds max(10, 100/64) = 10
// and starts full: requests 1–10 retry (the bucket falls to 9/64), then 54 are denied until the deposits make a
// whole token again, request 65 retries, 63 are denied, request 129 retries: 12 retries. A request with its retry takes 70 ms, a
// denied one 30: 10·70 + 54·30 + 70 + 63·30 = 4280 ms for 128 requests; the 129th sends its retry at 4320, before
// the horizon 4340. With b = 1/8 the bucket holds 12.5 (100·b, above the floor of 10), which the replay shows
// changes the counts.
func TestRetryBudget(t *testing.T) {
	if o, r, d, f, p := budgetReplay(1.0/64, 10, 4340); o != 129 || r != 12 || d != 117 || f != 128 || p != 1 {
		t.Fatalf("the replay gives offered %d, retries %d, denied %d, failed %d, pending %d; the hand count is 129, 12, 117, 128, 1", o, r, d, f, p)
	}
	for _, b := range []float64{1.0 / 64, 1.0 / 8, 0.25} {
		capacity := math.Max(10, 100*b)
		o, r, d, f, p := budgetReplay(b, capacity, 4340)
		if b == 1.0/8 {
			if o2, r2, d2, _, _ := budgetReplay(b, 10, 4340); o2 == o && r2 == r && d2 == d {
				t.Fatalf("b = 1/8: capacity 12.5 and 10 give the same counts: the scenario cannot tell them apart")
			}
		}
		out := run(t, one(t, 20, 4340, nil, "error_rate=1", "error_latency=10", "retries=1", "backoff=10", "jitter=none",
			"retry_budget="+ftoa(b)), 1)
		if out.offered != o || out.retries != r || out.budgetDenied != d || out.failed != f || out.pending != p ||
			out.attempts != o+r {
			t.Errorf("budget %v: offered %d, retries %d, denied %d, failed %d, pending %d, attempts %d; want %d, %d, %d, %d, %d, %d",
				b, out.offered, out.retries, out.budgetDenied, out.failed, out.pending, out.attempts, o, r, d, f, p, o+r)
		}
	}
}

// queuedDuringPause runs the open-loop pause scenario of the queue tests: one server with one worker, 1 ms constant
// work, the server paused over [1000, 1400). It returns the run, its tap, and the dispatch times of the attempts
// that reached the server during the pause, in order. The scenario needs the server idle when the pause starts and
// no arrival while it works off the queue afterwards (1400 to 1400 + queued + 1); the seed is chosen so, and the
// test stops if it is not.
func queuedDuringPause(t *testing.T, seed uint64, set ...string) (outcome, *tap, []float64) {
	t.Helper()
	p := point(t, []model.Record{srvClass(t, 1)}, []model.Record{entry(t, 1000, "pause", "duration=400")}, "round_robin",
		append([]string{"rate=50", "service=constant", "mean=1", "horizon=1800"}, set...)...)
	out, f := record(t, p, seed)
	var d []float64
	for _, pk := range f.picks {
		switch at := pk.req.Now + 5; {
		case at >= 999 && at < 1000:
			t.Fatalf("seed %d: an attempt reaches the server at %v, still in service when the pause starts", seed, at)
		case at >= 1000 && at < 1400:
			d = append(d, pk.req.Now)
		}
	}
	for _, pk := range f.picks {
		if at := pk.req.Now + 5; at >= 1400 && at < 1400+float64(len(d))+1 {
			t.Fatalf("seed %d: an attempt reaches the server at %v, while it works off the queue", seed, at)
		}
	}
	if len(d) < 6 {
		t.Fatalf("seed %d: only %d attempts during the pause", seed, len(d))
	}
	return out, f, d
}

// near reports whether observation o is the answer to the attempt dispatched at d, at time now, with outcome oc: up
// to the rounding of times near 2048.
func near(o observation, d, now float64, oc policy.Outcome) bool {
	tol := 4 * ulp(2048)
	return o.outcome == oc && math.Abs(o.now-now) <= tol && math.Abs(o.now-o.latency-d) <= tol
}

// Bounded queues while the server is paused: a FIFO queue of 3 keeps the first three arrivals and answers each later
// one 503 at once (two hops after dispatch), then serves the three oldest first (done at 1401, 1402, 1403, answered
// 5 ms later); a LIFO queue of 3 drops its oldest with a 503 when a newcomer arrives (the i-th arrival, i ≥ 3,
// pushes out the (i−3)-th: answered at arrival + hop) and serves the newest first.
func TestBoundedQueues(t *testing.T) {
	const k = 3
	for _, disc := range []string{"fifo", "lifo"} {
		out, f, d := queuedDuringPause(t, 1, "queue=3", "discipline="+disc)
		m := len(d)
		type answer struct {
			d, now float64 // the attempt's dispatch time, and when the balancer has its answer
			oc     policy.Outcome
		}
		var want []answer
		for i := k; i < m; i++ {
			if disc == "fifo" {
				want = append(want, answer{d[i], d[i] + 10, policy.Rejected})
			} else {
				want = append(want, answer{d[i-k], d[i] + 10, policy.Rejected})
			}
		}
		for j := range k {
			served := d[j]
			if disc == "lifo" {
				served = d[m-1-j]
			}
			want = append(want, answer{served, 1400 + float64(j+1) + 5, policy.OK})
		}
		var got []observation
		tol := 4 * ulp(2048) // the rounding of a dispatch time read back as now − latency
		for _, o := range f.seen {
			if o.now-o.latency >= d[0]-tol && o.now-o.latency <= d[m-1]+tol {
				got = append(got, o)
			}
		}
		if len(got) != len(want) {
			t.Fatalf("%s: %d answers to the %d attempts queued in the pause, want %d: %v", disc, len(got), m, len(want), got)
		}
		for i, w := range want {
			if !near(got[i], w.d, w.now, w.oc) {
				t.Errorf("%s: answer %d is %+v (dispatched %v), want %v at %v for the attempt dispatched at %v", disc, i,
					got[i], got[i].now-got[i].latency, w.oc, w.now, w.d)
			}
		}
		if out.rejections != int64(m-k) || out.peakQueue != k {
			t.Errorf("%s: %d rejections, peak queue %d; want %d, %d", disc, out.rejections, out.peakQueue, m-k, k)
		}
	}
}

// drop_expired: with a 50 ms timeout, the attempts queued during the pause whose deadline (dispatch + 50) has passed
// when the server reaches them are skipped; the rest are served, one per ms from 1400. Without drop_expired every
// one is served, so the server works exactly one more ms per skipped attempt. An attempt whose timeout (3 ms) is
// shorter than the hop (5) reaches the server expired and is dropped there.
func TestDropExpired(t *testing.T) {
	out, f, d := queuedDuringPause(t, 1, "timeout=50", "drop_expired=true")
	want, at := int64(0), 1400.0
	for _, x := range d {
		if at >= x+50 {
			want++
		} else {
			at++
		}
	}
	if want == 0 || want == int64(len(d)) {
		t.Fatalf("the scenario drops %d of %d: it tests nothing", want, len(d))
	}
	if out.dropped != want {
		t.Errorf("dropped %d, want %d", out.dropped, want)
	}
	keep := run(t, point(t, []model.Record{srvClass(t, 1)}, []model.Record{entry(t, 1000, "pause", "duration=400")},
		"round_robin", "rate=50", "service=constant", "mean=1", "horizon=1800", "timeout=50"), 1)
	if keep.dropped != 0 || keep.busy-out.busy != float64(want) || keep.attempts != out.attempts || len(f.picks) == 0 {
		t.Errorf("without drop_expired: dropped %d, busy %v vs %v (want %d more)", keep.dropped, keep.busy, out.busy, want)
	}

	p := point(t, []model.Record{srvClass(t, 2)}, nil, "round_robin", "rate=100", "timeout=3", "drop_expired=true",
		"horizon=5000")
	out, f = recordPolicy(t, p, 4)
	var arrived, expired int64
	for _, pk := range f.picks {
		if pk.req.Now+5 < 5000 {
			arrived++
		}
		if pk.req.Now+3 < 5000 {
			expired++
		}
	}
	if arrived < 400 || out.dropped != arrived || out.timeouts != expired || out.busy != 0 || out.ok.Count() != 0 {
		t.Errorf("timeout below the hop: dropped %d of %d arrivals, timeouts %d of %d, busy %v, successes %d", out.dropped,
			arrived, out.timeouts, expired, out.busy, out.ok.Count())
	}
}

// Slow and restore: the first request's 100 ms of work starts at 10; at 50 (40 done) the server slows to a quarter,
// so the remaining 60 take 240: done at 290, answered at the balancer at 295 and at the client at 300. Restored at
// 150 (25 more done), the last 35 take 35: done at 185, at the client at 195.
func TestSlowRestore(t *testing.T) {
	out, f := record(t, one(t, 100, 400, []model.Record{entry(t, 50, "slow", "server=0", "factor=0.25")}), 1)
	if out.ok.Count() != 1 || out.ok.Mean() != 300 || len(f.seen) != 1 || f.seen[0] != (observation{0, 290, 295, policy.OK}) {
		t.Errorf("slowed: %d successes of mean %v, balancer saw %v; want one of 300 answered at 295", out.ok.Count(), out.ok.Mean(), f.seen)
	}
	out, _ = record(t, one(t, 100, 250, []model.Record{entry(t, 50, "slow", "server=0", "factor=0.25"),
		entry(t, 150, "restore", "server=0")}), 1)
	if out.ok.Count() != 1 || out.ok.Mean() != 195 {
		t.Errorf("slowed and restored: %d successes of mean %v, want one of 195", out.ok.Count(), out.ok.Mean())
	}
}

// Pauses stop running work: a 30 ms pause at 50 delays the first request's completion from 110 to 140 (at the
// client 150). GC pauses every 200 ms from 50, 30 ms each: request 1 (work 10–50, pause, 80–140) takes 150;
// request 2 (sent 150: work 160–250, pause, 280–290) 150; request 3 (sent 300: work 310–410, before the pause at
// 450) 120; request 4 (sent 420: work 430–450, pause, 480–560) 150.
func TestPauses(t *testing.T) {
	out, _ := record(t, one(t, 100, 200, []model.Record{entry(t, 50, "pause", "server=0", "duration=30")}), 1)
	if out.ok.Count() != 1 || out.ok.Mean() != 150 {
		t.Errorf("paused: %d successes of mean %v, want one of 150", out.ok.Count(), out.ok.Mean())
	}
	p := point(t, []model.Record{srvClass(t, 1, "gc_every=200", "gc_pause=30", "gc_phase=50")}, nil, "round_robin",
		"users=1", "think=0", "service=constant", "mean=100", "horizon=700")
	_, f := record(t, p, 1)
	wantObs(t, "GC pauses", f.seen, []observation{{0, 140, 145, policy.OK}, {0, 140, 295, policy.OK},
		{0, 110, 415, policy.OK}, {0, 140, 565, policy.OK}})
}

// Kill and restart: killed at 50, the server answers its attempt in service 500 at once (at the balancer at 55, the
// request failing at 60 after 60 ms) and refuses the attempts reaching it until the restart at 130 (each a 500 two
// hops after dispatch: 20 ms at the client); the attempt reaching it at 130 finds it restarted (timeline changes
// precede traffic at equal times) and is served: answered at 235, at the client at 240. A kill answers every attempt
// the server holds, queued ones too.
func TestKillRestart(t *testing.T) {
	out, f := record(t, one(t, 100, 250, []model.Record{entry(t, 50, "kill", "server=0"), entry(t, 130, "restart", "server=0")}), 1)
	wantObs(t, "kill", f.seen, []observation{{0, 50, 55, policy.Error}, {0, 10, 75, policy.Error},
		{0, 10, 95, policy.Error}, {0, 10, 115, policy.Error}, {0, 110, 235, policy.OK}})
	if out.failed != 4 || out.ok.Count() != 1 || out.ok.Mean() != 120 || out.all.Mean() != 48 || out.errors != 4 {
		t.Errorf("failed %d, successes %d of mean %v, all of mean %v, errors %d; want 4, 1 of 120, 48, 4", out.failed,
			out.ok.Count(), out.ok.Mean(), out.all.Mean(), out.errors)
	}
	p := point(t, []model.Record{srvClass(t, 1)}, []model.Record{entry(t, 50, "kill")}, "round_robin", "users=3",
		"think=0", "service=constant", "mean=100", "horizon=56")
	_, f = record(t, p, 1)
	wantObs(t, "kill with a queue", f.seen, []observation{{0, 50, 55, policy.Error}, {0, 50, 55, policy.Error},
		{0, 50, 55, policy.Error}})
}

// Fail and recover: attempts starting service while the server fails are 500s after error_latency (10 ms).
// Request 1 (service from 10) and 2 (from 130) start before the fail at 150 and succeed; 3 (from 250) and 4 (from
// 280) fail; the recover at 300 makes 5 (from 310) succeed.
func TestFailRecover(t *testing.T) {
	_, f := record(t, one(t, 100, 430, []model.Record{entry(t, 150, "fail", "server=0"), entry(t, 300, "recover", "server=0")},
		"error_latency=10"), 1)
	wantObs(t, "fail", f.seen, []observation{{0, 110, 115, policy.OK}, {0, 110, 235, policy.OK},
		{0, 20, 265, policy.Error}, {0, 20, 295, policy.Error}, {0, 110, 415, policy.OK}})

	// A partial fail: the attempts starting service in [2000, 6000) fail with probability 0.3 (binomial, normal
	// interval at alpha); none outside. With 100 workers at a load of 20 no attempt waits, so service starts one hop
	// after dispatch.
	p := point(t, []model.Record{srvClass(t, 1, "workers=100")}, []model.Record{entry(t, 2000, "fail", "factor=0.3"),
		entry(t, 6000, "recover")}, "round_robin", "rate=1000", "horizon=8000")
	_, f = record(t, p, 5)
	var n, errs float64
	for _, o := range f.seen {
		start := o.now - o.latency + 5
		in := start >= 2000 && start < 6000
		switch {
		case math.Abs(start-2000) < 1e-6 || math.Abs(start-6000) < 1e-6:
			continue // too close to a boundary to classify
		case in:
			n++
			if o.outcome == policy.Error {
				errs++
			}
		case o.outcome != policy.OK:
			t.Errorf("attempt starting at %v answered %v outside the fail", start, o.outcome)
		}
	}
	z := distuv.UnitNormal.Quantile(1 - alpha/2)
	t.Logf("%v errors of %v attempts in the fail (want %.1f ± %.1f)", errs, n, 0.3*n, z*math.Sqrt(n*0.3*0.7))
	if half := z * math.Sqrt(n*0.3*0.7); n < 3000 || math.Abs(errs-0.3*n) > half {
		t.Errorf("%v errors of %v attempts in the fail, want 0.3·n = %.1f ± %.1f", errs, n, 0.3*n, half)
	}
}

// Add: a server declared inactive receives nothing until its add at 3000; then round robin cycles over three
// servers, so it takes every third pick, to within one.
func TestAdd(t *testing.T) {
	for _, named := range []bool{false, true} {
		tl := []model.Record{entry(t, 3000, "add")}
		if named {
			tl = []model.Record{entry(t, 3000, "add", "server=2")}
		}
		p := point(t, []model.Record{srvClass(t, 2), srvClass(t, 1, "active=false")}, tl, "round_robin", "rate=200",
			"horizon=6000")
		_, f := recordPolicy(t, p, 6)
		var after, third int
		for _, pk := range f.picks {
			switch {
			case pk.req.Now < 3000 && pk.server == 2:
				t.Fatalf("server 2 picked at %v, before its add", pk.req.Now)
			case pk.req.Now >= 3000:
				after++
				if pk.server == 2 {
					third++
				}
			}
		}
		if after < 300 || math.Abs(float64(third)-float64(after)/3) > 1 {
			t.Errorf("named %v: server 2 got %d of the %d picks after its add, want a third ± 1", named, third, after)
		}
	}
}

// A rate change: 100 requests/s before 5000, 400 after (and the other way round). The arrivals counted in the time
// series before and after are Poisson with means 500 and 2000: each within the normal interval ±z√μ at alpha.
func TestRateChange(t *testing.T) {
	z := distuv.UnitNormal.Quantile(1 - alpha/2)
	for _, c := range []struct{ from, to float64 }{{100, 400}, {400, 100}} {
		p := point(t, []model.Record{srvClass(t, 4)}, []model.Record{entry(t, 5000, "rate", "rate="+ftoa(c.to))},
			"round_robin", "rate="+ftoa(c.from), "mean=5", "horizon=10000")
		out := run(t, p, 8)
		var before, after float64
		for _, s := range out.series {
			if s.t < 5000 {
				before += float64(s.counts.offered)
			} else {
				after += float64(s.counts.offered)
			}
		}
		t.Logf("rate %v → %v: %v and %v arrivals in the 5 s before and after", c.from, c.to, before, after)
		for _, x := range []struct{ n, mu float64 }{{before, c.from * 5}, {after, c.to * 5}} {
			if math.Abs(x.n-x.mu) > z*math.Sqrt(x.mu) {
				t.Errorf("rate %v → %v: %v arrivals in 5 s, want %v ± %.0f", c.from, c.to, x.n, x.mu, z*math.Sqrt(x.mu))
			}
		}
	}
}

// Speed changes and pauses compose. Slowed to half at 30 (20 of the 100 ms done), the request does 10 more by the
// pause at 50; paused until 80, it resumes at half speed: 70 left take 140, done at 220, at the client at 230. With a
// restore at 60, inside the pause, it resumes at full speed: done at 150, at the client at 160. Killed inside a
// pause (at 70) the request is answered 500 at once (at the client at 80, after 80 ms); the next one reaches the
// server at 90, just restarted and still paused, waits in its queue for the pause's end at 150 and is served by
// 250: 180 ms at the client.
func TestSpeedAndPauseCompose(t *testing.T) {
	slowPause := []model.Record{entry(t, 30, "slow", "server=0", "factor=0.5"), entry(t, 50, "pause", "server=0", "duration=30")}
	out, _ := record(t, one(t, 100, 300, slowPause), 1)
	if out.ok.Count() != 1 || out.ok.Mean() != 230 {
		t.Errorf("slowed then paused: %d successes of mean %v, want one of 230", out.ok.Count(), out.ok.Mean())
	}
	out, _ = record(t, one(t, 100, 200, append(slowPause, entry(t, 60, "restore", "server=0"))), 1)
	if out.ok.Count() != 1 || out.ok.Mean() != 160 {
		t.Errorf("slowed, paused, restored in the pause: %d successes of mean %v, want one of 160", out.ok.Count(), out.ok.Mean())
	}
	out, f := record(t, one(t, 100, 300, []model.Record{entry(t, 50, "pause", "server=0", "duration=100"),
		entry(t, 70, "kill", "server=0"), entry(t, 90, "restart", "server=0")}), 1)
	wantObs(t, "killed in a pause", f.seen, []observation{{0, 70, 75, policy.Error}, {0, 170, 255, policy.OK}})
	if out.failed != 1 || out.ok.Count() != 1 || out.ok.Mean() != 180 || out.all.Mean() != 130 {
		t.Errorf("killed in a pause: failed %d, %d successes of mean %v, all of mean %v; want 1, one of 180, 130", out.failed,
			out.ok.Count(), out.ok.Mean(), out.all.Mean())
	}
}

// Service and hop laws in the mean, with no waiting (many workers): the mean latency is 4·hop + mean/speed. Constant
// laws at speed 4: exactly 4·5 + 20/4 = 25. Exponential hops (four independent legs of mean 5), exponential and
// lognormal (cv 2) work: the replications' mean latency covers 40 within a Student-t interval at alpha.
func TestLawsInTheMean(t *testing.T) {
	p := point(t, []model.Record{srvClass(t, 1, "speed=4")}, nil, "round_robin", "users=1", "think=0", "service=constant",
		"mean=20", "horizon=1000")
	if out := run(t, p, 1); out.ok.Count() != 39 || out.ok.Mean() != 25 {
		t.Errorf("speed 4: %d successes of mean %v, want 39 of 25", out.ok.Count(), out.ok.Mean())
	}
	for _, set := range [][]string{{"hop_law=exponential", "service=constant"}, {"service=exponential"},
		{"service=lognormal", "cv=2"}, {"hop_law=exponential", "service=lognormal", "cv=0.5"}} {
		p := point(t, []model.Record{srvClass(t, 2, "workers=1000")}, nil, "random", append([]string{"rate=200", "mean=20",
			"horizon=10000"}, set...)...)
		var xs []float64
		for rep := range 10 {
			xs = append(xs, run(t, p, uint64(50+rep)).ok.Mean())
		}
		e := claims.MeanCI(xs, alpha)
		t.Logf("%v: mean latency %.3f ± %.3f (want 40)", set, e.Mean, e.Half)
		if math.Abs(e.Mean-40) > e.Half {
			t.Errorf("%v: mean latency %.3f ± %.3f, want 40", set, e.Mean, e.Half)
		}
	}
}

// Weights: smooth_wrr splits the attempts in proportion to the classes' weights, which default to their speeds and
// can be set apart from them: a deterministic sequence, so the shares are exact to within one attempt.
func TestWeights(t *testing.T) {
	for _, c := range []struct {
		classes []model.Record
		want    float64 // the second server's share
	}{
		{[]model.Record{srvClass(t, 1), srvClass(t, 1, "speed=3")}, 0.75},
		{[]model.Record{srvClass(t, 1), srvClass(t, 1, "speed=3", "weight=1")}, 0.5},
		{[]model.Record{srvClass(t, 1, "weight=4"), srvClass(t, 1)}, 0.2},
	} {
		out := run(t, point(t, c.classes, nil, "smooth_wrr", "rate=50", "horizon=20000"), 1)
		total := float64(out.sent[0] + out.sent[1])
		if math.Abs(float64(out.sent[1])-c.want*total) > 1 {
			t.Errorf("server 1 got %d of %v attempts, want a share %v", out.sent[1], total, c.want)
		}
	}
}

// Warm-up: the requests arriving before it are not measured, but the series counts every arrival, so the bins from
// the warm-up on add up to the measured offered count exactly.
func TestWarmupMeasures(t *testing.T) {
	p := point(t, []model.Record{srvClass(t, 4)}, nil, "round_robin", "rate=150", "warmup=3000", "horizon=8000", "timeout=80", "retries=1")
	out := run(t, p, 2)
	var from, before int64
	for _, s := range out.series {
		if s.t >= 3000 {
			from += s.counts.offered
		} else {
			before += s.counts.offered
		}
	}
	if from != out.offered || before == 0 || out.warning != "" {
		t.Errorf("offered %d, series from the warm-up %d (before it %d), warning %q", out.offered, from, before, out.warning)
	}
}
