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
