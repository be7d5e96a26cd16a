package resilience

import (
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"lbsweep/model"
	"lbsweep/model/sim"
)

// scenario is a test configuration: server classes, timeline, policy and settings.
type scenario struct {
	name     string
	classes  []model.Record
	timeline []model.Record
	pol      string
	set      []string
}

// scenarios is a table of diverse configurations: open and closed loops, timeouts and retries, budgets, bounded
// FIFO and LIFO queues, drop_expired, GC pauses, every timeline action, exponential hops, lognormal service and
// several policies. Four servers of mean 20 ms hold 200 requests/s; most run at 150 (ρ = 0.75), a few overloaded.
func scenarios(t *testing.T) []scenario {
	four := []model.Record{srvClass(t, 4)}
	return []scenario{
		{"open fifo", four, nil, "round_robin", []string{"rate=150"}},
		{"timeouts retries", four, nil, "least_outstanding", []string{"rate=150", "timeout=60", "retries=3"}},
		{"budget slow", four, []model.Record{entry(t, 3000, "slow", "server=1", "factor=0.25"), entry(t, 4500, "restore", "server=1")},
			"peak_ewma", []string{"rate=150", "timeout=60", "retries=3", "retry_budget=0.1", "tau=100"}},
		{"lifo bounded overload", four, nil, "random", []string{"rate=220", "queue=5", "discipline=lifo", "timeout=100", "retries=2"}},
		{"fifo bounded drop_expired", four, nil, "jsq_d", []string{"rate=200", "queue=10", "drop_expired=true", "timeout=40", "retries=1", "d=2"}},
		{"gc pauses", []model.Record{srvClass(t, 3), srvClass(t, 1, "gc_every=2000", "gc_pause=300", "gc_phase=500")}, nil,
			"round_robin", []string{"rate=140", "timeout=100", "retries=1", "jitter=none"}},
		{"every action", []model.Record{srvClass(t, 4), srvClass(t, 1, "active=false")}, []model.Record{
			entry(t, 1000, "fail", "server=3", "factor=0.3"), entry(t, 1500, "add"), entry(t, 2000, "kill", "server=1"),
			entry(t, 2500, "slow", "server=2", "factor=0.5"), entry(t, 3000, "restart", "server=1"),
			entry(t, 3500, "pause", "server=0", "duration=200"), entry(t, 4000, "restore", "server=2"),
			entry(t, 4000, "rate", "rate=100"), entry(t, 5000, "recover", "server=3"), entry(t, 5500, "kill", "server=4")},
			"least_outstanding", []string{"rate=150", "timeout=80", "retries=2", "tie=random"}},
		{"exponential hops lognormal", []model.Record{srvClass(t, 2), srvClass(t, 2, "speed=2")}, nil, "smooth_wrr",
			[]string{"rate=250", "hop_law=exponential", "service=lognormal", "cv=2", "timeout=200", "retries=1"}},
		{"closed loop timeouts", four, nil, "peak_ewma", []string{"users=20", "think=50", "timeout=60", "retries=2", "tau=50"}},
		{"closed loop kill all", four, []model.Record{entry(t, 2000, "kill"), entry(t, 3000, "restart")}, "least_request",
			[]string{"users=10", "think=20", "retries=3", "retry_budget=0.2"}},
		{"workers errors", []model.Record{srvClass(t, 2, "workers=4")}, nil, "ewma",
			[]string{"rate=300", "error_rate=0.05", "error_latency=2", "retries=1", "jitter=none"}},
		{"kill in a gc pause", []model.Record{srvClass(t, 2, "gc_every=1000", "gc_pause=200", "gc_phase=100")},
			[]model.Record{entry(t, 1150, "kill", "server=0"), entry(t, 1250, "restart", "server=0"), entry(t, 2150, "slow", "server=1", "factor=0.5")},
			"round_robin", []string{"rate=60", "timeout=150", "retries=1"}},
		{"zero queue", []model.Record{srvClass(t, 3, "workers=2")}, nil, "random", []string{"rate=200", "queue=0", "retries=2"}},
		{"warmup lifo", four, nil, "least_outstanding", []string{"rate=150", "warmup=2000", "timeout=60", "retries=2", "discipline=lifo"}},
		{"closed loop gc lifo", []model.Record{srvClass(t, 3), srvClass(t, 1, "gc_every=1500", "gc_pause=300")}, nil, "jsq",
			[]string{"users=30", "think=10", "queue=3", "discipline=lifo", "retries=1", "warmup=1000"}},
		{"closed loop slow pause fail", four, []model.Record{entry(t, 1000, "slow", "factor=0.5"), entry(t, 2000, "pause", "duration=300"),
			entry(t, 2500, "fail", "factor=0.5"), entry(t, 3000, "restore"), entry(t, 3500, "recover")}, "random",
			[]string{"users=8", "think=30", "timeout=100", "retries=2"}},
		{"hedging p90 timeouts retries", four, nil, "least_outstanding",
			[]string{"rate=150", "service=lognormal", "hedge_quantile=0.9", "hedge=40", "hedge_window=500", "timeout=80", "retries=2"}},
		{"hedging cancel exponential hops kill", four, []model.Record{entry(t, 2000, "kill", "server=1"), entry(t, 3000, "restart", "server=1")},
			"round_robin", []string{"rate=150", "hedge=30", "hedge_cancel=true", "hop_law=exponential", "queue=5", "discipline=lifo", "retries=1", "hedge_budget=0.1"}},
		{"breakers hedging fail recover", four, []model.Record{entry(t, 1000, "fail", "server=2"), entry(t, 4000, "recover", "server=2")},
			"least_outstanding", []string{"rate=150", "hedge=30", "cb_threshold=0.5", "cb_window=10", "cb_open=300", "cb_probes=2", "timeout=100", "retries=1"}},
		{"closed loop hedging pauses", []model.Record{srvClass(t, 3), srvClass(t, 1, "gc_every=1000", "gc_pause=200")}, nil, "least_latency",
			[]string{"users=20", "think=30", "hedge=25", "hedge_cancel=true", "tau=50", "drop_expired=true", "timeout=60", "retries=1"}},
		{"outlier errors_active", four, []model.Record{entry(t, 1000, "fail", "server=3"), entry(t, 4000, "recover", "server=3")},
			"least_outstanding", []string{"rate=150", "timeout=60", "retries=2", "error_latency=1", "outlier_consecutive_5xx=3",
				"outlier_interval=200", "outlier_base_ejection=300", "outlier_max_ejection=1000", "outlier_max_ejection_percent=50",
				"errors_active=50", "fault_level=0.1"}},
		{"a58 outlier", four, []model.Record{entry(t, 1000, "fail", "server=2", "factor=0.8"), entry(t, 2500, "kill", "server=1"),
			entry(t, 3000, "restart", "server=1")}, "round_robin", []string{"rate=150", "timeout=60", "retries=1", "error_latency=2",
			"wrr_update=100", "wrr_report=200", "wrr_blackout=300", "wrr_expiration=1000", "outlier_consecutive_5xx=5",
			"outlier_interval=500", "outlier_base_ejection=500", "outlier_max_ejection_percent=25"}},
	}
}

