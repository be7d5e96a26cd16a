package resilience

import (
	"math"

	"lbsweep/model"
	"lbsweep/model/policy"
)

// outlierConfig is the resolved outlier detection (Envoy's envoy.config.cluster.v3.OutlierDetection, consecutive 5xx
// only): consecutive = 0 is off; times in ms.
type outlierConfig struct {
	consecutive int     // consecutive_5xx
	interval    float64 // interval
	base        float64 // base_ejection_time
	max         float64 // max_ejection_time
	maxPercent  float64 // max_ejection_percent
	srHosts     int     // success_rate_minimum_hosts
	srVolume    int64   // success_rate_request_volume
	srFactor    float64 // success_rate_stdev_factor/1000
	srEnforce   bool    // enforcing_success_rate = 100
}

// outlierOf resolves point p's outlier parameters, with Envoy's defaults for the times left null (interval 10 s,
// base_ejection_time 30 s, max_ejection_time 300 s, raised to the base when the base is longer, as Envoy's config
// validation requires max ≥ base; max_ejection_percent 10).
func outlierOf(p model.Point) outlierConfig {
	c := outlierConfig{interval: 10_000, base: 30_000, max: 300_000, maxPercent: 10, srHosts: 5, srVolume: 100, srFactor: 1.9,
		srEnforce: true}
	if !p[pOutlier5xx].Valid {
		return outlierConfig{}
	}
	c.consecutive = int(p[pOutlier5xx].I)
	if v := p[pOutlierInterval]; v.Valid {
		c.interval = v.F
	}
	if v := p[pOutlierBase]; v.Valid {
		c.base = v.F
	}
	c.max = max(c.max, c.base)
	if v := p[pOutlierMax]; v.Valid {
		c.max = v.F
	}
	if v := p[pOutlierMaxPercent]; v.Valid {
		c.maxPercent = v.F
	}
	if v := p[pOutlierSRHosts]; v.Valid {
		c.srHosts = int(v.I)
	}
	if v := p[pOutlierSRVolume]; v.Valid {
		c.srVolume = v.I
	}
	if v := p[pOutlierSRFactor]; v.Valid {
		c.srFactor = float64(v.I) / 1000
	}
	if v := p[pOutlierSREnforcing]; v.Valid {
		c.srEnforce = v.I == 100
	}
	return c
}

// outlierDetector is Envoy's outlier detection by consecutive 5xx, after source/common/upstream/
// outlier_detection_impl.cc (Envoy v1.31; the max_ejection_percent rule as since v1.28), one state per server. Its
// rules, each quoted from that source or its docs (docs/root/intro/arch_overview/upstream/outlier.rst) beside the
// code that follows it:
//
//   - a 5xx increments the server's consecutive count, any other answer resets it; when the count reaches
//     consecutive_5xx the server is ejected at once ("runs inline"), not at the interval, and the count resets;
//   - an ejected server's results still count but eject nothing ("if the host is already ejected, the event is
//     ignored");
//   - an ejection happens only if 100·(ejected + 1)/servers ≤ max_ejection_percent (since v1.28: "Outlier detection
//     will always respect max_ejection_percent now"; always_eject_one_host = false, its default), else it is an
//     overflow;
//   - on an ejection the multiplier (ejectTimeBackoff) grows by one while multiplier·base < max + base;
//   - at each interval tick (i·interval from the start), an ejected server whose min(base·multiplier, max) has
//     passed since its ejection is unejected and its counts reset; a server not ejected at a tick has its multiplier
//     decremented, floored at 0 ("Node seems to be healthy and was not ejected since the last check");
//   - success rate (processSuccessRateEjections, at each tick after the unejections): each server's answers and
//     non-5xx answers over the interval just ended; if the fleet has at least success_rate_minimum_hosts servers,
//     the servers not ejected with at least success_rate_request_volume answers are judged, and if there are at
//     least success_rate_minimum_hosts of them, each whose success rate is below mean − stdev_factor·stdev (the
//     judged servers' mean and population standard deviation: Envoy's {50, 100, 100, 100, 100} gives threshold 52)
//     is ejected as above (max_ejection_percent, the multiplier). A single outlier among n judged servers sits
//     √(n − 1) standard deviations below the mean, so with the default factor 1.9 none is ever ejected from fewer
//     than 5 (√3 = 1.73): Envoy's success_rate_minimum_hosts default.
//
// What counts as a 5xx (split_external_local_origin_errors = false, Envoy's default, which puts local-origin failures
// "in the same bucket"): a 500 (policy.Error, also a down server's refused connection and work lost in a kill,
// which Envoy's router reports as a connect failure, 503), a 503 from a full queue or a limiter (policy.Rejected) and
// a timeout (policy.Timeout: the router's LocalOriginTimeout, 504). A cancelled attempt (a hedge's loser) is neither.
// Deviations: enforcing_consecutive_5xx is 100% (always enforce) and enforcing_success_rate 100 or 0, no
// max_ejection_time_jitter, no failure-percentage ejection (off by default in Envoy), no gateway-failure or
// local-origin counters, no active health checks, and the
// detector lives at the one balancer (Envoy's posts a worker's count to the main thread first).
type outlierDetector struct {
	c         outlierConfig
	consec    []int     // consecutive 5xx
	ejected   []bool    // FAILED_OUTLIER_CHECK
	backoff   []int     // ejectTimeBackoff
	lastEject []float64 // lastEjectionTime, ms
	active    int       // ejections_active
	ejections int64     // ejections enforced (ejections_enforced_total)
	overflow  int64     // ejections refused by max_ejection_percent (ejections_overflow)
	srEjected int64     // success-rate ejections enforced (ejections_enforced_success_rate)
	// The success-rate buckets: answers and non-5xx answers in the current interval and in the one before.
	total, ok, lastTotal, lastOK []int64
	judged                       []int // scratch: the servers judged at a tick
}

