package resilience

import (
	"errors"
	"math"
	"strings"
	"testing"

	"lbsweep/model"
)

// checkErr resolves and checks p, returning the first Issue (nil when the point is valid).
func checkErr(p model.Point, o model.CheckOptions) (*model.Issue, []string) {
	var is model.Issue
	if err := (Model{}).Resolve(p); err != nil {
		if errors.As(err, &is) {
			return &is, nil
		}
		return &model.Issue{Param: "?", Message: err.Error()}, nil
	}
	w, err := (Model{}).Check(p, o)
	if err == nil {
		return nil, w
	}
	if errors.As(err, &is) {
		return &is, w
	}
	return &model.Issue{Param: "?", Message: err.Error()}, w
}

// Every invalid parameter and every timeline entry that cannot apply is an Issue naming the parameter, with a
// message that says what is wrong (each case's text must appear in it).
func TestCheckErrors(t *testing.T) {
	four := []model.Record{srvClass(t, 4)}
	open := func(set ...string) model.Point {
		return raw(t, four, nil, "round_robin", append([]string{"rate=100", "horizon=1000"}, set...)...)
	}
	closed := func(set ...string) model.Point {
		return raw(t, four, nil, "round_robin", append([]string{"users=5", "think=10", "horizon=1000"}, set...)...)
	}
	classes := func(r ...model.Record) model.Point {
		return raw(t, r, nil, "round_robin", "rate=100", "horizon=1000")
	}
	timeline := func(tl ...model.Record) model.Point {
		return raw(t, []model.Record{srvClass(t, 3), srvClass(t, 1, "active=false")}, tl, "round_robin", "rate=100", "horizon=1000")
	}
	set := func(p model.Point, i int, v model.Value) model.Point { p[i] = v; return p }
	for _, c := range []struct {
		p            model.Point
		param, words string
	}{
		{open("mean=0"), "mean", "0: need a finite mean service work > 0"},
		{set(open(), pMean, model.FloatValue(math.Inf(1))), "mean", "need a finite mean service work > 0"},
		{open("error_latency=-1"), "error_latency", "-1: need a finite error latency > 0"},
		{open("rate=0"), "rate", "0: need a finite rate > 0"},
		{open("timeout=0"), "timeout", "0: need a finite timeout > 0"},
		{open("horizon=-5"), "horizon", "-5: need a finite horizon > 0"},
		{open("hop=-1"), "hop", "-1: need a finite value ≥ 0"},
		{open("backoff=-1"), "backoff", "-1: need a finite value ≥ 0"},
		{open("warmup=-1"), "warmup", "-1: need a finite value ≥ 0"},
		{set(open(), pBin, model.FloatValue(math.NaN())), "bin", "need a finite value ≥ 0"},
		{closed("think=-1"), "think", "-1: need a finite value ≥ 0"},
		{open("workers=0"), "workers", "0: need 1 ≤ workers ≤ 100000"},
		{open("workers=100001"), "workers", "100001: need 1 ≤ workers"},
		{open("queue=-1"), "queue", "-1: need a queue of ≥ 0 attempts"},
		{open("service=lognormal", "cv=-1"), "cv", "-1: need 0 ≤ cv ≤ 100"},
		{open("service=lognormal", "cv=1e200"), "cv", "1e+200: need 0 ≤ cv ≤ 100"},
		{open("queue=1000000000000"), "queue", "at most 1e+09 attempts"},
		{open("rate=1e-300"), "rate", "1e-300: need a rate ≥ 1e-06 requests/s"},
		{closed("users=100000000"), "users", "need 1 ≤ users ≤ 1e+06"},
		{closed("think=1e-300", "hop=0"), "think", "users·horizon/(think + 4·hop)"},
		{raw(t, []model.Record{srvClass(t, 1000)}, nil, "round_robin", "rate=100", "horizon=1000", "bin=0.001"), "bin", "1e+09 per-server series cells"},
		{open("cv=0.5"), "cv", "given for exponential service, whose cv is fixed"},
		{open("error_rate=1.5"), "error_rate", "1.5: need 0 ≤ error_rate ≤ 1"},
		{open("retries=-1"), "retries", "-1: need 0 ≤ retries ≤ 100"},
		{open("retries=101"), "retries", "101: need 0 ≤ retries ≤ 100"},
		{open("retry_budget=0"), "retry_budget", "0: need 0 < retry_budget ≤ 10"},
		{open("retry_budget=11"), "retry_budget", "11: need 0 < retry_budget ≤ 10"},
		{open("users=3", "think=1"), "rate", "give exactly one of rate"},
		{set(open(), pRate, model.Value{}), "rate", "give exactly one of rate"},
		{closed("users=0"), "users", "0: need 1 ≤ users"},
		{set(closed(), pThink, model.Value{}), "think", "required with users"},
		{open("think=5"), "think", "only for a closed loop"},
		// A zero-time cycle: the rejected user re-sends at the same instant, forever (the run hung before this check).
		{closed("think=0", "hop=0", "queue=0"), "think", "0 with hop = 0: a request answered at once"},
		{open("warmup=1000"), "warmup", "1000: need 0 ≤ warmup < horizon (1000)"},
		{open("bin=0.0001"), "bin", "need 0 (no series) or a bin ≥ horizon/1000000"},
		{open("horizon=2e9", "bin=0"), "horizon", "rate·horizon = 2e+08 requests, more than 1e+08"},
		{open("rate=250"), "rate", "offered load 1.25 of the fleet's capacity"},
		{classes(srvClass(t, 2), srvClass(t, 1, "workers=0")), "servers", "element 2: workers 0, need 1 ≤ workers"},
		{classes(srvClass(t, 2, "speed=0")), "servers", "element 1: speed 0, need a finite speed > 0"},
		{classes(srvClass(t, 2, "weight=-1")), "servers", "element 1: weight -1, need a finite weight > 0"},
		{classes(srvClass(t, 2, "error_rate=2")), "servers", "element 1: error_rate 2, need 0 ≤ error_rate ≤ 1"},
		{classes(srvClass(t, 2, "gc_every=100")), "servers", "element 1: gc_every and gc_pause go together"},
		{classes(srvClass(t, 2, "gc_phase=100")), "servers", "element 1: gc_phase without gc_every"},
		{classes(srvClass(t, 2, "gc_every=100", "gc_pause=0")), "servers", "element 1: gc_pause 0, need a finite pause > 0"},
		{classes(srvClass(t, 2, "gc_every=100", "gc_pause=100")), "servers", "element 1: gc_every 100, need a finite period > gc_pause (100)"},
		{classes(srvClass(t, 2, "gc_every=100", "gc_pause=10", "gc_phase=-1")), "servers", "element 1: gc_phase -1, need a finite time ≥ 0"},
		{classes(srvClass(t, 2, "active=false")), "servers", "every server is inactive"},
		{classes(srvClass(t, 0)), "servers", "element 1: count 0, need ≥ 1"},
		{classes(srvClass(t, 60000), srvClass(t, 50000)), "servers", "more than 100000 servers"},
		{set(open(), pServers, model.Value{}), "servers", "required: the server classes"},
		{set(open(), pN, model.IntValue(3)), "n", "3, but the server classes hold 4 servers"},
		{raw(t, []model.Record{srvClass(t, 2), srvClass(t, 1, "active=false")}, nil, "peak_ewma", "rate=10", "horizon=1000", "tau=5"),
			"policy", "peak_ewma cannot leave out the inactive servers"},
		{raw(t, four, nil, "ewma", "rate=10", "horizon=1000", "observe=dispatch"), "observe", "dispatch: a request's latency is not known"},
		{raw(t, four, nil, "peak_ewma", "rate=10", "horizon=1000", "tau=0"), "tau", "need a finite decay time > 0"},

		{timeline(entry(t, -1, "kill", "server=0")), "timeline", "element 1 (kill at -1): at -1, need 0 ≤ at < horizon (1000)"},
		{timeline(entry(t, 10, "kill", "server=0"), entry(t, 1000, "restart", "server=0")), "timeline", "element 2 (restart at 1000): at 1000, need 0 ≤ at < horizon"},
		{timeline(entry(t, 10, "kill", "server=4")), "timeline", "element 1 (kill at 10): server 4, need 0 ≤ server < n (4)"},
		{timeline(entry(t, 10, "kill", "server=-1")), "timeline", "server -1, need 0 ≤ server < n"},
		{timeline(entry(t, 10, "restore", "server=1")), "timeline", "element 1 (restore at 10): server 1 is not slowed: nothing to restore"},
		{timeline(entry(t, 10, "restore")), "timeline", "no server is slowed: nothing to restore"},
		{timeline(entry(t, 20, "slow", "server=1", "factor=0.5"), entry(t, 10, "restore", "server=1")), "timeline", "element 2 (restore at 10): server 1 is not slowed"},
		{timeline(entry(t, 10, "slow", "server=1", "factor=0.5"), entry(t, 20, "restore", "server=1"), entry(t, 30, "restore", "server=1")),
			"timeline", "element 3 (restore at 30): server 1 is not slowed"},
		{timeline(entry(t, 10, "restart", "server=2")), "timeline", "server 2 is not down: nothing to restart"},
		{timeline(entry(t, 10, "restart")), "timeline", "no server is down: nothing to restart"},
		{timeline(entry(t, 10, "recover", "server=0")), "timeline", "server 0 is not failing: nothing to recover"},
		{timeline(entry(t, 10, "recover")), "timeline", "no server is failing: nothing to recover"},
		{timeline(entry(t, 10, "kill", "server=0"), entry(t, 20, "kill", "server=0")), "timeline", "element 2 (kill at 20): server 0 is already down"},
		{timeline(entry(t, 10, "slow", "server=0")), "timeline", "slow needs factor (the speed multiplier"},
		{timeline(entry(t, 10, "slow", "server=0", "factor=0")), "timeline", "factor 0, need a finite speed multiplier > 0"},
		{timeline(entry(t, 10, "fail", "server=0", "factor=1.5")), "timeline", "factor 1.5, need an error rate 0 < factor ≤ 1"},
		{timeline(entry(t, 10, "pause", "server=0")), "timeline", "pause needs a finite duration > 0"},
		{timeline(entry(t, 10, "pause", "server=0", "duration=-3")), "timeline", "pause needs a finite duration > 0"},
		{timeline(entry(t, 10, "rate")), "timeline", "rate needs a finite rate ≥ 1e-06"},
		{timeline(entry(t, 10, "kill", "server=3")), "timeline", "server 3 is not in the fleet yet"},
		{timeline(entry(t, 10, "rate", "rate=5e-324")), "timeline", "rate needs a finite rate ≥ 1e-06"},
		{timeline(entry(t, 1, "rate", "rate=1e12")), "timeline", "its rate changes make 9.99e+11 expected requests"},
		{timeline(entry(t, 10, "rate", "rate=50", "server=1")), "timeline", "a rate change applies to the clients, not a server"},
		{timeline(entry(t, 10, "kill", "server=0", "factor=0.5")), "timeline", "factor is for slow and fail only"},
		{timeline(entry(t, 10, "kill", "server=0", "duration=5")), "timeline", "duration is for pause only"},
		{timeline(entry(t, 10, "kill", "server=0", "rate=5")), "timeline", "rate is for a rate change only"},
		{timeline(entry(t, 10, "add"), entry(t, 20, "add")), "timeline", "element 2 (add at 20): no inactive server left to add"},
		{timeline(entry(t, 10, "add", "server=1")), "timeline", "server 1 is already in the fleet"},
		{raw(t, four, []model.Record{entry(t, 10, "add")}, "round_robin", "rate=100", "horizon=1000"), "timeline", "no inactive server left to add"},
		{raw(t, four, []model.Record{entry(t, 10, "rate", "rate=5")}, "round_robin", "users=5", "think=10", "horizon=1000"),
			"timeline", "element 1 (rate at 10): a rate change needs an open loop (rate), not users"},
	} {
		is, _ := checkErr(c.p, model.CheckOptions{})
		switch {
		case is == nil:
			t.Errorf("%s %q: accepted", c.param, c.words)
		case is.Param != c.param || !strings.Contains(is.Message, c.words):
			t.Errorf("got %s: %s; want %s: …%s…", is.Param, is.Message, c.param, c.words)
		}
	}
}

