package resilience

import (
	"strings"
	"testing"

	"lbsweep/model"
)

// The fixes' parameters are checked at the edge, each rule with its source: an Issue naming the parameter, with a
// message that says what is wrong.
func TestCheckFixes(t *testing.T) {
	four := []model.Record{srvClass(t, 4)}
	pt := func(pol string, tl []model.Record, set ...string) model.Point {
		return raw(t, four, tl, pol, append([]string{"rate=100", "horizon=1000"}, set...)...)
	}
	fail := []model.Record{entry(t, 100, "fail", "server=1")}
	for _, c := range []struct {
		p            model.Point
		param, words string
	}{
		{pt("round_robin", nil, "outlier_consecutive_5xx=0"), "outlier_consecutive_5xx", "need 1 ≤ n"},
		{pt("round_robin", nil, "outlier_interval=100"), "outlier_interval", "given with no outlier detection: set outlier_consecutive_5xx"},
		{pt("round_robin", nil, "outlier_consecutive_5xx=5", "outlier_interval=0"), "outlier_interval", "need a finite time > 0"},
		{pt("round_robin", nil, "outlier_consecutive_5xx=5", "outlier_max_ejection_percent=101"), "outlier_max_ejection_percent", "need 0 ≤ percent ≤ 100"},
		{pt("round_robin", nil, "outlier_consecutive_5xx=5", "outlier_base_ejection=100", "outlier_max_ejection=50"), "outlier_max_ejection", "need ≥ outlier_base_ejection"},
		{pt("round_robin", nil, "outlier_success_rate_minimum_hosts=4"), "outlier_success_rate_minimum_hosts", "given with no outlier detection"},
		{pt("round_robin", nil, "outlier_consecutive_5xx=5", "outlier_success_rate_minimum_hosts=0"), "outlier_success_rate_minimum_hosts", "need 1 ≤ hosts"},
		{pt("round_robin", nil, "outlier_consecutive_5xx=5", "outlier_success_rate_request_volume=0"), "outlier_success_rate_request_volume", "need ≥ 1 answers"},
		{pt("round_robin", nil, "outlier_consecutive_5xx=5", "outlier_success_rate_stdev_factor=-1"), "outlier_success_rate_stdev_factor", "need 0 ≤ factor"},
		{pt("round_robin", nil, "outlier_consecutive_5xx=5", "outlier_enforcing_success_rate=50"), "outlier_enforcing_success_rate", "need 0 or 100"},
		{pt("jsq_d", nil, "d=2", "outlier_consecutive_5xx=5"), "policy", "cannot leave out the ejected servers"},
		{pt("round_robin", nil, "wrr_update=99"), "wrr_update", "≥ 100 ms"},
		{pt("round_robin", nil, "wrr_penalty=1"), "wrr_penalty", "given with no A58: set wrr_update"},
		{pt("round_robin", nil, "wrr_update=100", "wrr_penalty=-1"), "wrr_penalty", "need a finite penalty ≥ 0"},
		{pt("round_robin", nil, "wrr_update=100", "wrr_blackout=-1"), "wrr_blackout", "need a finite period ≥ 0"},
		{pt("least_outstanding", nil, "wrr_update=100"), "policy", "A58 weighted round robin replaces the policy"},
		{pt("round_robin", nil, "errors_active=0"), "errors_active", "need a finite time > 0"},
		{pt("round_robin", nil, "fault_level=0.5"), "fault_level", "needs a timeline fail naming a server"},
		{pt("round_robin", fail, "fault_level=0"), "fault_level", "need 0 < level ≤ 1"},
		{pt("round_robin", fail, "fault_bin=10"), "fault_bin", "only with fault_level"},
		// Periodic timers bounded as the series' bins are: 10^9 ticks of a 1 s horizon would run for minutes.
		{pt("round_robin", nil, "outlier_consecutive_5xx=5", "outlier_interval=1e-6"), "outlier_interval", "ticks of a timer that visits all 4 servers"},
		{pt("round_robin", nil, "wrr_update=100", "wrr_report=1e-6"), "wrr_report", "give a longer period"},
		{raw(t, []model.Record{srvClass(t, 100_000)}, nil, "round_robin", "rate=100", "horizon=1e6", "bin=0", "outlier_consecutive_5xx=5", "outlier_interval=500"), "outlier_interval", "server visits"},
	} {
		is, _ := checkErr(c.p, model.CheckOptions{})
		if is == nil || is.Param != c.param || !strings.Contains(is.Message, c.words) {
			t.Errorf("want an issue on %s containing %q, got %v", c.param, c.words, is)
		}
	}
	for _, p := range []model.Point{
		pt("least_outstanding", fail, "outlier_consecutive_5xx=5", "errors_active=10", "fault_level=0.25"),
		pt("round_robin", nil, "wrr_update=100", "outlier_consecutive_5xx=5"),
		pt("smooth_wrr", nil, "wrr_update=1000"),
	} {
		if is, _ := checkErr(p, model.CheckOptions{}); is != nil {
			t.Errorf("valid point refused: %v", is)
		}
	}
}