func newOutlierDetector(c outlierConfig, n int) *outlierDetector {
	return &outlierDetector{c: c, consec: make([]int, n), ejected: make([]bool, n), backoff: make([]int, n),
		lastEject: make([]float64, n), total: make([]int64, n), ok: make([]int64, n), lastTotal: make([]int64, n),
		lastOK: make([]int64, n)}
}

// is5xx reports whether outcome o counts as a 5xx for the consecutive count, and whether it is an answer at all
// (a cancelled attempt is not: it neither counts nor resets).
func is5xx(o policy.Outcome) (fivexx, counts bool) {
	switch o {
	case policy.OK:
		return false, true
	case policy.Error, policy.Rejected, policy.Timeout:
		return true, true
	}
	return false, false
}

// record counts server k's result o at now and reports whether it ejected k; fleet() is the number of servers in
// the fleet (Envoy's host count), asked only when the count is reached.
func (d *outlierDetector) record(k int, o policy.Outcome, now float64, fleet func() int) bool {
	fivexx, counts := is5xx(o)
	if !counts {
		return false
	}
	d.total[k]++
	if !fivexx {
		d.ok[k]++
		d.consec[k] = 0
		return false
	}
	d.consec[k]++
	if d.consec[k] < d.c.consecutive || d.ejected[k] {
		return false
	}
	d.consec[k] = 0 // "reset counters" after the ejection attempt, enforced or not
	return d.eject(k, now, fleet())
}

// eject ejects server k at now in a fleet of `fleet` servers if max_ejection_percent allows (ejectHost) and
// reports whether it did.
func (d *outlierDetector) eject(k int, now float64, fleet int) bool {
	if 100*float64(d.active+1)/float64(fleet) > d.c.maxPercent {
		d.overflow++
		return false
	}
	d.ejected[k] = true
	d.active++
	d.ejections++
	d.lastEject[k] = now
	if float64(d.backoff[k])*d.c.base < d.c.max+d.c.base {
		d.backoff[k]++
	}
	return true
}

// duration is server k's current ejection length: min(base·multiplier, max).
func (d *outlierDetector) duration(k int) float64 {
	return min(d.c.base*float64(d.backoff[k]), d.c.max)
}

// tick is the interval timer at now in a fleet of `fleet` servers: it unejects the servers whose ejection has run
// its length (calling changed(k) for each) and decrements the multiplier of the others, closes the success-rate
// buckets, and ejects the success-rate outliers of the interval just ended (calling changed(k) for each).
func (d *outlierDetector) tick(now float64, fleet int, changed func(k int)) {
	for k := range d.ejected {
		if !d.ejected[k] {
			if d.backoff[k] > 0 {
				d.backoff[k]--
			}
			continue
		}
		if d.duration(k) <= now-d.lastEject[k] {
			d.ejected[k] = false
			d.active--
			d.consec[k] = 0
			changed(k)
		}
	}
	for k := range d.total {
		d.lastTotal[k], d.lastOK[k], d.total[k], d.ok[k] = d.total[k], d.ok[k], 0, 0
	}
	if !d.c.srEnforce || fleet < d.c.srHosts {
		return
	}
	d.judged = d.judged[:0]
	sum := 0.0
	for k := range d.ejected {
		if !d.ejected[k] && d.lastTotal[k] >= d.c.srVolume {
			d.judged = append(d.judged, k)
			sum += d.successRate(k)
		}
	}
	if len(d.judged) < d.c.srHosts {
		return
	}
	mean := sum / float64(len(d.judged))
	v := 0.0
	for _, k := range d.judged {
		v += (d.successRate(k) - mean) * (d.successRate(k) - mean)
	}
	threshold := mean - d.c.srFactor*math.Sqrt(v/float64(len(d.judged)))
	for _, k := range d.judged {
		if d.successRate(k) < threshold && d.eject(k, now, fleet) {
			d.srEjected++
			changed(k)
		}
	}
}

// successRate is server k's success rate over the interval just ended, in percent (Envoy's success*100/total).
func (d *outlierDetector) successRate(k int) float64 {
	return float64(d.lastOK[k]) * 100 / float64(d.lastTotal[k])
}

// outlierGuard is the outlier detector at the balancer: it bars ejected servers from the policy's picks.
type outlierGuard struct {
	d   *outlierDetector
	idx int // its position in engine.guards
}

func (g *outlierGuard) bars(k int) bool                { return g.d.ejected[k] }
func (g *outlierGuard) sent(e *engine, k int, a int32) {}

func (g *outlierGuard) result(e *engine, k int, a int32, o policy.Outcome, latency float64) {
	fleet := func() int {
		n := 0
		for i := range e.servers {
			if e.servers[i].active {
				n++
			}
		}
		return n
	}
	if g.d.record(k, o, e.now, fleet) {
		g.ejected(e, k)
	}
}

// ejected records that server k was just ejected and bars it.
func (g *outlierGuard) ejected(e *engine, k int) {
	if e.out.ejections == 0 {
		e.out.firstEjection = e.now
	}
	e.out.ejections++
	e.recheck(k)
}

// fire is the interval tick (payload 0).
func (g *outlierGuard) fire(e *engine, p int32) {
	fleet := 0
	for i := range e.servers {
		if e.servers[i].active {
			fleet++
		}
	}
	g.d.tick(e.now, fleet, func(k int) {
		if g.d.ejected[k] {
			g.ejected(e, k)
		} else {
			e.recheck(k)
		}
	})
	if t := e.now + g.d.c.interval; t < e.c.horizon {
		e.guardAt(t, g.idx, 0)
	}
}
