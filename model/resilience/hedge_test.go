package resilience

import (
	"cmp"
	"context"
	"math"
	"slices"
	"testing"

	"lbsweep/model/policy"

	"lbsweep/analytic"
	"lbsweep/model"
)

// A hedge's loser, queued behind a paused server, is skipped once its cancel arrives, and the request is answered by
// its copy exactly H + 4·hop + mean after it arrived. One request (the rate change stops arrivals at once), two
// servers of one worker, constant work: server 0 pauses from 0 to 1000 ms, round robin sends the attempt there (it
// queues) and the copy, at H = 50 ms, to server 1 (the mask excludes server 0).
func TestHedgeLoserSkippedWhenQueued(t *testing.T) {
	const hop, mean, h = 5.0, 20.0, 50.0
	for _, cancel := range []string{"false", "true"} {
		p := point(t, []model.Record{srvClass(t, 2)}, []model.Record{entry(t, 0, "pause", "server=0", "duration=1000")},
			"round_robin", "rate=1", "service=constant", "mean=20", "hop=5", "hedge=50", "hedge_cancel="+cancel,
			"horizon=3000", "bin=0")
		out, f := scripted(t, p, 0)
		if out.offered != 1 || out.succeeded != 1 || out.hedges != 1 || out.hedgeWins != 1 || out.hedgeSkipped != 1 || out.hedgeCut != 0 {
			t.Fatalf("hedge_cancel %s: offered %d succeeded %d hedges %d wins %d skipped %d cut %d", cancel, out.offered,
				out.succeeded, out.hedges, out.hedgeWins, out.hedgeSkipped, out.hedgeCut)
		}
		if got, want := out.ok.Mean(), h+4*hop+mean; math.Abs(got-want) > 1e-9 {
			t.Errorf("hedge_cancel %s: latency %v, want H + 4·hop + mean = %v", cancel, got, want)
		}
		if len(f.picks) != 2 || f.picks[0].server != 0 || f.picks[1].server != 1 || f.picks[1].req.Attempt != 1 {
			t.Errorf("hedge_cancel %s: picks %+v, want server 0 then the copy on server 1", cancel, f.picks)
		}
		if out.busy != mean || out.wasted != 0 {
			t.Errorf("hedge_cancel %s: busy %v wasted %v: the skipped loser must cost no work", cancel, out.busy, out.wasted)
		}
		if out.warning != "" || out.liveAttempts != 0 {
			t.Errorf("hedge_cancel %s: %q, %d attempts live", cancel, out.warning, out.liveAttempts)
		}
	}
}

// A loser in service runs on unless hedge_cancel, which stops it when its cancel arrives: server 0 is slowed to
// 1/100 at 0, so the attempt (sent at 0, in service from 2·hop) is still running when the copy (sent at H) answers at
// H + 4·hop + mean; the cancel reaches server 0 two hops later. The loser's worker time up to then, H + 4·hop + mean,
// is wasted work (with hedge_cancel) or it runs its whole 100·mean (without).
func TestHedgeLoserCutInService(t *testing.T) {
	const hop, mean, h = 5.0, 20.0, 50.0
	for _, cancel := range []bool{false, true} {
		set := []string{"rate=1", "service=constant", "mean=20", "hop=5", "hedge=50", "horizon=5000", "bin=0"}
		if cancel {
			set = append(set, "hedge_cancel=true")
		}
		p := point(t, []model.Record{srvClass(t, 2)}, []model.Record{entry(t, 0, "slow", "server=0", "factor=0.01")},
			"round_robin", set...)
		out, _ := scripted(t, p, 0)
		if out.succeeded != 1 || out.hedgeWins != 1 || out.hedgeSkipped != 0 || out.hedgeCut != int64(b2i(cancel)) {
			t.Fatalf("hedge_cancel %v: succeeded %d wins %d skipped %d cut %d", cancel, out.succeeded, out.hedgeWins,
				out.hedgeSkipped, out.hedgeCut)
		}
		want := 100 * mean // the loser's whole work at 1/100 speed
		if cancel {
			want = h + 4*hop + mean
		}
		if math.Abs(out.wasted-want) > 1e-9 || math.Abs(out.busy-(want+mean)) > 1e-9 {
			t.Errorf("hedge_cancel %v: wasted %v busy %v, want %v and %v", cancel, out.wasted, out.busy, want, want+mean)
		}
		if out.warning != "" || out.liveAttempts != 0 {
			t.Errorf("hedge_cancel %v: %q, %d attempts live", cancel, out.warning, out.liveAttempts)
		}
	}
}

