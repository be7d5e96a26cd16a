package resilience

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
	"time"

	"lbsweep/model"
)

// withMechanisms adds the request-level mechanisms to a random scenario, each group with probability 1/2 and drawn
// values (hedging fixed or at a quantile, cancel, budget; breakers; an AIMD or Gradient2 limiter; outlier detection
// by consecutive 5xx or success rate; A58 with a round robin; errors counted as active), keeping a group only when
// Check accepts the point with it (a policy that does not honor eligibility refuses hedging, breakers and ejection).
func withMechanisms(t *testing.T, r *rand.Rand, s scenario) scenario {
	pick := func(xs ...string) string { return xs[r.IntN(len(xs))] }
	groups := [][]string{}
	if r.IntN(2) == 0 {
		g := []string{"hedge=" + pick("0.001", "2", "15", "60")}
		if r.IntN(2) == 0 {
			g = append(g, "hedge_quantile="+pick("0.01", "0.5", "0.95", "0.999"), "hedge_window="+pick("1", "100", "1000"))
		}
		if r.IntN(2) == 0 {
			g = append(g, "hedge_cancel=true")
		}
		if r.IntN(3) == 0 {
			g = append(g, "hedge_budget="+pick("0.01", "0.5", "10"))
		}
		groups = append(groups, g)
	}
	if r.IntN(2) == 0 {
		w := pick("10", "20", "50")
		groups = append(groups, []string{"cb_threshold=" + pick("0.1", "0.5", "1"), "cb_window=" + w, "cb_open=" + pick("0.001", "50", "500"), "cb_probes=" + pick("1", "3", w)})
	}
	if r.IntN(2) == 0 {
		lo := pick("1", "2", "5")
		g := []string{"limit_min=" + lo, "limit_initial=" + lo, "limit_max=" + pick("5", "50")}
		if r.IntN(2) == 0 {
			g = append(g, "limiter=aimd", "aimd_backoff="+pick("0.5", "0.9"), "aimd_timeout="+pick("1", "50"), "aimd_round="+pick("true", "false"))
		} else {
			g = append(g, "limiter=gradient2", "gradient_window="+pick("1", "10", "600"), "gradient_queue_size="+pick("0", "4"), "gradient_baseline="+pick("average", "unqueued"))
		}
		groups = append(groups, g)
	}
	if r.IntN(2) == 0 {
		g := []string{"outlier_consecutive_5xx=" + pick("1", "3", "1000000"), "outlier_interval=" + pick("10", "200"),
			"outlier_base_ejection=" + pick("10", "300"), "outlier_max_ejection_percent=" + pick("0", "34", "100")}
		if r.IntN(2) == 0 {
			g = append(g, "outlier_success_rate_minimum_hosts="+pick("1", "2"), "outlier_success_rate_request_volume="+pick("1", "10"), "outlier_success_rate_stdev_factor="+pick("0", "1900"))
		}
		groups = append(groups, g)
	}
	if s.pol == "round_robin" && r.IntN(2) == 0 {
		groups = append(groups, []string{"wrr_update=" + pick("100", "300"), "wrr_blackout=" + pick("0", "200"), "wrr_expiration=" + pick("100", "1000"),
			"wrr_penalty=" + pick("0", "1", "1e6"), "wrr_report=" + pick("10", "250")})
	}
	if r.IntN(3) == 0 {
		groups = append(groups, []string{"errors_active=" + pick("1", "100", "1e9")})
	}
	for _, g := range groups {
		set := append(append([]string{}, s.set...), g...)
		p := raw(t, s.classes, s.timeline, s.pol, append(append([]string{}, set...), "horizon=3000")...)
		if is, _ := checkErr(p, model.CheckOptions{AllowUnstable: true}); is == nil {
			s.set = set
		}
	}
	s.name = fmt.Sprint(s.pol, " ", s.set)
	return s
}

// Random scenarios with the mechanisms keep the books as TestRandomScenarios's do: each run's own check, the time
// series' sums (no warm-up), the pools after a drain (open loop), and causality. 60 draws (15 with -short;
// LBSWEEP_MECHANISM_DRAWS=N for a longer search).
func TestRandomMechanisms(t *testing.T) {
	n := 60
	if testing.Short() {
		n = 15
	}
	if v, err := strconv.Atoi(os.Getenv("LBSWEEP_MECHANISM_DRAWS")); err == nil {
		n = v
	}
	r := rand.New(rand.NewPCG(15, 15))
	const h = 3000.0
	for i := range n {
		s := withMechanisms(t, r, randomScenario(t, r))
		p := s.build(t, h)
		c := configOf(p)
		seed := uint64(i + 1)
		name := fmt.Sprintf("draw %d (%s, timeline %d)", i, s.name, len(s.timeline))
		if testing.Verbose() {
			t.Log(name)
		}
		out := runBounded(t, name, p, seed, time.Minute)
		if out.warning != "" {
			t.Errorf("%s: %s", name, out.warning)
		}
		if o := out; o.offered != o.succeeded+o.failed+o.pending || o.attempts != o.offered+o.retries+o.hedges {
			t.Errorf("%s: offered %d, succeeded %d, failed %d, pending %d, attempts %d, retries %d, hedges %d", name,
				o.offered, o.succeeded, o.failed, o.pending, o.attempts, o.retries, o.hedges)
		}
		if c.warmup == 0 {
			seriesSums(t, name, out)
		}
		end := drained(t, p, h, seed)
		if end.warning != "" {
			t.Errorf("%s, with its tail: %s", name, end.warning)
		}
		if c.rate > 0 && (end.pending != 0 || end.liveReqs != 0 || end.liveAttempts != 0) {
			t.Errorf("%s: after the drain %d pending (%d live), %d attempt records live", name, end.pending, end.liveReqs, end.liveAttempts)
		}
		causal(t, name, r, p, h)
	}
}