// b2i is 1 for true, 0 for false.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// build is the scenario's point over horizon h (ms).
func (s scenario) build(t *testing.T, h float64) model.Point {
	t.Helper()
	return point(t, s.classes, s.timeline, s.pol, append(append([]string{}, s.set...), "horizon="+ftoa(h))...)
}

// drained runs point p (over horizon h) with its tail (see tail): 60 s for an open loop (longer than the backlogs,
// backoffs, pauses and timeouts of most scenarios here), doubled until the servers hold no attempt at the end (a
// slowed server's backlog can take longer; up to 64 times, after which what is left is stuck work the test
// reports); 5 s for a closed loop, whose killed servers hold nothing (longer than any backoff sequence here, at
// most 0.1 + 0.2 + 0.4 s, a timeout and a pause).
func drained(t *testing.T, p model.Point, h float64, seed uint64) outcome {
	t.Helper()
	if !p[pRate].Valid {
		return run(t, tail(t, p, h, 5000), seed)
	}
	for d := 60000.0; ; d *= 2 {
		end := run(t, tail(t, p, h, d), seed)
		held := 0.0
		for _, x := range end.series[len(end.series)-1].inFlight {
			held += x
		}
		if held == 0 || d >= 64*60000 {
			return end
		}
	}
}

// tail extends point p (over horizon h) by d ms after one more timeline change at h: in an open loop the rate falls
// to 10^-6 requests/s (no arrival in d but with probability about d·10^-9), in a closed loop every server is killed
// (the users' attempts are refused at once from then on).
func tail(t *testing.T, p model.Point, h, d float64) model.Point {
	t.Helper()
	q := slices.Clone(p)
	tl := slices.Clone(q[pTimeline].R)
	if q[pRate].Valid {
		tl = append(tl, entry(t, h, "rate", "rate=1e-6"))
	} else {
		tl = append(tl, entry(t, h, "kill"))
	}
	q[pTimeline] = model.RecordsValue(tl)
	q[pHorizon] = model.FloatValue(h + d)
	if _, err := (Model{}).Check(q, model.CheckOptions{AllowUnstable: true}); err != nil {
		t.Fatalf("invalid tail: %v", err)
	}
	return q
}

