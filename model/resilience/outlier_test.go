package resilience

import (
	"math"
	"slices"
	"testing"

	"lbsweep/model"
	"lbsweep/model/policy"
)

// TestOutlierRules drives the outlier detector through scripts of results and interval ticks and checks its state
// against Envoy's rules (v1.31, source/common/upstream/outlier_detection_impl.cc and outlier.rst; the rule each case
// pins is quoted beside it). Steps: a result (server, outcome) at a time, or an interval tick.
func TestOutlierRules(t *testing.T) {
	type step struct {
		at   float64
		k    int
		o    policy.Outcome
		tick bool
	}
	res := func(at float64, k int, o policy.Outcome, times int) []step {
		s := make([]step, times)
		for i := range s {
			s[i] = step{at: at, k: k, o: o}
		}
		return s
	}
	tick := func(at float64) []step { return []step{{at: at, tick: true}} }
	cat := func(ss ...[]step) []step { return slices.Concat(ss...) }
	const E, R, T, OK, C = policy.Error, policy.Rejected, policy.Timeout, policy.OK, policy.Cancelled
	base := outlierConfig{consecutive: 5, interval: 10, base: 30, max: 300, maxPercent: 100}
	for _, c := range []struct {
		rule      string
		c         outlierConfig
		n         int
		steps     []step
		ejected   []bool
		backoff   []int
		ejections int64
		overflow  int64
		unejected []int // servers unejected by the ticks, in order
	}{
		{rule: "outlier.rst: \"If an upstream host returns some number of consecutive 5xx, it will be ejected\"; 4 of 5 are not enough",
			c: base, n: 2, steps: res(1, 0, E, 4), ejected: []bool{false, false}, backoff: []int{0, 0}},
		{rule: "putHttpResponseCode: the 5th consecutive 5xx ejects at once (inline, not at the interval), and the multiplier becomes 1",
			c: base, n: 2, steps: res(1, 0, E, 5), ejected: []bool{true, false}, backoff: []int{1, 0}, ejections: 1},
		{rule: "putHttpResponseCode: a non-5xx resets consecutive_5xx_ (4 errors, a success, 4 errors: no ejection)",
			c: base, n: 2, steps: cat(res(1, 0, E, 4), res(1, 0, OK, 1), res(1, 0, E, 4)), ejected: []bool{false, false}, backoff: []int{0, 0}},
		{rule: "outlier.rst, split_external_local_origin_errors = false: timeouts (504) and resets (503) go \"in the same bucket\" as 5xx",
			c: base, n: 2, steps: cat(res(1, 1, T, 2), res(1, 1, R, 2), res(1, 1, E, 1)), ejected: []bool{false, true}, backoff: []int{0, 1}, ejections: 1},
		{rule: "a cancelled attempt has no response code: it neither counts nor resets (this model's rule)",
			c: base, n: 2, steps: cat(res(1, 0, E, 2), res(1, 0, C, 3), res(1, 0, E, 3)), ejected: []bool{true, false}, backoff: []int{1, 0}, ejections: 1},
		{rule: "v1.28 changelog: \"Outlier detection will always respect max_ejection_percent now\": 10% of 4 servers ejects none (overflow)",
			c: outlierConfig{consecutive: 5, interval: 10, base: 30, max: 300, maxPercent: 10}, n: 4, steps: res(1, 3, E, 5),
			ejected: []bool{false, false, false, false}, backoff: []int{0, 0, 0, 0}, overflow: 1},
		{rule: "ejectHost: 100·(ejections_active + 1)/hosts ≤ max_ejection_percent: 25% of 4 ejects one, not a second",
			c: outlierConfig{consecutive: 5, interval: 10, base: 30, max: 300, maxPercent: 25}, n: 4, steps: cat(res(1, 3, E, 5), res(2, 2, E, 5)),
			ejected: []bool{false, false, false, true}, backoff: []int{0, 0, 0, 1}, ejections: 1, overflow: 1},
		{rule: "onConsecutiveErrorWorker resets the count after an overflowed ejection too: 5 more 5xx are needed (4 give nothing)",
			c: outlierConfig{consecutive: 5, interval: 10, base: 30, max: 300, maxPercent: 25}, n: 4, steps: cat(res(1, 3, E, 5), res(2, 2, E, 9)),
			ejected: []bool{false, false, false, true}, backoff: []int{0, 0, 0, 1}, ejections: 1, overflow: 1},
		{rule: "\"if the host is already ejected, the event is ignored\": more 5xx from an ejected server eject nothing",
			c: base, n: 2, steps: res(1, 0, E, 12), ejected: []bool{true, false}, backoff: []int{1, 0}, ejections: 1},
		{rule: "checkHostForUneject: unejected at the first tick with min(base·multiplier, max) ≤ now − ejection time (ejected at 5, base 30: still at 30, out at 40)",
			c: base, n: 2, steps: cat(res(5, 0, E, 5), tick(10), tick(20), tick(30)), ejected: []bool{true, false}, backoff: []int{1, 0}, ejections: 1},
		{rule: "... and at 40 (35 ≥ 30) it is unejected, its multiplier kept (decremented only at a later tick it passes healthy)",
			c: base, n: 2, steps: cat(res(5, 0, E, 5), tick(10), tick(20), tick(30), tick(40)), ejected: []bool{false, false}, backoff: []int{1, 0}, ejections: 1, unejected: []int{0}},
		{rule: "\"Node seems to be healthy and was not ejected since the last check\": the multiplier is decremented at the next tick, floored at 0",
			c: base, n: 2, steps: cat(res(5, 0, E, 5), tick(40), tick(50), tick(60)), ejected: []bool{false, false}, backoff: []int{0, 0}, ejections: 1, unejected: []int{0}},
		{rule: "outlier.rst: ejection lasts base_ejection_time \"multiplied by the number of times the host has been ejected in a row\": a second ejection at once after the first lasts 2·30 (out at 110, not 100)",
			c: base, n: 2, steps: cat(res(5, 0, E, 5), tick(40), res(45, 0, E, 5), tick(100)), ejected: []bool{true, false}, backoff: []int{2, 0}, ejections: 2, unejected: []int{0}},
		{rule: "... 60 after 45: unejected at the tick at 110",
			c: base, n: 2, steps: cat(res(5, 0, E, 5), tick(40), res(45, 0, E, 5), tick(100), tick(110)), ejected: []bool{false, false}, backoff: []int{2, 0}, ejections: 2, unejected: []int{0, 0}},
		{rule: "uneject resets the consecutive counters (\"to avoid re-ejection on very few new errors\"): 4 5xx after an uneject do not eject",
			c: base, n: 2, steps: cat(res(5, 0, E, 5), res(6, 0, E, 4), tick(40), res(41, 0, E, 4)), ejected: []bool{false, false}, backoff: []int{1, 0}, ejections: 1, unejected: []int{0}},
		{rule: "ejectHost: the multiplier grows only while multiplier·base < max + base (base 30, max 50: 1, 2, 3, then stays 3), and the length is capped: min(3·30, 50) = 50",
			c: outlierConfig{consecutive: 1, interval: 10, base: 30, max: 50, maxPercent: 100}, n: 2,
			steps:   cat(res(0, 0, E, 1), tick(30), res(30, 0, E, 1), tick(90), res(90, 0, E, 1), tick(150), res(150, 0, E, 1), tick(190), tick(200)),
			ejected: []bool{false, false}, backoff: []int{3, 0}, ejections: 4, unejected: []int{0, 0, 0, 0}},
	} {
		d := newOutlierDetector(c.c, c.n)
		var unejected []int
		for _, s := range c.steps {
			if s.tick {
				d.tick(s.at, c.n, func(k int) { unejected = append(unejected, k) })
				continue
			}
			d.record(s.k, s.o, s.at, func() int { return c.n })
		}
		if !slices.Equal(d.ejected, c.ejected) || !slices.Equal(d.backoff, c.backoff) || d.ejections != c.ejections ||
			d.overflow != c.overflow || !slices.Equal(unejected, c.unejected) {
			t.Errorf("%s:\n got ejected %v, multipliers %v, %d ejections, %d overflows, unejected %v\nwant ejected %v, multipliers %v, %d, %d, %v",
				c.rule, d.ejected, d.backoff, d.ejections, d.overflow, unejected, c.ejected, c.backoff, c.ejections, c.overflow, c.unejected)
		}
		active := 0
		for _, x := range d.ejected {
			if x {
				active++
			}
		}
		if active != d.active {
			t.Errorf("%s: ejections_active %d, but %d servers ejected", c.rule, d.active, active)
		}
	}
}

