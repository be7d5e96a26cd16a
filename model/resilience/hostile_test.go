package resilience

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"lbsweep/model"
)

// hostileScenarios are odd but valid points: degenerate fleets (one server, every server failing or barred), extreme
// delays and windows (hedging at 0.001 ms or 10^12 ms, quantiles at the ends of (0, 1), a 0.001 ms hedge window),
// limiters pinned at 1 with no queue, breakers that probe a whole window or reopen at once, outlier detection allowed
// to eject the whole fleet, A58 with no penalty or an enormous one and servers killed and restarted, errors held as
// active for 10^12 ms, exponential hops with hedge cancellation (a cancel may overtake its attempt), every mechanism at
// once in open and closed loops, and a warm-up a hair before the horizon.
func hostileScenarios(t *testing.T) []scenario {
	one := []model.Record{srvClass(t, 1)}
	four := []model.Record{srvClass(t, 4)}
	failAll := []model.Record{entry(t, 500, "fail")}
	killRestart := []model.Record{entry(t, 800, "kill", "server=0"), entry(t, 900, "kill", "server=1"),
		entry(t, 1500, "restart", "server=0"), entry(t, 2000, "restart", "server=1")}
	everything := []string{"timeout=60", "retries=3", "retry_budget=0.5", "hedge=15", "hedge_cancel=true", "hedge_budget=0.2",
		"cb_threshold=0.5", "cb_window=10", "cb_open=100", "cb_probes=2", "limiter=gradient2", "limit_min=1", "limit_initial=4",
		"limit_max=50", "outlier_consecutive_5xx=2", "outlier_interval=100", "outlier_base_ejection=100",
		"outlier_max_ejection_percent=100", "errors_active=30", "queue=3", "discipline=lifo", "drop_expired=true"}
	return []scenario{
		{"one server hedge", one, nil, "least_outstanding", []string{"rate=30", "hedge=5"}},
		{"one server hedge cancel quantile", one, nil, "least_outstanding", []string{"rate=30", "hedge_quantile=0.5", "hedge=1", "hedge_window=50", "hedge_cancel=true", "hedge_budget=10"}},
		{"one server hedge breaker kill", one, []model.Record{entry(t, 1000, "kill"), entry(t, 1500, "restart")}, "round_robin",
			[]string{"rate=30", "hedge=5", "cb_threshold=0.1", "cb_window=10", "cb_probes=10", "retries=2"}},
		{"hedge tiny", four, nil, "least_outstanding", []string{"rate=100", "hedge=0.001"}},
		{"hedge tiny cancel hop 0", four, nil, "least_outstanding", []string{"rate=100", "hedge=0.001", "hedge_cancel=true", "hop=0"}},
		{"hedge huge", four, nil, "least_outstanding", []string{"rate=100", "hedge=1e12"}},
		{"hedge quantile near 0", four, nil, "least_outstanding", []string{"rate=100", "hedge_quantile=1e-9", "hedge_window=100"}},
		{"hedge quantile near 1", four, nil, "least_outstanding", []string{"rate=100", "hedge_quantile=0.999999", "hedge_window=100", "hedge_cancel=true"}},
		{"hedge window tiny", four, nil, "least_outstanding", []string{"rate=100", "hedge_quantile=0.9", "hedge=10", "hedge_window=0.01"}},
		{"hedge every server failing", four, failAll, "least_outstanding", []string{"rate=100", "hedge=5", "retries=2", "error_latency=1"}},
		{"breakers every server failing", four, failAll, "least_outstanding", []string{"rate=100", "cb_threshold=0.5", "retries=3", "backoff=0"}},
		{"breakers window=probes, open tiny", four, failAll, "random", []string{"rate=100", "cb_threshold=1", "cb_window=10", "cb_probes=10", "cb_open=0.001", "retries=1"}},
		{"breakers error_rate 1 hop 0", []model.Record{srvClass(t, 3, "error_rate=1")}, nil, "jsq", []string{"rate=100", "hop=0", "cb_threshold=0.5", "cb_window=10", "retries=5", "backoff=0"}},
		{"aimd pinned at 1, no queue", []model.Record{srvClass(t, 2)}, nil, "least_outstanding", []string{"rate=100", "limiter=aimd", "limit_min=1", "limit_max=1", "limit_initial=1", "queue=0", "retries=2", "backoff=0"}},
		{"gradient2 pinned at 1, no queue", []model.Record{srvClass(t, 2)}, nil, "least_outstanding", []string{"rate=100", "limiter=gradient2", "limit_min=1", "limit_max=1", "limit_initial=1", "queue=0", "retries=2", "gradient_window=1", "gradient_queue_size=0"}},
		{"gradient2 every server failing", four, failAll, "round_robin", []string{"rate=150", "limiter=gradient2", "limit_min=1", "error_latency=0.01", "retries=1"}},
		{"outlier eject all", four, failAll, "round_robin", []string{"rate=100", "outlier_consecutive_5xx=1", "outlier_max_ejection_percent=100", "outlier_interval=50", "outlier_base_ejection=10", "retries=2"}},
		{"outlier eject all success rate", four, failAll, "least_outstanding", []string{"rate=150", "outlier_consecutive_5xx=1000000", "outlier_max_ejection_percent=100", "outlier_interval=100",
			"outlier_success_rate_minimum_hosts=1", "outlier_success_rate_request_volume=1", "outlier_success_rate_stdev_factor=0"}},
		{"outlier eject all hedging", four, failAll, "least_outstanding", []string{"rate=100", "outlier_consecutive_5xx=1", "outlier_max_ejection_percent=100", "hedge=2", "hedge_cancel=true"}},
		{"a58 kill restart", four, killRestart, "round_robin", []string{"rate=150", "wrr_update=100", "wrr_blackout=0", "wrr_report=50", "wrr_expiration=200"}},
		{"a58 every server failing penalty 0", four, failAll, "round_robin", []string{"rate=150", "wrr_update=100", "wrr_blackout=0", "wrr_penalty=0", "error_latency=0.1"}},
		{"a58 failing penalty huge", four, []model.Record{entry(t, 500, "fail", "server=2")}, "round_robin", []string{"rate=150", "wrr_update=100", "wrr_blackout=0", "wrr_penalty=1e300", "error_latency=0.1"}},
		{"a58 every server failing penalty huge", four, failAll, "round_robin", []string{"rate=150", "wrr_update=100", "wrr_blackout=0", "wrr_penalty=1e300", "retries=1"}},
		{"a58 kill every server", four, []model.Record{entry(t, 800, "kill"), entry(t, 1800, "restart")}, "round_robin", []string{"rate=150", "wrr_update=100", "wrr_blackout=0", "wrr_expiration=100"}},
		{"errors_active huge", four, []model.Record{entry(t, 500, "fail", "server=1")}, "least_outstanding", []string{"rate=150", "errors_active=1e12", "retries=1"}},
		{"errors_active huge every server failing", four, failAll, "least_outstanding", []string{"rate=150", "errors_active=1e12", "retries=1", "hedge=3"}},
		{"exponential hops hedge cancel", four, nil, "least_outstanding", []string{"rate=150", "hop_law=exponential", "hedge=2", "hedge_cancel=true", "service=lognormal", "cv=3"}},
		{"exponential hops hedge cancel tiny queue", four, killRestart, "random", []string{"rate=180", "hop_law=exponential", "hop=20", "hedge=0.5", "hedge_cancel=true", "queue=1", "discipline=lifo", "drop_expired=true", "timeout=50", "retries=2"}},
		{"everything open", four, killRestart, "least_outstanding", append([]string{"rate=150"}, everything...)},
		{"everything open failing", four, failAll, "least_outstanding", append([]string{"rate=150"}, everything...)},
		{"everything a58", four, append([]model.Record{entry(t, 300, "fail", "server=3", "factor=0.7")}, killRestart...), "round_robin",
			append([]string{"rate=150", "hop_law=exponential", "wrr_update=100", "wrr_blackout=0", "wrr_penalty=5"}, everything...)},
		{"everything closed", four, killRestart, "least_outstanding", append([]string{"users=30", "think=5"}, everything...)},
		{"everything closed failing", four, failAll, "least_outstanding", append([]string{"users=30", "think=1", "hop=0.5"}, everything...)},
		{"closed loop aimd pinned", []model.Record{srvClass(t, 2)}, nil, "least_outstanding", []string{"users=10", "think=1", "limiter=aimd", "limit_min=1", "limit_max=1", "limit_initial=1", "queue=0", "aimd_round=true"}},
		{"closed loop breakers all failing", four, failAll, "jsq", []string{"users=10", "think=0.5", "cb_threshold=0.5", "cb_open=0.001", "retries=2", "backoff=0"}},
		{"closed loop outlier all", four, failAll, "round_robin", []string{"users=10", "think=0.5", "outlier_consecutive_5xx=1", "outlier_max_ejection_percent=100", "hedge=1"}},
		{"warmup near horizon", four, nil, "least_outstanding", []string{"rate=150", "warmup=2999.9999", "hedge=10", "cb_threshold=0.5"}},
		// Ties: constant hops and service make a hedge, a timeout and an answer fall at the same instant.
		{"hedge = timeout = round trip", four, nil, "least_outstanding", []string{"rate=150", "service=constant", "mean=10", "hedge=30", "timeout=30", "retries=2", "jitter=none", "backoff=10"}},
		{"hedge = answer, cancel", four, nil, "least_outstanding", []string{"rate=150", "service=constant", "mean=10", "hedge=30", "hedge_cancel=true", "limiter=aimd", "limit_min=1"}},
		{"timeout below hedge", four, nil, "least_outstanding", []string{"rate=150", "hedge=50", "timeout=5", "retries=1"}},
		// Cancels meeting pauses, slow-downs, kills and adds.
		{"hedge cancel into pause slow kill add", []model.Record{srvClass(t, 3), srvClass(t, 1, "active=false")}, []model.Record{
			entry(t, 500, "pause", "server=0", "duration=300"), entry(t, 700, "slow", "server=1", "factor=0.1"), entry(t, 900, "kill", "server=2"),
			entry(t, 1000, "add"), entry(t, 1200, "restore", "server=1"), entry(t, 1500, "restart", "server=2")}, "least_outstanding",
			[]string{"rate=100", "hedge=8", "hedge_cancel=true", "hop_law=exponential", "outlier_consecutive_5xx=1", "outlier_max_ejection_percent=100", "errors_active=20", "cb_threshold=0.5"}},
		{"errors_active kill restart", four, killRestart, "least_outstanding", []string{"rate=150", "errors_active=1e9", "retries=2", "hedge=20"}},
		{"gc pauses hedge cancel limiter", []model.Record{srvClass(t, 4, "gc_every=300", "gc_pause=100")}, nil, "least_outstanding",
			[]string{"rate=100", "hedge=10", "hedge_cancel=true", "limiter=gradient2", "limit_min=1", "gradient_baseline=unqueued", "drop_expired=true", "timeout=40", "retries=1"}},
		{"closed loop one user hedging cancel", one, nil, "least_outstanding", []string{"users=1", "think=0.1", "hedge=0.001", "hedge_cancel=true", "hop_law=exponential", "hop=0.5"}},
		// The largest finite times: nothing may overflow into +Inf or NaN (base ejection × multiplier, now + delay).
		{"huge times", four, failAll, "least_outstanding", []string{"rate=150", "hedge=1e308", "timeout=1e308", "retries=2", "backoff=1e308",
			"cb_threshold=0.5", "cb_open=1e308", "errors_active=1e308", "outlier_consecutive_5xx=1", "outlier_base_ejection=1e308",
			"outlier_max_ejection_percent=100", "outlier_interval=100", "limiter=aimd", "limit_min=1", "aimd_timeout=1e308"}},
		{"huge times a58", four, failAll, "round_robin", []string{"rate=150", "wrr_update=100", "wrr_blackout=1e308", "wrr_expiration=1e308", "wrr_penalty=1e308", "hedge=1e308"}},
		// A58 with a server added between two weight updates: the scheduler must hold it at once (it used to loop
		// forever in strideScheduler.next when the hedge's exclusion or an ejection left only the new server eligible).
		{"a58 add hedge", []model.Record{srvClass(t, 1), srvClass(t, 1, "active=false")}, []model.Record{entry(t, 100, "add")}, "round_robin",
			[]string{"rate=100", "wrr_update=300", "hedge=1"}},
		{"a58 add, the old server ejected", []model.Record{srvClass(t, 1), srvClass(t, 2, "active=false")}, []model.Record{entry(t, 50, "fail", "server=0"),
			entry(t, 100, "add"), entry(t, 2000, "add")}, "round_robin", []string{"rate=100", "wrr_update=1000", "outlier_consecutive_5xx=1",
			"outlier_max_ejection_percent=100", "outlier_interval=5000", "retries=1"}},
		{"closed loop warmup near horizon", four, killRestart, "least_outstanding", append([]string{"users=10", "think=3", "warmup=2999.99"}, everything...)},
	}
}

