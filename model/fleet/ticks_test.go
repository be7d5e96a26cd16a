package fleet

import (
	"context"
	"crypto/sha256"
	"fmt"
	"math"
	"slices"
	"testing"

	"lbsweep/model"
	"lbsweep/model/policy"
	"lbsweep/model/sim"
)

// tickRun runs point p on the tick clock with the given arrivals per tick (counts[i] at tick i; none after) and policy
// pol observing when observe says, and returns the outcome.
func tickRun(t *testing.T, p model.Point, counts []int, pol policy.Policy, observe policy.When) outcome {
	t.Helper()
	c := config{classes: classesOf(p), lambda: p[pLambda].F, horizon: p[pHorizon].F, warmup: p[pWarmup].F, ticks: true}
	i := 0
	next := func() int {
		i++
		if i <= len(counts) {
			return counts[i-1]
		}
		return 0
	}
	out, err := newEngine(c, sim.NewStreams(model.Seed{Run: 1}), pol, observe).tickLoop(context.Background(), next)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// One server at constant 3 ticks, arrivals [2, 0, 1, 3] at ticks 0..3, worked by hand from §5.1's dispatch
// (start = max(now, free_at), done = start + 3, latency = done − now): tick 0: 0→3 (3), 3→6 (6); tick 2: 6→9 (7);
// tick 3: 9→12 (9), 12→15 (12), 15→18 (15). The policy is told those latencies at dispatch, at whole ticks.
func TestTicksOneServerByHand(t *testing.T) {
	p := point(t, []model.Record{rec(1, 3, true)}, 1, 4, "round_robin", "clock=ticks")
	seer := newRecorder(1)
	out := tickRun(t, p, []int{2, 0, 1, 3}, seer, policy.AtDispatch)
	want := []float64{3, 6, 7, 9, 12, 15}
	if !slices.Equal(seer.latency[0], want) {
		t.Errorf("latencies told at dispatch %v, want %v", seer.latency[0], want)
	}
	if at := []float64{0, 0, 2, 3, 3, 3}; !slices.Equal(seer.at, at) {
		t.Errorf("dispatched at %v, want %v", seer.at, at)
	}
	if out.all.Count() != 6 || out.all.Mean() != (3+6+7+9+12+15)/6.0 || out.peak != 5 {
		t.Errorf("%d responses, mean %v, peak %d; want 6, %v, 5 (at tick 3: the 2nd and 3rd outstanding, 3 new)",
			out.all.Count(), out.all.Mean(), out.peak, (3+6+7+9+12+15)/6.0)
	}
	// Observing at completion learns the same latencies at the completion ticks 3, 6, 9, 12, 15, 18.
	learner := newRecorder(1)
	tickRun(t, p, []int{2, 0, 1, 3}, learner, policy.AtCompletion)
	if !slices.Equal(learner.latency[0], want) || !slices.Equal(learner.at, []float64{3, 6, 9, 12, 15, 18}) {
		t.Errorf("learned %v at %v", learner.latency[0], learner.at)
	}
}

// Retire before route (§5.6): server 0 answers in 1 tick, server 1 in 5, least outstanding with first-wins ties. A
// request sent to server 0 at tick t is retired at t+1 before that tick's arrivals are routed, so one arrival per
// tick always finds server 0 idle: all go there, each answered in 1 tick. Arrivals of one tick see each other: with 3
// at tick 0, the first goes to server 0, the second to server 1 (server 0 has 1 outstanding), the third to server 0
// again (a tie at 1, first wins), where it waits for the first: latencies 1, 5, 2.
func TestTicksRetireBeforeRoute(t *testing.T) {
	p := point(t, []model.Record{rec(1, 1, true), rec(1, 5, true)}, 1, 10, "least_outstanding", "clock=ticks")
	mk := func() policy.Policy { cfg := configOf(p); return cfg.New(policyServers(classesOf(p))) }
	out := tickRun(t, p, []int{1, 1, 1, 1, 1, 1, 1, 1, 1, 1}, mk(), policy.Never)
	if !slices.Equal(out.sent, []int64{10, 0}) || out.all.Mean() != 1 || out.peak != 1 {
		t.Errorf("one arrival a tick: sent %v, mean latency %v, peak %d; want [10 0], 1, 1", out.sent, out.all.Mean(), out.peak)
	}
	out = tickRun(t, p, []int{3}, mk(), policy.Never)
	if !slices.Equal(out.sent, []int64{2, 1}) || out.all.Mean() != (1+5+2)/3.0 {
		t.Errorf("three arrivals in one tick: sent %v, mean latency %v; want [2 1], %v", out.sent, out.all.Mean(), (1+5+2)/3.0)
	}
	// The same arrivals in continuous time, a tick apart: a response due at the instant of an arrival is also handled
	// first, so the difference is only within a tick. Tick 0's three arrivals are what continuous time cannot batch.
}

// The responses of one tick are retired server by server in list order, each server's in dispatch order (the toy's
// `for b in fleet: b.retire(now)`), whatever order they were scheduled in: a policy observing at completion is told
// them in that order.
func TestTicksRetireOrder(t *testing.T) {
	// Server 0 answers in 1 tick, server 1 in 2. The recorder routes tick 0's arrival to server 1 (done 2) and tick
	// 1's to server 0 (done 2): scheduled server 1 first, both due at tick 2, retired server 0 first.
	p := point(t, []model.Record{rec(1, 1, true), rec(1, 2, true)}, 1, 2, "round_robin", "clock=ticks")
	order := &orderRecorder{recorder: newRecorder(2)}
	order.next = 1
	tickRun(t, p, []int{1, 1}, order, policy.AtCompletion)
	if !slices.Equal(order.servers, []int{0, 1}) || !slices.Equal(order.at, []float64{2, 2}) {
		t.Errorf("retired servers %v at %v, want [0 1] at [2 2] (list order, not scheduling order)", order.servers, order.at)
	}
}

// orderRecorder is a recorder that also keeps the servers in observation order.
type orderRecorder struct {
	*recorder
	servers []int
}

func (o *orderRecorder) Observe(k int, latency, now float64, oc policy.Outcome) {
	o.servers = append(o.servers, k)
	o.recorder.Observe(k, latency, now, oc)
}

// Durations on the tick clock are whole ticks ≥ 1: constant service takes its mean exactly, random service the
// continuous draw rounded, at least 1; every latency and percentile is then whole.
func TestTickDurations(t *testing.T) {
	r := sim.NewRand(5, 1)
	for _, c := range []struct {
		service int
		mean    float64
	}{{Constant, 10}, {Constant, 1}, {Exponential, 10}, {Lognormal, 0.4}} {
		p := point(t, []model.Record{rec(1, c.mean, true)}, 0.05, 100, "round_robin", "clock=ticks", "service="+serviceChoices[c.service])
		cl := classesOf(p)[0]
		for range 1000 {
			d := tickDuration(&cl, r)
			if d < 1 || d != math.Trunc(d) || c.service == Constant && d != c.mean {
				t.Fatalf("%s mean %v: duration %v", serviceChoices[c.service], c.mean, d)
			}
		}
		row, _ := runRow(Model{}, p, model.Seed{Run: 3})
		for _, m := range []int{mP50Latency, mP99Latency, mMeanLatency} {
			if x := row[m].F * float64(row[mRequests].I); m == mMeanLatency && math.Abs(x-math.Round(x)) > 1e-6 ||
				m != mMeanLatency && row[m].F != math.Trunc(row[m].F) {
				t.Errorf("%s mean %v: %s = %v is not whole", serviceChoices[c.service], c.mean, metrics.Columns()[m].Name, row[m].F)
			}
		}
	}
}

// The per-tick counts are Poisson(λ): over 10^5 ticks at λ = 0.32 the mean and variance both estimate λ (Poisson's
// dispersion index is 1) and P(0) = e^−λ; each within 4 standard errors (two-sided, about 6·10^-5 each).
func TestPoissonCounts(t *testing.T) {
	const lambda, ticks = 0.32, 100_000
	next := poissonCounts(sim.NewRand(9, 2), lambda)
	sum, sum2, zeros := 0.0, 0.0, 0.0
	for range ticks {
		k := float64(next())
		sum, sum2 = sum+k, sum2+k*k
		if k == 0 {
			zeros++
		}
	}
	mean, v := sum/ticks, sum2/ticks-(sum/ticks)*(sum/ticks)
	p0 := math.Exp(-lambda)
	// Standard errors: of the mean √(λ/N); of the variance √((μ4 − σ⁴)/N) with Poisson μ4 = λ + 3λ²; of P(0)
	// √(p0(1−p0)/N).
	if se := math.Sqrt(lambda / ticks); math.Abs(mean-lambda) > 4*se {
		t.Errorf("mean count %v, want %v ± %v", mean, lambda, 4*se)
	}
	if se := math.Sqrt((lambda + 3*lambda*lambda - lambda*lambda) / ticks); math.Abs(v-lambda) > 4*se {
		t.Errorf("count variance %v, want %v ± %v", v, lambda, 4*se)
	}
	if se := math.Sqrt(p0 * (1 - p0) / ticks); math.Abs(zeros/ticks-p0) > 4*se {
		t.Errorf("P(0) %v, want %v ± %v", zeros/ticks, p0, 4*se)
	}
}

// Seed 000 §6.1 on the tick clock: the twin worlds route identically for every outcome-blind policy (equality of
// every count, latency, estimate and event), and only goodput moves; ewma_success, which reads outcomes, does not.
func TestTwinWorldsTicks(t *testing.T) {
	for _, c := range []struct {
		name string
		set  []string
	}{
		{"round_robin", nil}, {"random", nil}, {"least_outstanding", nil}, {"least_outstanding", []string{"tie=random"}},
		{"ewma", []string{"observe=dispatch"}}, {"ewma", []string{"observe=completion"}},
		{"ewma", []string{"observe=dispatch", "d=2"}}, {"jsq_d", []string{"d=2"}},
	} {
		for _, fleet := range []string{"", "service=exponential", "slots=2"} {
			name := fmt.Sprintf("%s %v %s", c.name, c.set, fleet)
			set := append([]string{"mean=10", "clock=ticks"}, c.set...)
			if fleet != "" {
				set = append(set, fleet)
			}
			healthy := run(point(t, sinkhole(false), 0.32, 5000, c.name, set...), 11)
			broken := run(point(t, sinkhole(true), 0.32, 5000, c.name, set...), 11)
			if !slices.Equal(healthy.sent, broken.sent) || healthy.events != broken.events ||
				healthy.all.Mean() != broken.all.Mean() || healthy.all.Quantile(0.99) != broken.all.Quantile(0.99) ||
				!slices.Equal(healthy.outstanding, broken.outstanding) || healthy.peak != broken.peak {
				t.Errorf("%s: the worlds differ: sent %v vs %v, mean latency %v vs %v", name, healthy.sent, broken.sent,
					healthy.all.Mean(), broken.all.Mean())
			}
			if e, ok := healthy.final.(interface{ Estimates() []float64 }); ok {
				if he, be := e.Estimates(), broken.final.(interface{ Estimates() []float64 }).Estimates(); !slices.Equal(he, be) {
					t.Errorf("%s: EWMA estimates %v vs %v", name, he, be)
				}
			}
			if broken.sent[3] == 0 || healthy.ok.Count() == broken.ok.Count() {
				t.Errorf("%s: the broken backend got %d requests, goodput %d in both worlds", name, broken.sent[3], healthy.ok.Count())
			}
		}
	}
	healthy := run(point(t, sinkhole(false), 0.32, 5000, "ewma_success", "mean=10", "observe=dispatch", "clock=ticks"), 11)
	broken := run(point(t, sinkhole(true), 0.32, 5000, "ewma_success", "mean=10", "observe=dispatch", "clock=ticks"), 11)
	if slices.Equal(healthy.sent, broken.sent) {
		t.Errorf("ewma_success routes identically in both worlds (%v): it should read outcomes", healthy.sent)
	}
}

// The tick clock is not the continuous one: the same seed gives other routing (the batching is visible), and for
// least connections with the broken backend listed first the share rises from continuous time's towards the toy's
// 85.38% (§7.2): every run here, tick share above continuous share.
func TestTicksDifferFromContinuous(t *testing.T) {
	first := []model.Record{rec(1, 1, false), rec(3, 10, true)}
	for seed := range uint64(5) {
		cont := run(point(t, first, 0.32, 20000, "least_outstanding", "mean=10"), seed)
		tick := run(point(t, first, 0.32, 20000, "least_outstanding", "mean=10", "clock=ticks"), seed)
		cs := float64(cont.sentBroken) / float64(cont.all.Count())
		ts := float64(tick.sentBroken) / float64(tick.all.Count())
		if !(ts > cs) {
			t.Errorf("seed %d: broken share %v on ticks, %v in continuous time", seed, ts, cs)
		}
	}
}

// Continuous time is unchanged by the tick clock's arrival: a digest of the rows of 12 continuous points (every
// service distribution, slots, warm-up, observe at dispatch and completion, power of d), pinned from the engine
// before the clock parameter existed (commit a2680a8).
func TestContinuousUnchanged(t *testing.T) {
	h := sha256.New()
	for _, c := range []struct {
		pol string
		set []string
	}{
		{"round_robin", nil}, {"least_outstanding", nil}, {"ewma", []string{"observe=dispatch"}},
		{"ewma", []string{"observe=completion", "d=2"}}, {"ewma_success", []string{"observe=dispatch"}},
		{"least_outstanding", []string{"tie=random", "service=exponential"}},
		{"ewma", []string{"observe=dispatch", "service=lognormal", "cv=2"}}, {"round_robin", []string{"slots=3"}},
		{"jsq_d", []string{"d=2", "warmup=500"}}, {"random", []string{"error_latency=50"}},
		{"smooth_wrr", nil}, {"peak_ewma", []string{"tau=10"}},
	} {
		p := point(t, sinkhole(true), 0.32, 4000, c.pol, append([]string{"mean=10"}, c.set...)...)
		row, err := runRow(Model{}, p, model.Seed{Run: 21, Policy: 4})
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(h, "%v\n", row)
	}
	const want = "cea0581d77fb0164bafcbf3bf200f40d2e3ac38279a0055e22e948820a707626"
	if got := fmt.Sprintf("%x", h.Sum(nil)); got != want {
		t.Errorf("continuous rows digest %s, want %s (pinned before the tick clock)", got, want)
	}
}

// The tick clock's checks name the parameter at fault: a fractional horizon or warm-up, and constant service whose
// latency (the mean, or the error latency of a broken class) is not a whole number ≥ 1.
func TestCheckTicks(t *testing.T) {
	base := func() model.Point {
		return point(t, sinkhole(true), 0.32, 100, "round_robin", "mean=10", "clock=ticks")
	}
	for _, c := range []struct {
		edit  func(p model.Point)
		param string
	}{
		{func(p model.Point) { p[pHorizon] = model.FloatValue(100.5) }, "horizon"},
		{func(p model.Point) { p[pWarmup] = model.FloatValue(0.5) }, "warmup"},
		{func(p model.Point) {
			p[pServers] = model.RecordsValue([]model.Record{rec(3, 10, true), rec(1, 2.5, false)})
		}, "servers"},
		{func(p model.Point) { p[pErrorLatency] = model.FloatValue(0.5) }, "servers"},
	} {
		p := base()
		c.edit(p)
		if err := (Model{}).Resolve(p); err != nil {
			t.Fatal(err)
		}
		_, err := Model{}.Check(p, model.CheckOptions{})
		if is, ok := err.(model.Issue); !ok || is.Param != c.param {
			t.Errorf("want an issue with %s, got %v", c.param, err)
		}
		p[pClock] = model.Value{} // continuous time takes them
		if _, err := (Model{}).Check(p, model.CheckOptions{}); err != nil {
			t.Errorf("continuous time refuses the same point: %v", err)
		}
	}
	// Random service may have any mean: its draws are rounded.
	p := point(t, []model.Record{rec(1, 2.5, true)}, 0.1, 100, "round_robin", "clock=ticks", "service=exponential")
	if p[pClock].I != Ticks {
		t.Fatal("clock not set")
	}
}

// BenchmarkIdleTicks times ticks with almost no arrivals, the per-tick work Cost counts as tickCost events.
func BenchmarkIdleTicks(b *testing.B) {
	p := point(b, sinkhole(true), 1e-9, 1e6, "round_robin", "mean=10", "clock=ticks")
	for range b.N {
		run(p, 1)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e6, "ns/tick")
}

// BenchmarkSinkholeTicks times seed 000's run on the tick clock (about 6400 requests, 20000 ticks).
func BenchmarkSinkholeTicks(b *testing.B) {
	p := point(b, sinkhole(true), 0.32, 20000, "ewma", "mean=10", "clock=ticks", "observe=dispatch")
	var events int64
	for range b.N {
		events += run(p, 1).events
	}
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
}