// TestOutlierInEngine runs outlier detection in the engine on a fixed small scenario: two servers under round robin,
// server 1 failing every attempt (in 1 µs, so no attempt overlaps another), consecutive_5xx 5, interval 1 s, base
// ejection 3 s, max 30 s, 10 requests/s for 40 s. The balancer must send server 1 bursts of exactly 5 attempts (the
// 5th error ejects it at once), the first burst at the start, each later one only after the tick that unejects it
// (the first tick at least min(3 s·multiplier, 30 s) after the ejection, the multiplier one more at each ejection and
// one less at each tick the server passed unejected: a burst of 5 takes about a second at this rate), and then at
// the first or second pick (round robin's cursor may point at server 0 first).
func TestOutlierInEngine(t *testing.T) {
	p := point(t, []model.Record{srvClass(t, 1), srvClass(t, 1, "error_rate=1")}, nil, "round_robin",
		"rate=10", "mean=1", "error_latency=0.001", "service=constant", "hop=0", "horizon=40000", "bin=0",
		"outlier_consecutive_5xx=5", "outlier_interval=1000", "outlier_base_ejection=3000", "outlier_max_ejection=30000",
		"outlier_max_ejection_percent=50")
	out, tp := record(t, p, 3)
	var bursts [][]float64 // dispatch times of server 1's attempts, burst by burst
	last := -1
	for i, pk := range tp.picks {
		if pk.server != 1 {
			continue
		}
		if last < 0 || i != last+2 && i != last+1 { // not the next round-robin turn: a new burst
			bursts = append(bursts, nil)
		}
		bursts[len(bursts)-1] = append(bursts[len(bursts)-1], pk.req.Now)
		last = i
	}
	if len(bursts) < 3 || int64(len(bursts)) != out.ejections {
		t.Fatalf("%d bursts to the failing server, %d ejections: want ≥ 3, equal", len(bursts), out.ejections)
	}
	mult, unejectedAt := 0, 0.0
	for j, b := range bursts {
		if len(b) != 5 {
			t.Errorf("burst %d: %d attempts, want 5 (ejected at the 5th consecutive 5xx)", j, len(b))
		}
		// The ejection that ended burst j−1, and the multiplier it set.
		if j == 0 {
			continue
		}
		prev := bursts[j-1]
		ejected := prev[len(prev)-1] + 0.001
		decs := int(math.Floor(ejected/1000) - math.Floor(unejectedAt/1000)) // ticks in (unejectedAt, ejected]
		if j == 1 {
			decs = 0
		}
		mult = max(0, mult-decs)
		if float64(mult)*3000 < 30000+3000 {
			mult++
		}
		length := min(3000*float64(mult), 30000)
		tick := math.Ceil((ejected+length)/1000) * 1000
		unejectedAt = tick
		picksBefore := 0 // picks in [tick, the burst's first)
		for _, pk := range tp.picks {
			if pk.req.Now >= tick && pk.req.Now < b[0] {
				picksBefore++
			}
		}
		if b[0] < tick || picksBefore > 1 {
			t.Errorf("burst %d starts at %v, %d picks after the uneject tick %v (ejected at %v for %v): want at or after it, within 2 picks",
				j, b[0], picksBefore, tick, ejected, length)
		}
	}
}