// Every copy goes to another server than its attempt's: with constant hops and a fixed H, a copy reaches the
// balancer exactly H after its attempt, so each copy's pick (Attempt 1, no retries) is matched to the attempt picked
// H earlier; every copy sent but those still on their way at the horizon is picked.
func TestHedgeGoesElsewhere(t *testing.T) {
	p := point(t, []model.Record{srvClass(t, 4)}, nil, "least_outstanding", "rate=150", "service=lognormal", "hedge=30",
		"horizon=20000", "bin=5")
	out, f := recordPolicy(t, p, 3)
	var firsts []pick // in time order
	for _, pk := range f.picks {
		if pk.req.Attempt == 0 {
			firsts = append(firsts, pk)
		}
	}
	copies := 0
	for _, pk := range f.picks {
		if pk.req.Attempt != 1 {
			continue
		}
		copies++
		// Floating point: (t + 30) + 5 − 30 need not be t + 5 exactly: the nearest attempt within 10^-9 ms.
		want := pk.req.Now - 30
		i, _ := slices.BinarySearchFunc(firsts, want, func(p pick, x float64) int { return cmp.Compare(p.req.Now, x) })
		k := -1
		for _, j := range []int{i - 1, i} {
			if j >= 0 && j < len(firsts) && math.Abs(firsts[j].req.Now-want) < 1e-9 {
				k = firsts[j].server
			}
		}
		if k < 0 {
			t.Fatalf("copy at %v: no attempt picked at %v", pk.req.Now, want)
		}
		if k == pk.server {
			t.Errorf("copy at %v went to server %d, its attempt's", pk.req.Now, k)
		}
	}
	// Copies sent in the last hop (the last 5 ms bin) reach the balancer after the horizon.
	if last := out.series[len(out.series)-1].counts.hedges; int64(copies) > out.hedges || int64(copies) < out.hedges-last || copies < 100 {
		t.Errorf("%d copies picked, %d hedges counted, %d in the last hop", copies, out.hedges, last)
	}
}

// At light load with no queueing (1000 workers a server, so no attempt ever waits) the hedged latency is exactly
// T = 4·hop + min(X₁, H + X₂): the hedge rate, the mean and the p99 over 6 runs of 40,000 requests agree with
// analytic.Hedged within 4 standard errors of their run-to-run mean (the p99 also within the sketch's 0.1%), for a
// fixed delay and for the running p95 (whose fixed point is 4·hop + the p95 of X, hedging 5%; 10 s windows of about
// 4000 latencies keep the estimate's own noise, about 1.5 ms, far below what moves the rate; the first window, with
// no estimate and so no hedging, is left out by the warm-up).
func TestHedgeLawAtLightLoad(t *testing.T) {
	const runs = 6
	for _, set := range [][]string{{"hedge=60", "warmup=1000"}, {"hedge_quantile=0.95", "hedge_window=10000", "warmup=11000"}} {
		p := point(t, []model.Record{srvClass(t, 10, "workers=1000")}, nil, "least_outstanding", append([]string{"rate=400",
			"service=lognormal", "cv=1", "mean=20", "hop=5", "horizon=101000", "bin=0"}, set...)...)
		c := configOf(p)
		s := analytic.LognormalSurvival(20, 1)
		d := analytic.Hedged{Base: 20, H: c.hedge, S: s}
		if c.hedgeQ > 0 {
			d.H = 20 + analytic.Hedged{H: math.Inf(1), S: s}.Quantile(0.95)
		}
		var rate, mean, p99 [runs]float64
		for i := range runs {
			out := run(t, p, uint64(i+1))
			if out.warning != "" {
				t.Fatal(out.warning)
			}
			rate[i] = float64(out.hedges) / float64(out.offered)
			mean[i] = out.ok.Mean()
			p99[i] = out.ok.Quantile(0.99)
		}
		check := func(name string, xs [runs]float64, want, extra float64) {
			m, sd := meanSD(xs[:])
			tol := 4*sd/math.Sqrt(runs) + extra
			t.Logf("%v %s: %.4f ± %.4f (sd/√n %.4f), theory %.4f", set, name, m, tol, sd/math.Sqrt(runs), want)
			if math.Abs(m-want) > tol {
				t.Errorf("%v %s: %.4f, theory %.4f, tolerance %.4f", set, name, m, want, tol)
			}
		}
		check("hedge rate", rate, d.HedgeRate(), 0)
		check("mean latency", mean, d.Mean(), 0)
		check("p99 latency", p99, d.Quantile(0.99), 0.001*d.Quantile(0.99))
	}
}

// scripted runs point p with requests arriving at the given times (ms) only, through a tap over round robin.
func scripted(t testing.TB, p model.Point, at ...float64) (outcome, *tap) {
	t.Helper()
	c := configOf(p)
	c.script = at
	f := &tap{n: c.n}
	out, err := simulate(context.Background(), c, model.Seed{Run: 1, Policy: 7}, f, policy.AtCompletion)
	if err != nil {
		t.Fatal(err)
	}
	return out, f
}

// meanSD returns the sample mean and standard deviation of xs.
func meanSD(xs []float64) (float64, float64) {
	m := 0.0
	for _, x := range xs {
		m += x
	}
	m /= float64(len(xs))
	v := 0.0
	for _, x := range xs {
		v += (x - m) * (x - m)
	}
	return m, math.Sqrt(v / float64(len(xs)-1))
}
