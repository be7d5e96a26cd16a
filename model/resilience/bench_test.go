package resilience_test

import (
	"context"
	"fmt"
	"testing"

	"lbsweep/experiments"
	"lbsweep/model"
	"lbsweep/model/resilience"
	"lbsweep/results/schema"
)

// Configurations like seed 004's scenarios, as [params] TOML (the four experiments' specs have their own): each a
// 30 s run with a 5 s warm-up and no time series (bin = 0; a series adds two small slices per bin).
var benchConfigs = map[string]string{
	// rr-slow: 400 requests/s over 5 servers of 2 workers (20 ms mean work: 80% load); server 2 at a quarter speed
	// from 10 s to 20 s, round robin keeping a queue on it (no timeouts).
	"rr-slow": `servers = [{ count = 5 }]
workers = 2
rate = 400.0
timeline = [{ at = 10000.0, server = 2, action = "slow", factor = 0.25 }, { at = 20000.0, server = 2, action = "restore" }]
policy = "round_robin"`,
	// retry-storm: 70% load on 4 servers of 4 workers, every server at half speed for 1.5 s, 100 ms timeouts and
	// three retries: the retries keep the fleet overloaded after the slowdown (3.4 attempts per request over the
	// window, the most events per request of the four).
	"retry-storm": `servers = [{ count = 4 }]
workers = 4
rate = 560.0
timeout = 100.0
retries = 3
timeline = [{ at = 10000.0, action = "slow", factor = 0.5 }, { at = 11500.0, action = "restore" }]
policy = { name = "least_outstanding", tie = "random" }`,
	// closed loop: 200 users thinking 500 ms on average, 4 servers of 4 workers.
	"closed-loop": `servers = [{ count = 4 }]
workers = 4
users = 200
think = 500.0
policy = { name = "peak_ewma", tau = 1000.0 }`,
	// gc: a 300 ms pause every 2 s on one of 4 servers of 2 workers at 300 requests/s (75% of what is left).
	"gc": `servers = [{ count = 3 }, { count = 1, gc_every = 2000.0, gc_pause = 300.0 }]
workers = 2
rate = 300.0
policy = "round_robin"`,
	// caches: rr-slow's fleet and load with Zipf(1) keys over 10^4 and an LRU cache of 1000 keys per server (hits
	// at a tenth of the work), random dispatch: the keys' draws and a lookup per attempt.
	"caches": `servers = [{ count = 5 }]
workers = 2
rate = 400.0
keys = 10000
zipf = 1.0
cache = 1000
policy = "random"`,
	// mechanisms: rr-slow's fleet and load with issue 15's mechanisms on at once: hedging at the running p95,
	// circuit breakers, Envoy outlier ejection and a Gradient2 limiter (seed 004's baseline), 200 ms timeouts, and
	// server 2 failing fast (500s in 1 ms) from 10 s to 20 s.
	"mechanisms": `servers = [{ count = 5 }]
workers = 2
rate = 400.0
error_latency = 1.0
timeout = 200.0
hedge_quantile = 0.95
cb_threshold = 0.5
outlier_consecutive_5xx = 5
outlier_interval = 1000.0
outlier_base_ejection = 3000.0
outlier_max_ejection_percent = 20.0
limiter = "gradient2"
limit_min = 2
gradient_baseline = "unqueued"
timeline = [{ at = 10000.0, server = 2, action = "fail" }, { at = 20000.0, server = 2, action = "recover" }]
policy = { name = "least_outstanding", tie = "random" }`,
}

// benchPoint returns config name's resolved point with a horizon of horizon ms (warm-up 5 s) and the seed of
// replication rep.
func benchPoint(tb testing.TB, name string, horizon float64, rep int) (model.Point, model.Seed) {
	tb.Helper()
	text := fmt.Sprintf("name = \"bench\"\nmodel = \"resilience\"\nseed = 1\nreplications = %d\n[params]\nhorizon = %v\nwarmup = 5000.0\nbin = 0.0\n%s\n",
		rep+1, horizon, benchConfigs[name])
	s, err := experiments.Parse(name+".toml", text)
	if err != nil {
		tb.Fatalf("%v\n%s", err, text)
	}
	r := s.Run(rep)
	return r.Point, r.Seed
}

// col returns the index of metric column name.
func col(name string) int {
	for i, c := range (resilience.Model{}).Metrics() {
		if c.Name == name {
			return i
		}
	}
	panic("no column " + name)
}