// TestOutlierSuccessRate checks success-rate ejection against Envoy's rules (processSuccessRateEjections): each case
// feeds each server answers (total, of which ok are non-5xx) in one interval and ticks, optionally twice.
func TestOutlierSuccessRate(t *testing.T) {
	sr := outlierConfig{consecutive: 1_000_000, interval: 10, base: 30, max: 300, maxPercent: 100, srHosts: 5, srVolume: 100,
		srFactor: 1.9, srEnforce: true}
	with := func(f func(*outlierConfig)) outlierConfig { c := sr; f(&c); return c }
	for _, c := range []struct {
		rule      string
		c         outlierConfig
		total, ok []int64
		idle      bool // an empty interval first (a tick before the answers)
		ejected   []bool
	}{
		{rule: "Envoy's example: rates {50, 100, 100, 100, 100}: mean 90, stdev 20, threshold 90 − 1.9·20 = 52: the 50 is ejected",
			c: sr, total: []int64{100, 100, 100, 100, 100}, ok: []int64{50, 100, 100, 100, 100}, ejected: []bool{true, false, false, false, false}},
		{rule: "one outlier among 5 judged servers is √4 = 2 standard deviations below the mean, past 1.9: ejected even at 99% ({99, 100, 100, 100, 100})",
			c: sr, total: []int64{100, 100, 100, 100, 100}, ok: []int64{99, 100, 100, 100, 100}, ejected: []bool{true, false, false, false, false}},
		{rule: "no outlier, no ejection: all at 97%",
			c: sr, total: []int64{100, 100, 100, 100, 100}, ok: []int64{97, 97, 97, 97, 97}, ejected: []bool{false, false, false, false, false}},
		{rule: "\"if the number of hosts is below minimum_hosts\": 4 servers, default 5: nothing is judged, a 0% server stays",
			c: sr, total: []int64{100, 100, 100, 100}, ok: []int64{0, 100, 100, 100}, ejected: []bool{false, false, false, false}},
		{rule: "4 servers with minimum_hosts 4: one outlier is √3 = 1.73 standard deviations below the mean, short of 1.9: none ejected, even at 0%",
			c: with(func(c *outlierConfig) { c.srHosts = 4 }), total: []int64{100, 100, 100, 100}, ok: []int64{0, 100, 100, 100}, ejected: []bool{false, false, false, false}},
		{rule: "... and with stdev_factor 1700 (1.7 < 1.73) it is",
			c: with(func(c *outlierConfig) { c.srHosts = 4; c.srFactor = 1.7 }), total: []int64{100, 100, 100, 100}, ok: []int64{0, 100, 100, 100}, ejected: []bool{true, false, false, false}},
		{rule: "request_volume: a server with 99 answers is not judged, leaving 4 judged < minimum_hosts 5: none ejected",
			c: sr, total: []int64{100, 100, 100, 100, 99}, ok: []int64{50, 100, 100, 100, 99}, ejected: []bool{false, false, false, false, false}},
		{rule: "the rates are the interval just ended's (two buckets swapped at each tick): an empty interval first judges nothing, the next the answers",
			c: sr, total: []int64{100, 100, 100, 100, 100}, ok: []int64{50, 100, 100, 100, 100}, idle: true, ejected: []bool{true, false, false, false, false}},
		{rule: "enforcing_success_rate = 0: detected, not ejected",
			c: with(func(c *outlierConfig) { c.srEnforce = false }), total: []int64{100, 100, 100, 100, 100}, ok: []int64{50, 100, 100, 100, 100}, ejected: []bool{false, false, false, false, false}},
		{rule: "max_ejection_percent still applies: two outliers at 0% among 10 (mean 80, stdev 40, threshold 4), 10% ejects one",
			c: with(func(c *outlierConfig) { c.maxPercent = 10 }), total: []int64{100, 100, 100, 100, 100, 100, 100, 100, 100, 100},
			ok: []int64{0, 0, 100, 100, 100, 100, 100, 100, 100, 100}, ejected: []bool{true, false, false, false, false, false, false, false, false, false}},
	} {
		n := len(c.total)
		d := newOutlierDetector(c.c, n)
		var changed []int
		if c.idle {
			d.tick(0, n, func(k int) { changed = append(changed, k) })
		}
		for k := range n {
			for i := range c.total[k] {
				o := policy.Error
				if int64(i) < c.ok[k] {
					o = policy.OK
				}
				d.record(k, o, 1, func() int { return n })
			}
		}
		d.tick(10, n, func(k int) { changed = append(changed, k) })
		if !slices.Equal(d.ejected, c.ejected) || int(d.srEjected) != len(changed) {
			t.Errorf("%s: ejected %v (%d by success rate, changed %v), want %v", c.rule, d.ejected, d.srEjected, changed, c.ejected)
		}
	}
}