// runBounded runs p with seed within limit, failing the test (and not waiting for it) when the run does not end.
func runBounded(t *testing.T, name string, p model.Point, seed uint64, limit time.Duration) (out outcome) {
	t.Helper()
	done := make(chan outcome, 1)
	panicked := make(chan any, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				panicked <- r
			}
		}()
		done <- run(t, p, seed)
	}()
	select {
	case out = <-done:
		return out
	case r := <-panicked:
		t.Fatalf("%s seed %d: panic: %v", name, seed, r)
	case <-time.After(limit):
		t.Fatalf("%s seed %d: did not end within %v", name, seed, limit)
	}
	return
}

// Every hostile scenario ends without a panic, within a bound, with balanced books (no warning, offered = succeeded +
// failed + pending, attempts = requests + retries + hedges), and an open loop drained after the horizon leaves no
// request pending and no attempt record live, as TestBooksEveryScenario requires of the ordinary ones.
func TestHostileScenarios(t *testing.T) {
	const h = 3000.0
	for _, s := range hostileScenarios(t) {
		p := s.build(t, h)
		c := configOf(p)
		for seed := uint64(1); seed <= 2; seed++ {
			out := runBounded(t, s.name, p, seed, time.Minute)
			if out.warning != "" {
				t.Errorf("%s seed %d: %s", s.name, seed, out.warning)
			}
			if o := out; o.offered != o.succeeded+o.failed+o.pending || o.attempts != o.offered+o.retries+o.hedges || (c.warmup == 0 && o.offered < 10) {
				t.Errorf("%s seed %d: offered %d, succeeded %d, failed %d, pending %d, attempts %d, retries %d, hedges %d", s.name, seed,
					o.offered, o.succeeded, o.failed, o.pending, o.attempts, o.retries, o.hedges)
			}
			if c.warmup == 0 {
				seriesSums(t, s.name, out)
			}
			checkDrained(t, s.name, p, h, seed)
		}
	}
}

