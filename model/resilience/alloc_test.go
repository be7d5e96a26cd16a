package resilience

import (
	"context"
	"math"
	"testing"

	"lbsweep/model"
)

// Steady state allocates nothing per request: the allocations of a run over 4T beyond those of a run over T are
// the growth of slices whose peak sizes rise with the run's length (peak concurrency grows like the logarithm of
// the length at a stationary point). The growable slices are the event heap and its handle table (4: heap, handle
// slots, their positions, free slots), the attempt pool, its free list and the request pool (3), each server's
// running list and queue ring (2 per server), the two latency sketches' stores (2 each) and the outstanding-count
// levels (3): with n servers, 14 + 2n slices. Go's append grows a slice by at least 1.25×, so a slice whose peak
// size quadrupled would grow ⌈log_1.25 4⌉ = 7 more times: at most 7·(14 + 2n) extra allocations, against the 3·N
// (N requests over T) that one allocation per request would add. With a time series, each bin adds its
// per-server snapshots (in_flight, queued, sent: one buffer) and the series and latency buffers grow as above (2 more slices).
func TestNoAllocationPerRequest(t *testing.T) {
	const h = 40000
	for _, s := range []scenario{
		{"open storm", []model.Record{srvClass(t, 3), srvClass(t, 1, "gc_every=2000", "gc_pause=300")},
			[]model.Record{entry(t, 3000, "slow", "server=1", "factor=0.25"), entry(t, 4500, "restore", "server=1")}, "peak_ewma",
			[]string{"rate=150", "timeout=60", "retries=3", "retry_budget=0.1", "queue=20", "discipline=lifo", "drop_expired=true", "tau=100"}},
		{"closed loop", []model.Record{srvClass(t, 4)}, []model.Record{entry(t, 2000, "kill", "server=2"), entry(t, 2500, "restart", "server=2")},
			"least_outstanding", []string{"users=20", "think=50", "timeout=80", "retries=2", "error_rate=0.05"}},
		{"every fix", []model.Record{srvClass(t, 3), srvClass(t, 1, "speed=10", "weight=1")},
			[]model.Record{entry(t, 1000, "fail", "server=3"), entry(t, 30000, "recover", "server=3")}, "round_robin",
			[]string{"rate=200", "mean=10", "error_latency=10", "timeout=100", "retries=1", "outlier_consecutive_5xx=5",
				"outlier_interval=1000", "outlier_base_ejection=3000", "outlier_max_ejection_percent=25", "errors_active=100",
				"wrr_update=100", "wrr_report=250", "wrr_blackout=1000", "fault_level=0.1"}},
		// Keys and caches: the keys' draws and a cache lookup per attempt, a kill emptying a cache, and an add
		// (keys_moved's arrays are allocated once per run).
		{"keys and caches", []model.Record{srvClass(t, 3), srvClass(t, 1, "active=false")},
			[]model.Record{entry(t, 2000, "kill", "server=1"), entry(t, 2500, "restart", "server=1"), entry(t, 3000, "add")}, "ring_hash",
			[]string{"rate=150", "keys=500", "zipf=1", "cache=50", "hit_cost=0.2", "timeout=80", "retries=2"}},
	} {
		for _, bin := range []float64{0, 250} {
			a1, a4, o1, o4 := allocsOver(t, func(h float64) model.Point { return s.build(t, h) }, h, bin)
			n := float64(configOf(s.build(t, h)).n)
			extra := a4 - a1
			bound := 7 * (14 + 2*n)
			if bin > 0 {
				extra -= float64(len(o4.series) - len(o1.series))
				bound += 7 * 2
			}
			perRequest := extra / float64(o4.offered-o1.offered)
			t.Logf("%s, bin %v: %v allocations over %v ms (%d requests), %v over %v ms (%d): %.2g per extra request beyond the bins' (bound %v in all)",
				s.name, bin, a1, h, o1.offered, a4, 4*h, o4.offered, perRequest, bound)
			if extra > bound || o4.offered < 3*o1.offered || math.IsNaN(perRequest) {
				t.Errorf("%s, bin %v: %v more allocations for %d more requests, bound %v", s.name, bin, extra, o4.offered-o1.offered, bound)
			}
		}
	}
}