// Every scenario's books balance (the run's own check: Little's law over the window as an identity, offered =
// succeeded + failed + pending, attempts = requests + retries) and its attempt pool holds no leaked record:
//   - with no timeout, every live attempt is the current attempt of a live request (a request waits for its
//     attempt's answer before anything else), so at the horizon live attempts ≤ live requests (twice that with
//     hedging: an attempt and its copy);
//   - an open loop whose arrivals stop at the horizon and that then runs until its servers are empty (drained)
//     drains: no request pending and every attempt record back in the pool;
//   - a closed loop whose servers are all killed at the horizon and that then runs 5 s more (drained) holds only the
//     users' current attempts (each refused within two constant hops, before any timeout): live attempts ≤ live
//     requests ≤ users.
//
// With no warm-up every request is measured, so the time series' bins add up to the run's counts and its last row
// (the bin ending at the horizon) holds the requests in the system then. And the policy's view holds at every pick: each server's outstanding count is the attempts the balancer sent it
// less those it has had answered or timed out (with no errors_active and no A58).
func TestBooksEveryScenario(t *testing.T) {
	const h = 8000.0
	for _, s := range scenarios(t) {
		p := s.build(t, h)
		c := configOf(p)
		for seed := uint64(1); seed <= 2; seed++ {
			out := run(t, p, seed)
			if out.warning != "" {
				t.Errorf("%s seed %d: %s", s.name, seed, out.warning)
			}
			if o := out; o.offered != o.succeeded+o.failed+o.pending || o.attempts != o.offered+o.retries+o.hedges || o.offered < 100 {
				t.Errorf("%s seed %d: offered %d, succeeded %d, failed %d, pending %d, attempts %d, retries %d", s.name, seed,
					o.offered, o.succeeded, o.failed, o.pending, o.attempts, o.retries)
			}
			if copies := 1 + b2i(c.hedging()); math.IsInf(c.timeout, 1) && out.liveAttempts > copies*out.liveReqs {
				t.Errorf("%s seed %d: %d attempts live at the horizon for %d live requests (%d copies each), and no timeouts", s.name, seed,
					out.liveAttempts, out.liveReqs, copies)
			}
			if c.warmup == 0 {
				seriesSums(t, s.name, out)
			}
			// errors_active adds held counts to the view on purpose, and A58 replaces the policy the tap wraps.
			if _, f := recordPolicy(t, p, seed); c.errorsActive == 0 && c.wrr.update == 0 && (f.bad > 0 || len(f.picks) == 0) {
				t.Errorf("%s seed %d: at %d of %d picks the balancer's outstanding counts were not its sent less its answered",
					s.name, seed, f.bad, len(f.picks))
			}
			end := checkDrained(t, s.name, p, h, seed)
			if end.offered < out.offered {
				t.Errorf("%s seed %d: the tail offered %d < %d", s.name, seed, end.offered, out.offered)
			}
		}
	}
}

