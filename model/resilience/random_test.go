package resilience

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"lbsweep/model"
)

// randomScenario draws a configuration from the model's space: one to three server classes (workers, speeds, error
// rates, GC pauses, an inactive class), an open or a closed loop, queue discipline and bound, drop_expired, service
// and hop laws, timeouts, retries, jitter, budget, a policy, and up to six timeline entries. Entries Check refuses
// (a restore with nothing to restore, …) are dropped one by one until it accepts the point.
func randomScenario(t *testing.T, r *rand.Rand) scenario {
	pick := func(xs ...string) string { return xs[r.IntN(len(xs))] }
	var classes []model.Record
	inactive := false
	for i := range 1 + r.IntN(3) {
		kv := []string{fmt.Sprint("workers=", 1+r.IntN(3))}
		if r.IntN(3) == 0 {
			kv = append(kv, "speed="+pick("0.5", "2"))
		}
		if r.IntN(4) == 0 {
			kv = append(kv, "error_rate="+pick("0.05", "0.5", "1"))
		}
		if r.IntN(3) == 0 {
			kv = append(kv, "gc_every="+pick("500", "1000"), "gc_pause="+pick("50", "200"))
		}
		if i > 0 && !inactive && r.IntN(3) == 0 {
			kv, inactive = append(kv, "active=false"), true
		}
		classes = append(classes, srvClass(t, 1+r.IntN(3), kv...))
	}
	set := []string{"mean=" + pick("5", "20"), "hop=" + pick("0", "1", "5"), "hop_law=" + pick("constant", "exponential"),
		"service=" + pick("constant", "exponential", "lognormal"), "discipline=" + pick("fifo", "lifo"),
		"drop_expired=" + pick("true", "false"), "retries=" + pick("0", "1", "3"), "jitter=" + pick("full", "none"),
		"backoff=" + pick("0", "10", "100")}
	open := r.IntN(3) > 0
	if open {
		set = append(set, "rate="+pick("50", "150", "400"))
	} else {
		set = append(set, "users="+pick("1", "5", "20"), "think="+pick("1", "20", "100"))
	}
	if r.IntN(2) == 0 {
		set = append(set, "queue="+pick("0", "2", "10"))
	}
	if r.IntN(3) > 0 {
		set = append(set, "timeout="+pick("3", "30", "200"))
	}
	if r.IntN(3) == 0 {
		set = append(set, "retry_budget="+pick("0.05", "0.5"))
	}
	if r.IntN(3) == 0 {
		set = append(set, "warmup=500")
	}
	pol := pick("round_robin", "random", "least_outstanding", "jsq", "smooth_wrr", "ewma")
	if !inactive && r.IntN(4) == 0 {
		pol = "peak_ewma"
		set = append(set, "tau=50")
	}
	var tl []model.Record
	for range r.IntN(7) {
		at := ftoa(float64(r.IntN(3000)))
		kv := []string{}
		if r.IntN(3) > 0 {
			kv = append(kv, fmt.Sprint("server=", r.IntN(2)))
		}
		action := pick("kill", "restart", "slow", "restore", "pause", "fail", "recover", "add", "rate")
		switch action {
		case "slow":
			kv = append(kv, "factor="+pick("0.25", "3"))
		case "fail":
			kv = append(kv, "factor="+pick("0.5", "1"))
		case "pause":
			kv = append(kv, "duration="+pick("10", "300"))
		case "rate":
			kv = []string{"rate=" + pick("20", "300")}
		case "add":
			kv = nil
		}
		e := fields(t, params[pTimeline].Fields, append([]string{"at=" + at, "action=" + action}, kv...)...)
		tl = append(tl, e)
	}
	for {
		p := raw(t, classes, tl, pol, append(append([]string{}, set...), "horizon=3000")...)
		is, _ := checkErr(p, model.CheckOptions{AllowUnstable: true})
		if is == nil {
			break
		}
		if is.Param != "timeline" || len(tl) == 0 {
			t.Fatalf("random scenario refused: %s: %s (%v %s %v)", is.Param, is.Message, classes, pol, set)
		}
		tl = tl[:len(tl)-1]
	}
	if len(tl) == 0 {
		tl = nil
	}
	return scenario{fmt.Sprint(pol, " ", set), classes, tl, pol, set}
}