// benchRun times whole runs (setup, warm-up, measurement, percentiles) of config name and reports simulated
// requests (those offered in the 25 s window) and events (all) per second of wall-clock time, and events per run.
// Compile with the sweep binary's profile (go test -pgo=cmd/sweep/default.pgo), as the supermarket's benchmarks.
func benchRun(b *testing.B, name string) {
	p, seed := benchPoint(b, name, 30000, 0)
	offered, events := col("offered"), col("events")
	var reqs, evs int64
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		seed.Run = uint64(i + 1)
		row, err := resilience.Model{}.Run(context.Background(), p, seed)
		if err != nil {
			b.Fatal(err)
		}
		reqs += row[offered].I
		evs += row[events].I
	}
	b.ReportMetric(float64(reqs)/b.Elapsed().Seconds(), "requests/s")
	b.ReportMetric(float64(evs)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(evs)/float64(b.N), "events/op")
}

func BenchmarkRRSlow(b *testing.B)     { benchRun(b, "rr-slow") }
func BenchmarkRetryStorm(b *testing.B) { benchRun(b, "retry-storm") }
func BenchmarkClosedLoop(b *testing.B) { benchRun(b, "closed-loop") }
func BenchmarkGC(b *testing.B)         { benchRun(b, "gc") }
func BenchmarkMechanisms(b *testing.B) { benchRun(b, "mechanisms") }
func BenchmarkCaches(b *testing.B)     { benchRun(b, "caches") }

// Model.Cost, the estimate that shards and the progress bar use, is within a factor 2 of the events a run simulates
// (the mean over a few replications; the events column counts the warm-up too, as Cost does).
func TestCostEstimate(t *testing.T) {
	if testing.Short() {
		t.Skip("runs each configuration")
	}
	events := col("events")
	for _, name := range []string{"rr-slow", "retry-storm", "closed-loop", "gc", "mechanisms"} {
		sum := 0.0
		const reps = 3
		var cost float64
		for rep := range reps {
			p, seed := benchPoint(t, name, 30000, rep)
			cost = resilience.Model{}.Cost(p)
			row, err := model.RunRow(context.Background(), resilience.Model{}, p, seed)
			if err != nil {
				t.Fatal(err)
			}
			sum += float64(row[events].I)
		}
		measured := sum / reps
		ratio := cost / measured
		t.Logf("%s: Cost %.4g, measured %.4g events: ratio %.3f", name, cost, measured, ratio)
		if !(ratio >= 0.5 && ratio <= 2) {
			t.Errorf("%s: Cost %.4g against %.4g measured events: ratio %.3f outside [1/2, 2]", name, cost, measured, ratio)
		}
	}
}

// A run allocates nothing per request in steady state: the attempt and request records are pooled and the queues,
// event list and sketches grow by doubling, so quadrupling the horizon adds a few allocations (each growable buffer
// doubles about log2(4) = 2 more times, a sketch adds a bucket block now and then), not one per extra request.
func TestNoAllocationPerRequest(t *testing.T) {
	if testing.Short() {
		t.Skip("runs each configuration")
	}
	offered := col("offered")
	for _, name := range []string{"rr-slow", "retry-storm", "closed-loop", "gc", "mechanisms"} {
		var allocs, reqs [2]float64
		for i, h := range []float64{30000, 120000} {
			p, seed := benchPoint(t, name, h, 0)
			var row schema.Row
			allocs[i] = testing.AllocsPerRun(3, func() {
				var err error
				if row, err = (resilience.Model{}).Run(context.Background(), p, seed); err != nil {
					t.Fatal(err)
				}
			})
			reqs[i] = float64(row[offered].I)
		}
		extra := allocs[1] - allocs[0]
		perReq := extra / (reqs[1] - reqs[0])
		t.Logf("%s: %.0f allocations at 30 s (%.0f requests), %.0f at 120 s (%.0f): %.0f more, %.2g per extra request", name, allocs[0], reqs[0], allocs[1], reqs[1], extra, perReq)
		// One allocation per request would be ≥ 1 per extra request; amortised growth of the k buffers is about 2k
		// for the quadrupled horizon, and k is far below the extra requests' 1/100.
		if perReq >= 0.01 {
			t.Errorf("%s: %.0f more allocations for %.0f more requests (%.2g per request): something allocates per request", name, extra, reqs[1]-reqs[0], perReq)
		}
	}
}