// With every mechanism on at once (hedging at a running p90 with cancellation in service and a hedge budget, circuit
// breakers cycling on a server that fails throughout, outlier ejection, a Gradient2 limiter, timeouts, retries with
// a budget, a bounded LIFO queue with drop_expired and a GC-pausing server; and errors counted as active under least
// outstanding, or gRPC A58's weights in place of round robin) steady state still allocates nothing per request: the
// growth bound of TestNoAllocationPerRequest plus the breaker's per-attempt tags and the hedge delay's sketch stores
// (3 more growable slices), and with a series one buffer per bin (the limits are a part of it).
func TestNoAllocationEveryMechanism(t *testing.T) {
	const h = 40000
	classes := []model.Record{srvClass(t, 3), srvClass(t, 1, "error_rate=1"), srvClass(t, 1, "gc_every=2000", "gc_pause=300")}
	common := []string{"rate=200", "error_latency=1", "service=lognormal", "hedge_quantile=0.9", "hedge_window=500", "hedge_cancel=true", "hedge_budget=0.2",
		"cb_threshold=0.5", "cb_window=10", "cb_open=200", "limiter=gradient2", "limit_min=2", "gradient_baseline=unqueued",
		"timeout=150", "retries=2", "retry_budget=0.2", "queue=20", "discipline=lifo", "drop_expired=true",
		"outlier_consecutive_5xx=5", "outlier_interval=500", "outlier_base_ejection=300", "outlier_max_ejection_percent=40"}
	for _, sc := range []struct {
		pol string
		set []string
	}{{"least_outstanding", []string{"errors_active=100"}}, {"round_robin", []string{"wrr_update=200", "wrr_report=500", "wrr_blackout=500"}}} {
		for _, bin := range []float64{0, 250} {
			a1, a4, o1, o4 := allocsOver(t, func(h float64) model.Point {
				return point(t, classes, nil, sc.pol, append(append([]string{"horizon=" + ftoa(h)}, common...), sc.set...)...)
			}, h, bin)
			const n = 5
			extra := a4 - a1
			bound := 7.0 * (14 + 3 + 2*n)
			if bin > 0 {
				extra -= float64(len(o4.series) - len(o1.series))
				bound += 7 * 2
			}
			perRequest := extra / float64(o4.offered-o1.offered)
			t.Logf("%s, bin %v: %v allocations over %v ms (%d requests, %d hedges, %d breaker opens, %d ejections, %d limited), %v over %v ms: %.2g per extra request (bound %v in all)",
				sc.pol, bin, a1, h, o1.offered, o1.hedges, o1.cbOpens, o1.ejections, o1.limited, a4, 4*h, perRequest, bound)
			if o1.hedges == 0 || o1.cbOpens == 0 || o1.limited == 0 || o1.retries == 0 || o1.warning != "" {
				t.Errorf("%s, bin %v: a mechanism did not act: %d hedges, %d opens, %d limited, %d retries; %q", sc.pol, bin, o1.hedges, o1.cbOpens, o1.limited, o1.retries, o1.warning)
			}
			if extra > bound || o4.offered < 3*o1.offered || math.IsNaN(perRequest) {
				t.Errorf("%s, bin %v: %v more allocations for %d more requests, bound %v", sc.pol, bin, extra, o4.offered-o1.offered, bound)
			}
		}
	}
}

// allocsOver runs build(h) and build(4h) with series bin (0: none), each once under testing.AllocsPerRun, and returns
// their allocations and outcomes.
func allocsOver(t *testing.T, build func(h float64) model.Point, h, bin float64) (a1, a4 float64, o1, o4 outcome) {
	t.Helper()
	allocs := func(h float64) (float64, outcome) {
		p := build(h)
		c := configOf(p)
		c.bin = bin
		ps := c.policyServers()
		pc := policyConfig(p)
		var out outcome
		a := testing.AllocsPerRun(1, func() {
			var err error
			if out, err = simulate(context.Background(), c, model.Seed{Run: 1}, pc.New(ps), pc.Traits(ps).Observe); err != nil {
				t.Fatal(err)
			}
		})
		return a, out
	}
	a1, o1 = allocs(h)
	a4, o4 = allocs(4 * h)
	return a1, a4, o1, o4
}