// What Check accepts: the entries in time order whatever their list order, undo entries for every server, an
// overload with bounded queues, and an unbounded overload as a warning under allow_unstable.
func TestCheckAccepts(t *testing.T) {
	two := []model.Record{srvClass(t, 3), srvClass(t, 1, "active=false")}
	for _, p := range []model.Point{
		raw(t, two, []model.Record{entry(t, 20, "restore", "server=1"), entry(t, 10, "slow", "server=1", "factor=0.5")}, "round_robin", "rate=100", "horizon=1000"),
		raw(t, two, []model.Record{entry(t, 10, "kill"), entry(t, 20, "restart"), entry(t, 30, "fail"), entry(t, 40, "recover", "server=2"),
			entry(t, 50, "add", "server=3"), entry(t, 60, "slow", "factor=2"), entry(t, 70, "restore"), entry(t, 80, "kill", "server=3")},
			"round_robin", "rate=100", "horizon=1000"),
		raw(t, two, nil, "random", "rate=400", "queue=3", "horizon=1000"),
	} {
		if is, _ := checkErr(p, model.CheckOptions{}); is != nil {
			t.Errorf("refused: %s: %s", is.Param, is.Message)
		}
	}
	p := raw(t, []model.Record{srvClass(t, 4)}, nil, "random", "rate=250", "horizon=1000")
	if is, w := checkErr(p, model.CheckOptions{AllowUnstable: true}); is != nil || len(w) != 1 || !strings.Contains(w[0], "offered load 1.25") {
		t.Errorf("allow_unstable: issue %v, warnings %q", is, w)
	}
}
