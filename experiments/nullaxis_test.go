package experiments_test

import (
	"strings"
	"testing"
)

// "null" in an axis leaves an optional parameter unset at that value (as a where selection writes null): queue =
// ["null", 8] is an unbounded queue, then 8. A parameter that is not optional refuses it, naming the axis.
func TestNullAxisValue(t *testing.T) {
	const spec = `name = "nullaxis"
model = "resilience"
seed = 1
[params]
servers = [{ count = 2 }]
rate = 10.0
horizon = 1000.0
policy = "random"
[sweep]
queue = ["null", 8]
`
	s, err := parseNoPanic(t, "null.toml", spec)
	if err != nil {
		t.Fatal(err)
	}
	v := axisValues(t, s, "queue")
	if len(v) != 2 || v[0].Valid || !v[1].Valid || v[1].I != 8 {
		t.Fatalf("queue axis %+v, want [null, 8]", v)
	}
	if k := pointKey(s, 0); strings.Contains(k, "queue=") {
		t.Errorf("point 0's key %q names queue: it should be unset", k)
	}
	if k := pointKey(s, 1); !strings.Contains(k, "queue=8") {
		t.Errorf("point 1's key %q does not name queue=8", k)
	}
	_, err = parseNoPanic(t, "null.toml", strings.Replace(spec, `queue = ["null", 8]`, `hop = ["null", 2.0]`, 1))
	if err == nil || !strings.Contains(err.Error(), "null.toml:10") || !strings.Contains(err.Error(), "sweep.hop") || !strings.Contains(err.Error(), "not optional") {
		t.Errorf("hop = [\"null\", 2.0]: %v, want an error at null.toml:10 naming sweep.hop, not optional", err)
	}
}

// An axis value may be a table { value = v, param = value, ... } bundling other parameters with it, for any parameter
// that is not a list of tables (an enum's is { name = choice, ... }): hedge = ["null", { value = 10.0, hedge_cancel =
// true }] is no hedging, then hedging at 10 ms with cancellation. value may be "null"; a table with no value, a key
// that is no parameter, or a bad value is an error naming the axis and element.
func TestBundledAxisValue(t *testing.T) {
	const spec = `name = "bundle"
model = "resilience"
seed = 1
[params]
servers = [{ count = 2 }]
rate = 10.0
horizon = 1000.0
policy = "least_outstanding"
[sweep]
hedge = ["null", { value = 10.0, hedge_cancel = true }, { value = "null", hedge_quantile = 0.95 }]
`
	s, err := parseNoPanic(t, "bundle.toml", spec)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"", "hedge=10,hedge_cancel=true", "hedge_quantile=0.95"}
	for i, w := range want {
		k := pointKey(s, i)
		for _, name := range []string{"hedge=", "hedge_cancel=", "hedge_quantile="} {
			if strings.Contains(k, name) != strings.Contains(w, name) {
				t.Errorf("point %d's key %q: want the settings %q", i, k, w)
			}
		}
		if w != "" && !strings.Contains(k, w) {
			t.Errorf("point %d's key %q does not hold %q", i, k, w)
		}
	}
	for _, c := range []struct{ axis, want string }{
		{`hedge = [{ hedge_cancel = true }]`, "needs value"},
		{`hedge = [{ value = 10.0, nosuch = 1 }]`, "not another parameter"},
		{`hedge = [{ value = "ten" }]`, "element 1"},
		{`hop = [{ value = "null" }]`, "not optional"},
	} {
		_, err := parseNoPanic(t, "bundle.toml", strings.Replace(spec, `hedge = ["null", { value = 10.0, hedge_cancel = true }, { value = "null", hedge_quantile = 0.95 }]`, c.axis, 1))
		if err == nil || !strings.Contains(err.Error(), "bundle.toml") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error naming bundle.toml and %q", c.axis, err, c.want)
		}
	}
}

// A policy table may carry other (non-policy) parameters with the policy, as any axis value may: policy =
// ["round_robin", { name = "least_outstanding", errors_active = 100.0 }] is round robin, then least outstanding with
// errors counted as active. Another policy's argument is still an error, naming the policy.
func TestPolicyTableBundles(t *testing.T) {
	const spec = `name = "bundle"
model = "resilience"
seed = 1
[params]
servers = [{ count = 2 }]
rate = 10.0
horizon = 1000.0
[sweep]
policy = ["round_robin", { name = "least_outstanding", errors_active = 100.0 }]
`
	s, err := parseNoPanic(t, "bundle.toml", spec)
	if err != nil {
		t.Fatal(err)
	}
	if k := pointKey(s, 0); strings.Contains(k, "errors_active") {
		t.Errorf("point 0's key %q sets errors_active", k)
	}
	if k := pointKey(s, 1); !strings.Contains(k, "errors_active=100") || !strings.Contains(k, "policy=least_outstanding") {
		t.Errorf("point 1's key %q: want least_outstanding with errors_active=100", k)
	}
	_, err = parseNoPanic(t, "bundle.toml", strings.Replace(spec, "errors_active = 100.0", "tau = 5.0", 1))
	if err == nil || !strings.Contains(err.Error(), "does not take") || !strings.Contains(err.Error(), "tau") {
		t.Errorf("least_outstanding with tau: %v, want an error naming tau", err)
	}
}
