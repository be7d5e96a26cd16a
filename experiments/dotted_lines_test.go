package experiments_test

import (
	"strings"
	"testing"

	"lbsweep/experiments"
)

// TestDottedKeyLines guards the line numbers of errors at dotted keys (issue 20: they had none or the table's
// header's): `sweep.lambda = ...` at the top level, `lambda.from = ...` inside [sweep], `kind.x = ...` inside a
// [[figure]], and a key after a multi-line string.
func TestDottedKeyLines(t *testing.T) {
	head := "name = \"x\"\nmodel = \"supermarket\"\nseed = 1\n"
	cases := []struct{ text, want string }{
		{head + "\nparams.n = 10\nparams.horizon = 10.0\nparams.policy = \"random\"\nsweep.lambda = [0.5, 2.0]\n", "x.toml:8: sweep.lambda: "},
		{head + "[params]\nn = 10\nhorizon = 10.0\npolicy = \"random\"\n[sweep]\nlambda.from = 0.5\nlambda.to = 2.0\nlambda.step = 0.5\n", "x.toml:9: sweep.lambda: "},
		{head + "[params]\nn = 10\nhorizon = 10.0\npolicy = \"random\"\nlambda = 0.5\n[[figure]]\nname = \"a\"\nkind.x = 1\n", "x.toml:11: figure[0].kind: "},
		{"name = \"x\"\nmodel = \"supermarket\"\ndescription = \"\"\"\nline\nline\n\"\"\"\nseed = 1\n[params]\nn = 10\nhorizon = -10.0\npolicy = \"random\"\nlambda = 0.5\n", "x.toml:10: params.horizon: "},
	}
	for _, c := range cases {
		_, err := experiments.Parse("x.toml", c.text)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("error %v, want it to start %q; spec:\n%s", err, c.want, c.text)
		}
	}
}
