package experiments_test

import (
	"strings"
	"testing"
)

// Hostile resilience specs: parameters that nothing would read (a policy argument no point's policy takes, one
// limiter's knob with the other limiter, an outlier_ or wrr_ tuning knob with the mechanism off) are refused with
// one error naming the file, the line and the key that set them, not the [params] header or a parameter the spec
// never wrote.
func TestHostileSpecErrors(t *testing.T) {
	const head = `name = "hostile"
model = "resilience"
seed = 1
[params]
servers = [{ count = 4 }]
rate = 100.0
horizon = 1000.0
`
	for _, c := range []struct {
		name, body, at, want string
	}{
		{"outlier knob alone", "policy = \"round_robin\"\noutlier_max_ejection_percent = 50.0\n",
			"hostile.toml:9: params.outlier_max_ejection_percent", "given with no outlier detection: set outlier_consecutive_5xx"},
		{"outlier knob on an axis", "policy = \"round_robin\"\n[sweep]\noutlier_interval = [\"null\", 100.0]\n",
			"hostile.toml:10: sweep.outlier_interval", "given with no outlier detection"},
		{"outlier knob bundled with a policy", "[sweep]\npolicy = [{ name = \"round_robin\", outlier_interval = 200.0 }]\n",
			"hostile.toml:9: sweep.policy", "outlier_interval given with no outlier detection"},
		{"wrr knob alone", "policy = \"round_robin\"\nwrr_blackout = 10.0\n",
			"hostile.toml:9: params.wrr_blackout", "given with no A58: set wrr_update"},
		{"gradient2 knob with aimd", "policy = \"round_robin\"\nlimiter = \"aimd\"\ngradient_window = 10\n",
			"hostile.toml:10: params.gradient_window", "gradient2 knob, given with limiter = \"aimd\""},
		{"aimd knob bundled with gradient2", "policy = \"round_robin\"\n[sweep]\nlimiter = [\"none\", { name = \"gradient2\", aimd_round = true }]\n",
			"hostile.toml:10: sweep.limiter", "aimd_round is an aimd knob"},
		{"policy argument with a fixed policy that does not take it", "policy = \"least_outstanding\"\ntau = 5.0\n",
			"hostile.toml:9: params.tau", "tau is an argument of peak_ewma, least_latency, and no policy of this spec takes it"},
		{"policy argument bundled on another axis", "policy = \"least_outstanding\"\n[sweep]\nhedge = [{ value = 10.0, tau = 5.0 }]\n",
			"hostile.toml:10: sweep.hedge", "sets tau, which is an argument of"},
		{"a one-value axis of an argument no policy takes", "policy = \"round_robin\"\n[sweep]\nalpha = [0.5]\n",
			"hostile.toml:10: sweep.alpha", "no policy of this spec takes it"},
		{"a bundle naming its own axis", "policy = \"least_outstanding\"\n[sweep]\nhedge = [{ value = 10.0, hedge = 20.0 }]\n",
			"hostile.toml:10: sweep.hedge", "\"hedge\" is this axis's own parameter: its value is the table's value"},
		{"an enum bundle naming its own axis", "policy = \"least_outstanding\"\n[sweep]\nlimiter = [{ name = \"aimd\", limiter = \"gradient2\" }]\n",
			"hostile.toml:10: sweep.limiter", "its value is the table's name"},
		{"a bundled null for a parameter that is not optional", "policy = \"least_outstanding\"\n[sweep]\nhedge = [{ value = 10.0, mean = \"null\" }]\n",
			"hostile.toml:10: sweep.hedge", "mean: \"null\" leaves a parameter unset, but mean is not optional"},
	} {
		_, err := parseNoPanic(t, "hostile.toml", head+c.body)
		if err == nil || !strings.Contains(err.Error(), c.at) || !strings.Contains(err.Error(), c.want) || strings.Count(err.Error(), "\n") > 0 {
			t.Errorf("%s: %v, want one line at %s containing %q", c.name, err, c.at, c.want)
		}
	}
	// Still valid: an argument some policy on the axis takes, bundled knobs of each limiter with its own algorithm.
	for _, body := range []string{
		"tau = 5.0\n[sweep]\npolicy = [\"least_outstanding\", \"peak_ewma\"]\n",
		"policy = \"least_outstanding\"\n[sweep]\nlimiter = [\"none\", { name = \"aimd\", aimd_round = true }, { name = \"gradient2\", gradient_window = 10 }]\n",
		"[sweep]\npolicy = [{ name = \"round_robin\", outlier_consecutive_5xx = 5, outlier_interval = 200.0 }]\n",
		// A bundled "null" leaves the parameter unset, as a policy table's does (it used to be "expected a boolean,
		// got a string").
		"policy = \"least_outstanding\"\n[sweep]\nhedge = [\"null\", { value = 10.0, hedge_cancel = \"null\" }]\n",
	} {
		if _, err := parseNoPanic(t, "hostile.toml", head+body); err != nil {
			t.Errorf("valid spec refused: %v\n%s", err, body)
		}
	}
}
