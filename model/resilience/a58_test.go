package resilience

import (
	"fmt"
	"math"
	"os"
	"testing"

	"lbsweep/model"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// TestA58Weights checks wrrWeights against A58's rules: the formula, empty reports ignored, the blackout period and
// the expiration.
func TestA58Weights(t *testing.T) {
	w := newWRRWeights(wrrConfig{blackout: 10, expiration: 100, penalty: 1}, 3)
	near := func(rule string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-12*max(1, math.Abs(want)) {
			t.Errorf("%s: weight %v, want %v", rule, got, want)
		}
	}
	near("A58: a server that never reported has no weight (0)", w.get(0, 0), 0)
	w.report(0, 100, 0, 0.5, 0)
	near("A58: \"if blackout_period > 0 && now - non_empty_since < blackout_period\": 0 within the blackout", w.get(0, 9.999), 0)
	near("A58: weight = qps/(utilization + eps/qps·penalty) = 100/0.5 once the blackout has passed", w.get(0, 10), 200)
	w.report(0, 100, 50, 0.5, 20)
	near("A58: the error penalty: 100/(0.5 + 50/100·1) = 100", w.get(0, 20), 100)
	w.report(0, 0, 0, 0.5, 30)
	w.report(0, 80, 0, 0, 30)
	near("grpc-go: \"Ignoring empty load report\" (qps = 0 or utilization = 0): the weight is kept", w.get(0, 30), 100)
	near("A58: \"now - last_updated >= weight_expiration_period\": 0 at 20 + 100", w.get(0, 119.999), 100)
	near("... expired at 120", w.get(0, 120), 0)
	w.report(0, 100, 0, 0.25, 150)
	near("expiration unsets non_empty_since: the blackout applies again after a new report (150 + 10)", w.get(0, 159), 0)
	near("... and ends at 160", w.get(0, 160), 400)
	p := newWRRWeights(wrrConfig{blackout: 0, expiration: 100, penalty: 2.5}, 1)
	p.report(0, 40, 10, 0.2, 0)
	near("blackout_period = 0: no blackout; penalty 2.5: 40/(0.2 + 10/40·2.5)", p.get(0, 0), 40/(0.2+0.25*2.5))
}

// TestStrideScheduler checks the static stride scheduler: round robin with fewer than two weights, the mean for the
// servers without one, the scaling to 65535, and exact proportions: over n·65535 consecutive picks server i is
// picked exactly its scaled weight times (for each residue class of the generation, (w·g + 32767·i) mod 65535
// runs through the multiples of gcd(w, 65535) in a fixed class, gcd times each, and w/gcd of them fall in
// [65535 − w, 65535)), and an ineligible server is skipped.
func TestStrideScheduler(t *testing.T) {
	var s strideScheduler
	s.build([]int{0, 1, 2}, []float64{0, 0, 3}, 0)
	if !s.rr {
		t.Errorf("one weight of three: A58 \"all subchannels will get the same weight\": want round robin")
	}
	for i, want := range []int{0, 1, 2, 0, 1, 2} {
		if k := s.next(nil); k != want {
			t.Errorf("round robin pick %d: %d, want %d", i, k, want)
		}
	}
	s.build([]int{0, 1, 2}, []float64{1, 0, 3}, 0)
	if s.rr || s.scaled[0] != 21845 || s.scaled[1] != 43690 || s.scaled[2] != 65535 {
		t.Errorf("weights 1, unknown, 3: scaled %v (rr %v), want [21845 43690 65535]: the largest at 65535, the unknown at the mean 2", s.scaled, s.rr)
	}
	s.build([]int{0, 1}, []float64{2, 2}, 0)
	if !s.rr {
		t.Errorf("equal weights: grpc-go falls back to round robin")
	}
	order := []int{0, 1, 2, 3}
	s.build(order, []float64{100, 100, 100, 15.15}, 12345)
	counts := make([]int, 4)
	for s.seq != 12345+4*strideMax { // n·65535 consecutive sequence numbers
		counts[s.next(nil)]++
	}
	for i, c := range counts {
		if uint64(c) != s.scaled[i] {
			t.Errorf("server %d picked %d times in 4·65535 sequence numbers, want its scaled weight %d (scaled %v)", i, c, s.scaled[i], s.scaled)
		}
	}
	elig := []bool{false, true, true, true}
	for range 1000 {
		if s.next(elig) == 0 {
			t.Fatalf("picked an ineligible server")
		}
	}
}

// a58BrokenShare is the fixed point of the broken server's share under A58 on a fleet of nh healthy single-worker
// servers of service rate mu (per s) and one that answers every attempt with an error after db s, offered lambda
// requests/s, with error_utilization_penalty p. A healthy server reports qps q and utilization q/mu, so its weight
// is mu at any load (saturated too: qps = mu, utilization 1). The broken one, sent a share s, reports qps = eps =
// λs and utilization λs·db: weight w_b = λs/(λs·db + p). The scheduler's shares are ∝ the weights, so at a fixed
// point s = w_b/(w_b + nh·mu), i.e. w_b(1 − s) = nh·mu·s, and for s > 0: λ(1 − s) = nh·mu·(λs·db + p), so
// s* = (λ − nh·mu·p)/(λ(1 + nh·mu·db)) when λ > nh·mu·p, else 0. The iteration s ← w_b(s)/(w_b(s) + nh·mu), one
// step per report window, has slope nh·mu·w_b'/(w_b + nh·mu)² < 1 at s*: stable.
func a58BrokenShare(lambda float64, nh int, mu, db, p float64) float64 {
	return max(0, (lambda-float64(nh)*mu*p)/(lambda*(1+float64(nh)*mu*db)))
}

// TestA58SinkholeFixedPoint runs seed 000's sinkholing fleet (3 servers at 10 ms, one failing every attempt in 1 ms;
// 320 requests/s) under A58 and compares the broken server's share of the attempts, after the weights have settled,
// with a58BrokenShare, for the default penalty (s* = 20/416) and a milder one (0.5: s* = 170/416), within the
// replications' Student-t CI at alpha (Bonferroni over the two). The closed form is the fixed point of the
// deterministic map g; the reports' noise (a window's Poisson count of the broken server's answers) makes the share
// wander around it, and g's concavity biases its mean down by about ½·|g”|·Var(s)/(1 − g'). At penalty 1, g' =
// 0.91 at s* (slow, so the noise accumulates) and 1 s windows (15 answers each) gave 0.0438 ± 0.0047 over 60 runs,
// 0.004 low; 4 s windows quarter the variance and the bias (0.0477 ± 0.0023 over 40 runs), so that case uses them.
// At penalty 0.5, g' = 0.47 and 1 s windows suffice (0.4075 ± 0.0013 over 40 runs). A58REPS=N sets the
// replications (default 10).
func TestA58SinkholeFixedPoint(t *testing.T) {
	reps := 10
	if s := os.Getenv("A58REPS"); s != "" {
		fmt.Sscan(s, &reps)
	}
	for _, c := range []struct{ pen, window, warmup, horizon float64 }{{1, 4000, 150_000, 450_000}, {0.5, 1000, 60_000, 160_000}} {
		pen := c.pen
		p := point(t, []model.Record{srvClass(t, 3), srvClass(t, 1, "speed=10", "weight=1", "error_rate=1")}, nil, "round_robin",
			"rate=320", "mean=10", "service=constant", "hop=0", "error_latency=10", "bin=0",
			"wrr_update=100", fmt.Sprint("wrr_report=", c.window), "wrr_blackout=0", "wrr_expiration=180000", fmt.Sprint("wrr_penalty=", pen),
			fmt.Sprint("warmup=", c.warmup), fmt.Sprint("horizon=", c.horizon))
		want := a58BrokenShare(320, 3, 100, 0.001, pen)
		xs := make([]float64, reps)
		for r := range reps {
			out := run(t, p, uint64(100+r))
			total := int64(0)
			for _, c := range out.sent {
				total += c
			}
			xs[r] = float64(out.sent[3]) / float64(total)
		}
		m, sd := stat.MeanStdDev(xs, nil)
		half := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(reps - 1)}.Quantile(1-alpha/4) * sd / math.Sqrt(float64(reps))
		t.Logf("penalty %v: broken share %.5f ± %.5f (%d runs), closed form %.5f", pen, m, half, reps, want)
		if math.Abs(m-want) > half {
			t.Errorf("penalty %v: broken share %.5f ± %.5f, closed form %.5f", pen, m, half, want)
		}
	}
}