// Random scenarios keep the books: each run's own check, the balancer's outstanding counts at every pick, the time
// series' sums (no warm-up), and the attempt pool after a drain (open loop) or a total kill (closed loop), as
// TestBooksEveryScenario states them; and causality as TestCausality states it, for one more change at a random time. 120 draws (30 with -short).
func TestRandomScenarios(t *testing.T) {
	n := 120
	if testing.Short() {
		n = 30
	}
	r := rand.New(rand.NewPCG(14, 4))
	const h = 3000.0
	for i := range n {
		s := randomScenario(t, r)
		p := s.build(t, h)
		c := configOf(p)
		seed := uint64(i + 1)
		out := run(t, p, seed)
		name := fmt.Sprintf("draw %d (%s, timeline %d)", i, s.name, len(s.timeline))
		if out.warning != "" {
			t.Errorf("%s: %s", name, out.warning)
		}
		if c.warmup == 0 {
			seriesSums(t, name, out)
		}
		if _, f := recordPolicy(t, p, seed); f.bad > 0 {
			t.Errorf("%s: the outstanding counts were off at %d of %d picks", name, f.bad, len(f.picks))
		}
		end := drained(t, p, h, seed)
		if testing.Verbose() {
			t.Logf("%s: %d + %d events", name, out.events, end.events)
		}
		if end.warning != "" {
			t.Errorf("%s, with its tail: %s", name, end.warning)
		}
		if c.rate > 0 && (end.pending != 0 || end.liveReqs != 0 || end.liveAttempts != 0) {
			t.Errorf("%s: after the drain %d pending (%d live), %d attempt records live", name, end.pending, end.liveReqs, end.liveAttempts)
		}
		causal(t, name, r, p, h)
		if c.rate == 0 && c.hopLaw == HopConstant && c.timeout > 2*c.hop && (end.liveAttempts > end.liveReqs || end.liveReqs > c.users) {
			t.Errorf("%s: servers all down for 5 s, yet %d attempts live for %d requests", name, end.liveAttempts, end.liveReqs)
		}
	}
}

// causal adds one change at a random time t to point p (over horizon h): a pause, a slow-down, a fail or, in an
// open loop, a rate change, on a random server or every one. The time-series rows of the bins ending by t must be
// those of the run without it (RunSeries, one seed).
func causal(t *testing.T, name string, r *rand.Rand, p model.Point, h float64) {
	t.Helper()
	at := float64(1 + r.IntN(int(h)-1))
	var in []int // the servers in the fleet from the start (a timeline entry may name only those, or added ones)
	for k, ci := range configOf(p).serverClasses() {
		if configOf(p).classes[ci].active {
			in = append(in, k)
		}
	}
	kv := []string{fmt.Sprint("server=", in[r.IntN(len(in))])}
	if r.IntN(2) == 0 {
		kv = nil
	}
	var extra model.Record
	switch k := r.IntN(4); {
	case k == 0:
		extra = entry(t, at, "pause", append(kv, "duration=50")...)
	case k == 1:
		extra = entry(t, at, "slow", append(kv, "factor=0.5")...)
	case k == 2 || !p[pRate].Valid:
		extra = entry(t, at, "fail", kv...)
	default:
		extra = entry(t, at, "rate", "rate=500")
	}
	q := slices.Clone(p)
	q[pTimeline] = model.RecordsValue(append(slices.Clone(p[pTimeline].R), extra))
	if is, _ := checkErr(q, model.CheckOptions{AllowUnstable: true}); is != nil {
		t.Fatalf("%s: the extra change is refused: %s", name, is.Message)
	}
	seed := model.Seed{Run: uint64(at), Policy: 1}
	_, a, err := Model{}.RunSeries(context.Background(), p, seed)
	if err != nil {
		t.Fatal(err)
	}
	_, b, err := Model{}.RunSeries(context.Background(), q, seed)
	if err != nil {
		t.Fatal(err)
	}
	for i := range a {
		if end := a[i][0].F + configOf(p).bin; end <= at && !reflect.DeepEqual(a[i], b[i]) {
			t.Errorf("%s: with one more %s at %v the bin ending at %v differs", name, actionNames[extra[tAction].I], at, end)
			return
		}
	}
}