// The books' check can fail: an outcome whose counts do not add up, or whose integrated number in the system does
// not match the requests' times, carries a warning naming the identity.
func TestBooksWarn(t *testing.T) {
	for _, c := range []struct {
		edit func(o *outcome)
		want string
	}{
		{func(o *outcome) { o.area++ }, "Little's law"},
		{func(o *outcome) { o.succeeded++ }, "offered"},
		{func(o *outcome) { o.retries++ }, "attempts"},
		{func(o *outcome) { o.firsts-- }, "attempts"},
	} {
		e := &engine{c: config{horizon: 100}, out: outcome{ok: sim.NewSojourns(), all: sim.NewSojourns()}}
		e.out.offered, e.out.succeeded, e.out.firsts, e.out.attempts = 3, 3, 3, 3
		e.out.area, e.out.clipped = 30, 30
		e.finishBooks()
		if e.out.warning != "" {
			t.Fatalf("balanced books warn: %s", e.out.warning)
		}
		c.edit(&e.out)
		e.finishBooks()
		if !strings.Contains(e.out.warning, c.want) {
			t.Errorf("unbalanced books: warning %q, want it to name %q", e.out.warning, c.want)
		}
	}
}

// seriesSums checks that out's time series adds up to its counts (every request measured) and ends at the horizon
// with the live requests.
func seriesSums(t *testing.T, name string, out outcome) {
	t.Helper()
	var sum bin
	for _, s := range out.series {
		c := s.counts
		sum.offered += c.offered
		sum.attempts += c.attempts
		sum.successes += c.successes
		sum.failures += c.failures
		sum.timeouts += c.timeouts
		sum.errors += c.errors
		sum.rejections += c.rejections
		sum.retries += c.retries
	}
	want := bin{offered: out.offered, attempts: out.attempts, successes: out.succeeded, failures: out.failed,
		timeouts: out.timeouts, errors: out.errors, rejections: out.rejections, retries: out.retries}
	if !reflect.DeepEqual(sum, want) {
		t.Errorf("%s: the series adds up to %+v, the run counted %+v", name, sum, want)
	}
	// in_system is a time average per bin: over bins that tile [0, horizon) (warmup 0, as the callers have it), they
	// integrate to the run's own ∫N dt.
	area, width := 0.0, 0.0
	for i, smp := range out.series {
		b := 250.0
		if i+1 < len(out.series) {
			b = out.series[i+1].t - smp.t
		} else if i > 0 {
			b = smp.t - out.series[i-1].t
		}
		area += smp.inSystem * b
		width += b
	}
	if math.Abs(area-out.area) > 1e-9*max(1, out.area) {
		t.Errorf("%s: the series' in_system integrates to %.9g over %v ms, the run's ∫N dt is %.9g", name, area, width, out.area)
	}
}

// checkDrained runs point p (scenario name, horizon h) with its tail (drained) and checks what the drain must leave:
// balanced books; for an open loop no request pending and every attempt record back in the pool; for a closed loop
// whose servers are all killed, only the users' current attempts (two each with hedging). It returns the drained run.
func checkDrained(t *testing.T, name string, p model.Point, h float64, seed uint64) outcome {
	t.Helper()
	c := configOf(p)
	end := drained(t, p, h, seed)
	if end.warning != "" {
		t.Errorf("%s seed %d, with its tail: %s", name, seed, end.warning)
	}
	if c.rate > 0 {
		if end.pending != 0 || end.liveReqs != 0 || end.liveAttempts != 0 {
			t.Errorf("%s seed %d: after the drain %d requests pending (%d live), %d attempt records live of %d", name,
				seed, end.pending, end.liveReqs, end.liveAttempts, end.liveAttempts+end.freeAttempts)
		}
	} else if end.liveAttempts > (1+b2i(c.hedging()))*end.liveReqs || end.liveReqs > c.users {
		t.Errorf("%s seed %d: servers all down for 5 s, yet %d attempts live for %d live requests (%d users)", name,
			seed, end.liveAttempts, end.liveReqs, c.users)
	}
	return end
}