// TestA58HealthyShares: with no errors and constant service a server's report is qps/(qps·service) = its service
// rate per worker whatever its load, so A58 splits a healthy fleet in proportion to the servers' speeds once the
// weights are in: seed 000's fleet healthy (3 servers at 10 ms, one at 1 ms) gives the fast one 1000/1300 of the
// attempts, against round robin's 1/4 and least outstanding's load-dependent share. Exact but for the scaling to
// 65535 (6553.5 rounds to 6554: 65535/(65535 + 3·6554) = 0.769219) and the stride scheduler's restart at a random
// point at each rebuild (unbiased: 0.76922 ± 0.00057 over 60 runs; the replications' CI at alpha).
func TestA58HealthyShares(t *testing.T) {
	const reps = 10
	p := point(t, []model.Record{srvClass(t, 3), srvClass(t, 1, "speed=10", "weight=1")}, nil, "round_robin",
		"rate=320", "mean=10", "service=constant", "hop=0", "bin=0", "wrr_update=100", "wrr_report=250", "wrr_blackout=0",
		"warmup=2000", "horizon=22000")
	want := 65535.0 / (65535 + 3*6554)
	xs := make([]float64, reps)
	for r := range reps {
		out := run(t, p, uint64(200+r))
		total := int64(0)
		for _, c := range out.sent {
			total += c
		}
		xs[r] = float64(out.sent[3]) / float64(total)
	}
	m, sd := stat.MeanStdDev(xs, nil)
	half := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: reps - 1}.Quantile(1-alpha/2) * sd / math.Sqrt(reps)
	t.Logf("fast server's share %.5f ± %.5f, want %.6f", m, half, want)
	if math.Abs(m-want) > half {
		t.Errorf("fast server's share %.5f ± %.5f, want %.6f (1000/1300 after scaling)", m, half, want)
	}
}