// The series bin is observation only: a scenario's runs row (the hostile ones and the books' ones) is the same with
// bin = 0 (no series), the default 250 ms and an odd 7.3 ms, and with the series on or off. (The limiter's mean_limit
// used to be summed in pieces split at the bins' ends, so that bin = 7.3 moved it by an ulp.)
func TestHostileBinIsObservationOnly(t *testing.T) {
	const h = 6000.0
	m := Model{}
	for _, s := range append(hostileScenarios(t), scenarios(t)...) {
		var want string
		for _, bin := range []string{"0", "250", "7.3"} {
			p := point(t, s.classes, s.timeline, s.pol, append(append([]string{}, s.set...), "horizon="+ftoa(h), "bin="+bin)...)
			seed := model.Seed{Run: 11, Policy: 5}
			row, err := m.Run(context.Background(), p, seed)
			if err != nil {
				t.Fatal(err)
			}
			srow, _, err := m.RunSeries(context.Background(), p, seed)
			if err != nil {
				t.Fatal(err)
			}
			a, b := fmt.Sprint(row), fmt.Sprint(srow)
			if strings.Contains(a, "NaN") || strings.Contains(a, "Inf") {
				t.Errorf("%s bin %s: a NaN or infinite value in the row (undefined metrics are null): %s", s.name, bin, a)
			}
			if a != b {
				t.Errorf("%s bin %s: the row with the series differs from the row without", s.name, bin)
			}
			if want == "" {
				want = a
			} else if a != want {
				t.Errorf("%s bin %s: the row differs from bin 0's", s.name, bin)
			}
		}
	}
}
