package experiments_test

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"lbsweep/experiments"
	"lbsweep/model"
	"lbsweep/model/policy"
)

// specBase is a small valid spec; the bad-input cases below each change one thing in it. Its line numbers are asserted,
// so keep them as they are:
//
//	1 name, 2 model, 3 seed, 4 replications, 6 [params], 7 n, 8 horizon, 9 warmup, 11 [sweep], 12 lambda, 13 policy
const specBase = `name = "t"
model = "supermarket"
seed = 1
replications = 2

[params]
n = 10
horizon = 100.0
warmup = 10.0

[sweep]
lambda = [0.5, 0.9]
policy = ["random", { name = "jsq_d", d = 2 }]
`

// editBase returns specBase with the first occurrence of old replaced by new (it fails the test if old is not in
// specBase), and tail appended.
func editBase(t *testing.T, old, new, tail string) string {
	t.Helper()
	if old != "" && !strings.Contains(specBase, old) {
		t.Fatalf("test bug: %q is not in the base spec", old)
	}
	return strings.Replace(specBase, old, new, 1) + tail
}

// parseNoPanic calls Parse and turns a panic into a test failure.
func parseNoPanic(t *testing.T, file, text string) (s *experiments.Spec, err error) {
	t.Helper()
	defer func() {
		if p := recover(); p != nil {
			t.Fatalf("Parse panicked: %v\n--- spec:\n%s", p, text)
		}
	}()
	return experiments.Parse(file, text)
}

func TestParseBadInput(t *testing.T) {
	const figure = "\n[[figure]]\nname = \"f\"\n"   // lines 14 (blank), 15 [[figure]], 16 name; the next key is on 17
	const expect = "\n[[expect]]\nsource = \"s\"\n" // same layout for [[expect]]
	const table = "\n[[table]]\nname = \"t\"\n"     // same layout for [[table]]

	// A by-parameter table's shape on lines 17 and 18, after table.
	const byLambda = "columns = \"lambda\"\nmetric = \"mean_sojourn\"\n"
	tests := []struct {
		name     string
		old, new string // edit of specBase
		tail     string // appended after the edit
		key      string // the key path the message must contain ("" for TOML syntax errors)
		line     int    // the exact line expected (0: not asserted)
		want     string // a fragment of the message
	}{
		// Typos in keys.
		{name: "typo top-level key", old: "replications = 2", new: "replication = 3", key: "replication", line: 4, want: "unknown key"},
		{name: "typo top-level table", old: "[sweep]", new: "[sweeps]", key: "sweeps", line: 11, want: "unknown key"},
		{name: "typo params key", old: "horizon = 100.0", new: "horizn = 100.0", key: "params.horizn", line: 8, want: "unknown parameter of model supermarket"},
		{name: "typo sweep axis", old: "lambda = [0.5, 0.9]", new: "lamda = [0.5, 0.9]", key: "sweep.lamda", line: 12, want: "unknown parameter"},
		{name: "unknown range key", old: "lambda = [0.5, 0.9]", new: "lambda = { from = 0.5, to = 0.9, stp = 0.1 }", key: "sweep.lambda", line: 12, want: `unknown range key "stp"`},

		// Keys with control characters are quoted, so the message stays one line.
		{name: "key with a newline", old: "seed = 1", new: "seed = 1\n\"see\\nd\" = 2", key: `"see\nd"`, line: 0, want: "unknown key"},
		{name: "params key with a newline", old: "n = 10", new: "n = 10\n\"x\\ty\" = 2", key: `"params.x\ty"`, line: 0, want: "unknown parameter"},
		{name: "duplicate key with a newline", old: "seed = 1", new: "seed = 1\n\"a\\nb\" = 2\n\"a\\nb\" = 3", line: 5, want: "TOML syntax"},

		// Wrong types.
		{name: "n string", old: "n = 10", new: `n = "100"`, key: "params.n", line: 7, want: "expected an integer, got a string"},
		{name: "n float", old: "n = 10", new: "n = 100.0", key: "params.n", line: 7, want: "write 100"},
		{name: "n fractional", old: "n = 10", new: "n = 10.5", key: "params.n", line: 7, want: "expected an integer, got a float"},
		{name: "lambda string axis", old: "lambda = [0.5, 0.9]", new: `lambda = "0.9"`, key: "sweep.lambda", line: 12, want: "expected a list"},
		{name: "lambda string element", old: "lambda = [0.5, 0.9]", new: `lambda = [0.5, "0.9"]`, key: "sweep.lambda", line: 12, want: "element 2: expected a number, got a string"},
		{name: "lambda string in params", old: "[sweep]\nlambda = [0.5, 0.9]\n", new: "lambda = \"0.9\"\n[sweep]\n", key: "params.lambda", line: 11, want: "expected a number, got a string"},
		{name: "replications float", old: "replications = 2", new: "replications = 2.5", key: "replications", line: 4, want: "expected an integer, got a float"},
		{name: "replications zero", old: "replications = 2", new: "replications = 0", key: "replications", line: 4, want: "need 1 ≤ replications"},
		{name: "allow_unstable int", old: "seed = 1", new: "seed = 1\nallow_unstable = 1", key: "allow_unstable", line: 4, want: "expected a boolean"},
		{name: "params not a table", old: "[params]\nn = 10\nhorizon = 100.0\nwarmup = 10.0\n", new: "params = 3\n", key: "params", line: 6, want: "expected a table"},
		{name: "replacement not bool", old: `d = 2 }`, new: `d = 2, replacement = "yes" }`, key: "sweep.policy", line: 13, want: "policy jsq_d, replacement: expected a boolean"},

		// Out-of-range values.
		{name: "d > n", old: `d = 2 }`, new: `d = 11 }`, key: "sweep.policy", line: 13, want: "need 1 ≤ d ≤ n (n = 10)"},
		{name: "d = 0", old: `d = 2 }`, new: `d = 0 }`, key: "sweep.policy", line: 13, want: "need 1 ≤ d ≤ n"},
		{name: "d > n in params", old: "[sweep]\nlambda = [0.5, 0.9]\npolicy = [\"random\", { name = \"jsq_d\", d = 2 }]\n",
			new: "policy = { name = \"jsq_d\", d = 20 }\n[sweep]\nlambda = [0.5, 0.9]\n", key: "params.policy", line: 11, want: "d 20: need 1 ≤ d ≤ n"},
		{name: "n = 0", old: "n = 10", new: "n = 0", key: "params.n", line: 7, want: "need 1 ≤ n ≤ 67108864"},
		{name: "lambda = 1 refused", old: "lambda = [0.5, 0.9]", new: "lambda = [0.5, 1.0]", key: "sweep.lambda", line: 12, want: "allow_unstable = true"},
		{name: "lambda = 1.2 refused", old: "lambda = [0.5, 0.9]", new: "lambda = [1.2]", key: "sweep.lambda", line: 12, want: "unstable"},
		{name: "lambda = 0", old: "lambda = [0.5, 0.9]", new: "lambda = [0.0, 0.5]", key: "sweep.lambda", line: 12, want: "need 0 < λ"},
		{name: "lambda negative", old: "lambda = [0.5, 0.9]", new: "lambda = [0.5, -0.5]", key: "sweep.lambda", line: 12, want: "-0.5: need 0 < λ"},
		{name: "lambda nan", old: "lambda = [0.5, 0.9]", new: "lambda = [nan]", key: "sweep.lambda", line: 12, want: "not a usable value"},
		{name: "lambda inf", old: "lambda = [0.5, 0.9]", new: "lambda = [inf]", key: "sweep.lambda", line: 12, want: "not a usable value"},
		{name: "warmup = horizon", old: "warmup = 10.0", new: "warmup = 100.0", key: "params.warmup", line: 9, want: "need 0 ≤ warmup < horizon (100)"},
		{name: "warmup > horizon", old: "warmup = 10.0", new: "warmup = 200", key: "params.warmup", line: 9, want: "need 0 ≤ warmup < horizon"},
		{name: "warmup negative", old: "warmup = 10.0", new: "warmup = -1.0", key: "params.warmup", line: 9, want: "-1: need 0 ≤ warmup"},
		{name: "horizon = 0", old: "horizon = 100.0", new: "horizon = 0.0", key: "params.horizon", line: 8, want: "horizon > 0"},
		{name: "negative seed", old: "seed = 1", new: "seed = -1", key: "seed", line: 3, want: "need an integer ≥ 0"},

		// Broken TOML: the line of the fault, no key path.
		{name: "unclosed header", old: "[sweep]", new: "[sweep", line: 11, want: "TOML syntax"},
		{name: "unclosed string", old: `name = "t"`, new: `name = "t`, line: 1, want: "TOML syntax"},
		{name: "unclosed array", old: "lambda = [0.5, 0.9]", new: "lambda = [0.5, 0.9", line: 13, want: "expected a comma"},
		{name: "duplicate key", old: "seed = 1", new: "seed = 1\nseed = 2", line: 4, want: "already been defined"},
		{name: "bad number quoting a newline", old: "lambda = [0.5, 0.9]", new: "lambda = [0b", line: 12, want: `not a binary number: '0b\n'`},
		{name: "missing value", old: "seed = 1", new: "seed =", line: 3, want: "TOML syntax"},

		// Unknown names.
		{name: "unknown policy", old: `"random"`, new: `"randon"`, key: "sweep.policy", line: 13, want: `element 1: unknown policy "randon" (valid: ` + strings.Join(policy.Names(), ", ") + ")"},
		{name: "unknown policy in table", old: `name = "jsq_d"`, new: `name = "jsqd"`, key: "sweep.policy", line: 13, want: `unknown policy "jsqd"`},
		{name: "unknown model", old: `model = "supermarket"`, new: `model = "supermarkt"`, key: "model", line: 2, want: `unknown model "supermarkt" (models: balls_into_bins, bulletin_board, fleet, placement, resilience, subsetting, supermarket, wrr_sequence)`},
		{name: "model not a string", old: `model = "supermarket"`, new: `model = 1`, key: "model", line: 2, want: "expected a string"},

		// Missing required keys: no line to point at.
		{name: "missing seed", old: "seed = 1\n", new: "", key: "seed", want: "missing"},
		{name: "missing name", old: "name = \"t\"\n", new: "", key: "name", want: "missing"},
		{name: "missing model", old: "model = \"supermarket\"\n", new: "", key: "model", want: "missing"},
		{name: "missing n", old: "n = 10\n", new: "", key: "params", line: 6, want: "n is required"},

		// Axes.
		{name: "empty list axis", old: "lambda = [0.5, 0.9]", new: "lambda = []", key: "sweep.lambda", line: 12, want: "empty list"},
		{name: "empty range", old: "lambda = [0.5, 0.9]", new: "lambda = { from = 0.9, to = 0.5, step = 0.1 }", key: "sweep.lambda", line: 12, want: "empty range: to (0.5) < from (0.9)"},
		{name: "step zero", old: "lambda = [0.5, 0.9]", new: "lambda = { from = 0.5, to = 0.9, step = 0.0 }", key: "sweep.lambda", line: 12, want: "need step > 0"},
		{name: "step negative", old: "lambda = [0.5, 0.9]", new: "lambda = { from = 0.5, to = 0.9, step = -0.1 }", key: "sweep.lambda", line: 12, want: "range step -0.1: need step > 0"},
		{name: "step tiny", old: "lambda = [0.5, 0.9]", new: "lambda = { from = 0.5, to = 0.9, step = 1e-9 }", key: "sweep.lambda", line: 12, want: "at most 1000000 per axis"},
		{name: "range missing to", old: "lambda = [0.5, 0.9]", new: "lambda = { from = 0.5, step = 0.1 }", key: "sweep.lambda", line: 12, want: `range is missing "to"`},
		{name: "int range float step", old: "lambda = [0.5, 0.9]", new: "lambda = [0.5]\nn = { from = 2, to = 8, step = 0.5 }", key: "sweep.n", line: 13, want: "also fixed in [params]"},
		{name: "range on policy", old: `policy = ["random", { name = "jsq_d", d = 2 }]`, new: "policy = { from = 1, to = 2, step = 1 }", key: "sweep.policy", line: 13, want: "a range needs a numeric parameter"},

		// Names.
		{name: "name with space", old: `name = "t"`, new: `name = "My Exp"`, key: "name", line: 1, want: `"My Exp": a dataset name is lowercase`},
		{name: "reserved name", old: `name = "t"`, new: `name = "schema"`, key: "name", line: 1, want: `"schema" is reserved`},
		{name: "name uppercase", old: `name = "t"`, new: `name = "Homo"`, key: "name", line: 1, want: "[a-z0-9-]+"},
		{name: "name underscore", old: `name = "t"`, new: `name = "my_exp"`, key: "name", line: 1, want: "[a-z0-9-]+"},
		{name: "name empty", old: `name = "t"`, new: `name = ""`, key: "name", line: 1, want: "[a-z0-9-]+"},
		{name: "name path", old: `name = "t"`, new: `name = "../t"`, key: "name", line: 1, want: "[a-z0-9-]+"},

		// Policies and their arguments.
		{name: "policy table without name", old: `{ name = "jsq_d", d = 2 }`, new: "{ d = 2 }", key: "sweep.policy", line: 13, want: "element 2: a policy table needs name"},
		{name: "policy name not a string", old: `{ name = "jsq_d", d = 2 }`, new: "{ name = 2 }", key: "sweep.policy", line: 13, want: "name must be a string"},
		{name: "argument not taken", old: `"random"`, new: `{ name = "random", d = 2 }`, key: "sweep.policy", line: 13, want: `policy random does not take "d" (no arguments)`},
		{name: "unknown argument", old: `d = 2 }`, new: `d = 2, k = 3 }`, key: "sweep.policy", line: 13, want: `policy jsq_d does not take "k" (arguments: d, replacement)`},
		{name: "jsq_d without d", old: `{ name = "jsq_d", d = 2 }`, new: `"jsq_d"`, key: "sweep.policy", line: 13, want: "policy jsq_d needs d"},
		{name: "policy number", old: `"random"`, new: "3", key: "sweep.policy", line: 13, want: "expected a policy name or an inline table"},

		// One parameter set in two places.
		{name: "params and sweep", old: "warmup = 10.0", new: "warmup = 10.0\nlambda = 0.5", key: "sweep.lambda", line: 13, want: "also fixed in [params]: set it in one place"},
		{name: "params d and policy axis d", old: "warmup = 10.0", new: "warmup = 10.0\nd = 3", key: "sweep.policy", line: 14, want: "sets d, which params.d also sets"},
		{name: "params d and params policy d", old: "[sweep]\nlambda = [0.5, 0.9]\npolicy = [\"random\", { name = \"jsq_d\", d = 2 }]\n",
			new: "d = 3\npolicy = { name = \"jsq_d\", d = 2 }\n[sweep]\nlambda = [0.5, 0.9]\n", key: "params.policy", line: 12, want: "d is set both here and as params.d"},
		{name: "params policy d and d axis", old: "[sweep]\nlambda = [0.5, 0.9]\npolicy = [\"random\", { name = \"jsq_d\", d = 2 }]\n",
			new: "policy = { name = \"jsq_d\", d = 2 }\n[sweep]\nlambda = [0.5, 0.9]\nd = [1, 2]\n", key: "sweep.d", line: 14, want: "also fixed in [params] by params.policy"},
		{name: "d axis and policy axis d", old: "lambda = [0.5, 0.9]", new: "lambda = [0.5, 0.9]\nd = [3]", key: "sweep.policy", line: 14, want: "sets d, which sweep.d also sets"},
		{name: "duplicate policy", old: `"random", `, new: `"random", "random", `, key: "sweep.policy", line: 13, want: "values 1 and 2 are the same"},
		{name: "duplicate lambda", old: "lambda = [0.5, 0.9]", new: "lambda = [0.5, 0.9, 0.50]", key: "sweep.lambda", line: 12, want: "values 1 and 3 are the same"},
		{name: "duplicate after defaults", old: `{ name = "jsq_d", d = 2 }`, new: `{ name = "jsq_d", d = 2 }, { name = "jsq_d", d = 2, replacement = false }`, key: "sweep.policy", line: 13, want: "values 2 and 3 give the same grid point"},
		{name: "d axis with random", old: `{ name = "jsq_d", d = 2 }`, new: `"jsq_d"]` + "\nd = [1, 2]\n#", key: "sweep.d", line: 14, want: "null for a policy that does not take them"},

		// [[figure]] and [[expect]].
		{name: "unknown figure kind", tail: figure + "kind = \"pie\"\n", key: "figure[0].kind", line: 17, want: `unknown figure kind "pie"`},
		{name: "second figure's kind", tail: figure + "kind = \"queue_tail\"\n" + "\n[[figure]]\nname = \"g\"\nkind = \"bar\"\n", key: "figure[1].kind", line: 21, want: `unknown figure kind "bar"`},
		{name: "figure unknown key", tail: figure + "kind = \"queue_tail\"\ncolour = \"red\"\n", key: "figure[0].colour", line: 18, want: "unknown key"},
		{name: "figure unknown where column", tail: figure + "kind = \"queue_tail\"\nwhere = { lamda = 0.5 }\n", key: "figure[0].where", line: 18, want: `unknown column "lamda"`},
		{name: "figure where wrong type", tail: figure + "kind = \"queue_tail\"\nwhere = { policy = 1 }\n", key: "figure[0].where", line: 18, want: "policy: expected a string value"},
		{name: "figure unknown y", tail: figure + "kind = \"metric\"\nx = \"lambda\"\ny = \"mean_sojurn\"\n", key: "figure[0].y", line: 19, want: `unknown column "mean_sojurn"`},
		{name: "figure bad name", tail: "\n[[figure]]\nname = \"Tail\"\nkind = \"queue_tail\"\n", key: "figure[0].name", line: 16, want: "[a-z0-9-]+"},
		{name: "figure without kind", tail: figure, key: "figure[0].kind", line: 15, want: "missing"},
		{name: "figure as table", tail: "\n[figure]\nname = \"f\"\n", key: "figure", line: 15, want: "expected an array of tables ([[figure]])"},
		{name: "expect unknown where column", tail: expect + "metric = \"mean_sojourn\"\nwhere = { lamda = 0.5 }\napprox = 1.0\ntol = 0.1\n", key: "expect[0].where", line: 18, want: `unknown column "lamda"`},
		{name: "expect two relations", tail: expect + "metric = \"mean_sojourn\"\napprox = 1.0\ntol = 0.1\nless_than = { policy = \"random\" }\n", key: "expect[0]", line: 15, want: "exactly one relation"},
		{name: "expect no relation", tail: expect + "metric = \"mean_sojourn\"\n", key: "expect[0]", line: 15, want: "(found 0)"},
		{name: "expect list without level", tail: expect + "metric = \"queue_tail\"\napprox = 1.0\ntol = 0.1\n", key: "expect[0].level", line: 15, want: "queue_tail is a list: give level"},
		{name: "expect level zero", tail: expect + "metric = \"queue_tail\"\nlevel = 0\napprox = 1.0\ntol = 0.1\n", key: "expect[0].level", line: 18, want: "give level = i ≥ 1"},
		{name: "expect level on scalar", tail: expect + "metric = \"mean_sojourn\"\nlevel = 2\napprox = 1.0\ntol = 0.1\n", key: "expect[0].level", line: 18, want: "not a list column"},
		{name: "expect unknown metric", tail: expect + "metric = \"mean\"\napprox = 1.0\ntol = 0.1\n", key: "expect[0].metric", line: 17, want: `unknown column "mean"`},
		{name: "expect approx without tol", tail: expect + "metric = \"mean_sojourn\"\napprox = 1.0\n", key: "expect[0].tol", line: 15, want: "tol ≥ 0"},
		{name: "expect string metric", tail: expect + "metric = \"policy\"\napprox = 1.0\ntol = 0.1\n", key: "expect[0].metric", line: 17, want: "needs a numeric or boolean column"},
		{name: "expect missing source", tail: "\n[[expect]]\nmetric = \"mean_sojourn\"\napprox = 1.0\ntol = 0.1\n", key: "expect[0].source", line: 15, want: "missing"},
		{name: "expect ratio min > max", tail: expect + "metric = \"mean_sojourn\"\nratio = { where = { policy = \"random\" }, min = 2, max = 1 }\n", key: "expect[0].ratio", line: 18, want: "min ≤ max"},
		{name: "expect string bound", tail: expect + "metric = \"mean_sojourn\"\ngreater_than = \"abc\"\n", key: "expect[0].greater_than", line: 18, want: "expected a finite number (a constant bound)"},
		{name: "expect list bound", tail: expect + "metric = \"mean_sojourn\"\nless_than = [1, 2]\n", key: "expect[0].less_than", line: 18, want: "got an array"},
		{name: "expect infinite bound", tail: expect + "metric = \"mean_sojourn\"\nless_than = inf\n", key: "expect[0].less_than", line: 18, want: "finite number"},
		{name: "expect bool bound above one", tail: expect + "metric = \"unstable\"\nless_than = 2\n", key: "expect[0].less_than", line: 18, want: "need 0 < less_than ≤ 1"},
		{name: "expect bool bound at zero", tail: expect + "metric = \"unstable\"\nless_than = 0\n", key: "expect[0].less_than", line: 18, want: "fraction of runs where it is true"},
		{name: "expect bool bound below zero", tail: expect + "metric = \"unstable\"\ngreater_than = -0.5\n", key: "expect[0].greater_than", line: 18, want: "need 0 ≤ greater_than < 1"},
		{name: "expect bool approx above one", tail: expect + "metric = \"unstable\"\napprox = 1.5\ntol = 0.1\n", key: "expect[0].approx", line: 18, want: "need 0 ≤ approx ≤ 1"},
		{name: "expect bool draw not 0 or 1", tail: expect + "metric = \"unstable\"\nin_law = 0.5\n", key: "expect[0].in_law", line: 18, want: "is 0 (false) or 1 (true)"},
		{name: "expect bad theory column", tail: expect + "metric = \"mean_sojourn\"\ntheory = \"theory_queue_tail\"\n", key: "expect[0].theory", line: 18, want: "not a theory column matching mean_sojourn"},

		// [[table]]: exactly one of columns + metric (by parameter) or metrics (by metric).
		{name: "table unknown key", tail: table + byLambda + "colour = \"red\"\n", key: "table[0].colour", line: 19, want: "unknown key (valid keys: name, title, rows, columns"},
		{name: "table unknown metric", tail: table + "columns = \"lambda\"\nmetric = \"mean_sojurn\"\n", key: "table[0].metric", line: 18, want: `unknown column "mean_sojurn"`},
		{name: "table string metric", tail: table + "columns = \"lambda\"\nmetric = \"policy\"\n", key: "table[0].metric", line: 18, want: `column "policy" is string: a table shows numeric`},
		{name: "table list metric", tail: table + "metrics = [\"mean_sojourn\", \"queue_tail\"]\n", key: "table[0].metrics", line: 17, want: `column "queue_tail" is list<double>`},
		{name: "table metrics not a list", tail: table + "metrics = \"mean_sojourn\"\n", key: "table[0].metrics", line: 17, want: "expected a list of column names, got a string"},
		{name: "table metrics empty", tail: table + "metrics = []\n", key: "table[0].metrics", line: 17, want: "empty list"},
		{name: "table metrics twice", tail: table + "metrics = [\"p99_sojourn\", \"p99_sojourn\"]\n", key: "table[0].metrics", line: 17, want: `"p99_sojourn" is listed twice`},
		{name: "table unknown columns", tail: table + "columns = \"lamda\"\nmetric = \"mean_sojourn\"\n", key: "table[0].columns", line: 17, want: `unknown column "lamda"`},
		{name: "table columns not a parameter", tail: table + "columns = \"jobs\"\nmetric = \"mean_sojourn\"\n", key: "table[0].columns", line: 17, want: `"jobs" is not a parameter`},
		{name: "table columns also in rows", tail: table + "rows = [\"policy\", \"lambda\"]\n" + byLambda, key: "table[0].columns", line: 18, want: `"lambda" is also in rows`},
		{name: "table both shapes", tail: table + byLambda + "metrics = [\"p99_sojourn\"]\n", key: "table[0]", line: 15, want: "not both"},
		{name: "table no shape", tail: table + "rows = \"policy\"\n", key: "table[0]", line: 15, want: "give columns and metric"},
		{name: "table metric without columns", tail: table + "metric = \"mean_sojourn\"\n", key: "table[0].columns", line: 15, want: "missing: metric = ... needs columns"},
		{name: "table columns without metric", tail: table + "columns = \"lambda\"\n", key: "table[0].metric", line: 15, want: "missing: columns = ... needs metric"},
		{name: "table unknown rows column", tail: table + "rows = [\"policy\", \"dd\"]\n" + byLambda, key: "table[0].rows", line: 17, want: `unknown column "dd"`},
		{name: "table rows not names", tail: table + "rows = [\"policy\", 2]\n" + byLambda, key: "table[0].rows", line: 17, want: "expected column names, got an integer"},
		{name: "table list rows column", tail: table + "rows = \"queue_tail\"\nmetrics = [\"jobs\"]\n", key: "table[0].rows", line: 17, want: "is a list: rows are made from scalar columns"},
		{name: "table unknown stat", tail: table + byLambda + "stat = \"max\"\n", key: "table[0].stat", line: 19, want: `unknown stat "max"`},
		{name: "table alpha with median", tail: table + byLambda + "alpha = 0.1\n", key: "table[0].alpha", line: 19, want: `alpha needs stat = "mean"`},
		{name: "table alpha out of range", tail: table + byLambda + "stat = \"mean\"\nalpha = 1.5\n", key: "table[0].alpha", line: 20, want: "need 0 < alpha < 1"},
		{name: "table digits zero", tail: table + byLambda + "digits = 0\n", key: "table[0].digits", line: 19, want: "need 1 ≤ digits ≤ 17"},
		{name: "table digits float", tail: table + byLambda + "digits = 3.0\n", key: "table[0].digits", line: 19, want: "expected an integer, got a float"},
		{name: "table where wrong type", tail: table + byLambda + "where = { n = \"10\" }\n", key: "table[0].where", line: 19, want: "n: expected a int64 value, got a string"},
		{name: "table title not a string", tail: table + byLambda + "title = 3\n", key: "table[0].title", line: 19, want: "expected a string, got an integer"},
		{name: "table bad name", tail: "\n[[table]]\nname = \"P99\"\n" + byLambda, key: "table[0].name", line: 16, want: "[a-z0-9-]+"},
		{name: "table without name", tail: "\n[[table]]\n" + byLambda, key: "table[0].name", line: 15, want: "missing"},
		{name: "table duplicate name", tail: table + byLambda + table + byLambda, key: "table[1].name", line: 21, want: `"t": need a unique name`},
		{name: "second table's metric", tail: table + byLambda + "\n[[table]]\nname = \"u\"\nmetrics = [\"mean_sojourn\", \"p99\"]\n", key: "table[1].metrics", line: 22, want: `unknown column "p99"`},
		{name: "table as table", tail: "\n[table]\nname = \"t\"\n", key: "table", line: 15, want: "expected an array of tables ([[table]])"},
		{name: "typo tables", tail: "\n[[tables]]\nname = \"t\"\n", key: "tables", line: 15, want: "unknown key"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			const file = "bad/spec.toml"
			text := editBase(t, tc.old, tc.new, tc.tail)
			s, err := parseNoPanic(t, file, text)
			if err == nil {
				t.Fatalf("Parse accepted the spec (%d runs)\n--- spec:\n%s", s.Runs(), text)
			}
			var e *experiments.Error
			if !errors.As(err, &e) {
				t.Fatalf("error %T is not *experiments.Error: %v", err, err)
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, file) {
				t.Errorf("message does not start with the file name %q: %s", file, msg)
			}
			if e.File != file {
				t.Errorf("File = %q, want %q", e.File, file)
			}
			if tc.key != "" {
				gotKey := e.Key
				if strings.HasPrefix(tc.key, `"`) { // a key with control characters is quoted in the message
					gotKey = strconv.Quote(e.Key)
				}
				if gotKey != tc.key {
					t.Errorf("Key = %q, want %q (message: %s)", e.Key, tc.key, msg)
				}
				if !strings.Contains(msg, tc.key) {
					t.Errorf("message does not contain the key path %q: %s", tc.key, msg)
				}
			}
			if tc.line > 0 {
				if e.Line != tc.line {
					t.Errorf("Line = %d, want %d (message: %s)", e.Line, tc.line, msg)
				}
				if prefix := fmt.Sprintf("%s:%d: ", file, tc.line); !strings.HasPrefix(msg, prefix) {
					t.Errorf("message does not start with %q: %s", prefix, msg)
				}
			}
			if !strings.Contains(msg, tc.want) {
				t.Errorf("message does not contain %q: %s", tc.want, msg)
			}
			if strings.Contains(msg, "\n") {
				t.Errorf("message spans several lines: %q", msg)
			}
		})
	}
}

func TestLoadMissingFile(t *testing.T) {
	const path = "testdata/no-such-spec.toml"
	_, err := experiments.Load(path)
	var e *experiments.Error
	if !errors.As(err, &e) || !strings.HasPrefix(err.Error(), path) {
		t.Fatalf("Load(%q) = %v, want an *experiments.Error naming the file", path, err)
	}
}

func TestUnstableAllowed(t *testing.T) {
	for _, lambdas := range []string{"[0.5, 1.0]", "[1.2]", "[0.5, 1.0, 1.2]"} {
		text := editBase(t, "lambda = [0.5, 0.9]", "lambda = "+lambdas, "")
		if _, err := parseNoPanic(t, "u.toml", text); err == nil {
			t.Errorf("lambda = %s accepted without allow_unstable", lambdas)
		}
		text = editBase(t, "seed = 1", "seed = 1\nallow_unstable = true", "")
		text = strings.Replace(text, "lambda = [0.5, 0.9]", "lambda = "+lambdas, 1)
		s, err := parseNoPanic(t, "u.toml", text)
		if err != nil {
			t.Fatalf("lambda = %s with allow_unstable = true: %v", lambdas, err)
		}
		if !s.AllowUnstable {
			t.Errorf("AllowUnstable = false")
		}
		n := 0
		for _, w := range s.Warnings {
			if strings.Contains(w, "unstable") {
				n++
			}
		}
		want := strings.Count(lambdas, "1.") // one warning per distinct unstable λ (deduplicated across policies)
		if n != want {
			t.Errorf("lambda = %s: %d unstable warnings, want %d: %q", lambdas, n, want, s.Warnings)
		}
	}
	// allow_unstable does not allow λ ≤ 0.
	text := editBase(t, "seed = 1", "seed = 1\nallow_unstable = true", "")
	text = strings.Replace(text, "lambda = [0.5, 0.9]", "lambda = [0.0]", 1)
	if _, err := parseNoPanic(t, "u.toml", text); err == nil {
		t.Error("lambda = 0 accepted with allow_unstable = true")
	}
	// A stable spec has no unstable warning, and ≥ 2 replications no CI warning.
	s, err := parseNoPanic(t, "ok.toml", specBase)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Warnings) != 0 {
		t.Errorf("warnings on a plain spec: %q", s.Warnings)
	}
}

func TestCommittedSpecs(t *testing.T) {
	tests := []struct {
		path            string
		name            string
		points, runs    int
		axes            []string
		figures, claims int
	}{
		{"supermarket-tail.toml", "supermarket-tail", 6, 60, []string{"lambda"}, 1, 4},
		{"homo.toml", "homo", 42, 126, []string{"policy", "lambda"}, 2, 13},
		{"hetero.toml", "hetero", 8, 24, []string{"policy"}, 1, 10},
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			s, err := experiments.Load(tc.path)
			if err != nil {
				t.Fatal(err)
			}
			if s.Name != tc.name || s.File != tc.path || s.Model.Name() != "supermarket" {
				t.Errorf("Name, File, Model = %q, %q, %q", s.Name, s.File, s.Model.Name())
			}
			if s.Points() != tc.points || s.Runs() != tc.runs {
				t.Errorf("Points, Runs = %d, %d; want %d, %d", s.Points(), s.Runs(), tc.points, tc.runs)
			}
			var axes []string
			for _, a := range s.Axes {
				axes = append(axes, a.Key)
			}
			if fmt.Sprint(axes) != fmt.Sprint(tc.axes) {
				t.Errorf("axes %v, want %v (file order)", axes, tc.axes)
			}
			if len(s.Figures) != tc.figures || len(s.Expects) != tc.claims {
				t.Errorf("%d figures, %d claims; want %d, %d", len(s.Figures), len(s.Expects), tc.figures, tc.claims)
			}
			if len(s.Warnings) != 0 && !s.AllowUnstable { // hetero's random and round robin are unstable on purpose
				t.Errorf("warnings: %q", s.Warnings)
			}
			if len(s.SHA256) != 64 || s.Text == "" {
				t.Errorf("SHA256 %q, %d bytes of text", s.SHA256, len(s.Text))
			}
			keys := map[string]bool{}
			for i := range s.Runs() {
				r := s.Run(i)
				if r.Index != i || r.PointIndex != i/s.Replications || r.Replication != i%s.Replications {
					t.Fatalf("Run(%d) = index %d, point %d, replication %d", i, r.Index, r.PointIndex, r.Replication)
				}
				keys[r.Key] = true
			}
			if len(keys) != tc.points {
				t.Errorf("%d distinct point keys, want %d", len(keys), tc.points)
			}
		})
	}
}

// axisValues returns the values of the axis named key (one assignment per value).
func axisValues(t *testing.T, s *experiments.Spec, key string) []model.Value {
	t.Helper()
	for _, a := range s.Axes {
		if a.Key == key {
			var out []model.Value
			for _, set := range a.Values {
				if len(set) != 1 {
					t.Fatalf("axis %s: setting %v has %d assignments", key, set, len(set))
				}
				out = append(out, set[0].Value)
			}
			return out
		}
	}
	t.Fatalf("no axis %s", key)
	return nil
}

func TestRanges(t *testing.T) {
	text := editBase(t, "lambda = [0.5, 0.9]", "lambda = { from = 0.5, to = 0.99, step = 0.01 }", "")
	s, err := parseNoPanic(t, "r.toml", text)
	if err != nil {
		t.Fatal(err)
	}
	vals := axisValues(t, s, "lambda")
	if len(vals) != 50 {
		t.Fatalf("0.5..0.99 step 0.01: %d values, want 50", len(vals))
	}
	for i, v := range vals {
		// from + i·step, rounded to 12 significant digits: 0.5 + 7·0.01 is stored as 0.57, not 0.5700000000000001.
		want, _ := strconv.ParseFloat(strconv.FormatFloat(0.5+float64(i)*0.01, 'g', 12, 64), 64)
		if v.F != want || !v.Valid {
			t.Errorf("value %d = %v, want exactly %v (from + i·step, 12 significant digits)", i, v.F, want)
		}
		if got := strconv.FormatFloat(v.F, 'g', -1, 64); len(got) > 4 {
			t.Errorf("value %d prints as %s: float noise from the range arithmetic", i, got)
		}
	}
	if last := vals[len(vals)-1].F; math.Abs(last-0.99) > 1e-12 {
		t.Errorf("last value %v, want 0.99 within 1e-12", last)
	}
	if s.Points() != 100 || s.Runs() != 200 {
		t.Errorf("Points, Runs = %d, %d; want 100, 200", s.Points(), s.Runs())
	}

	// The same range in dotted-key form.
	text = editBase(t, "lambda = [0.5, 0.9]", "lambda.from = 0.5\nlambda.to = 0.99\nlambda.step = 0.01", "")
	s, err = parseNoPanic(t, "r.toml", text)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(axisValues(t, s, "lambda")); n != 50 {
		t.Errorf("dotted-key range: %d values, want 50", n)
	}

	// Integer ranges, inclusive of to when it is on the grid, exclusive when it is not.
	for _, tc := range []struct {
		rng  string
		want []int64
	}{
		{"{ from = 2, to = 10, step = 4 }", []int64{2, 6, 10}},
		{"{ from = 2, to = 9, step = 4 }", []int64{2, 6}},
		{"{ from = 3, to = 3, step = 1 }", []int64{3}},
		{"{ from = 2, to = 8, step = 2 }", []int64{2, 4, 6, 8}},
	} {
		text := editBase(t, "n = 10\n", "", "")
		text = strings.Replace(text, "lambda = [0.5, 0.9]", "lambda = [0.5, 0.9]\nn = "+tc.rng, 1)
		s, err := parseNoPanic(t, "r.toml", text)
		if err != nil {
			t.Fatalf("n = %s: %v", tc.rng, err)
		}
		var got []int64
		for _, v := range axisValues(t, s, "n") {
			got = append(got, v.I)
		}
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("n = %s: %v, want %v", tc.rng, got, tc.want)
		}
	}
}

// pointKey renders point i of s as its key, for order checks.
func pointKey(s *experiments.Spec, i int) string {
	p, _ := s.Point(i)
	return experiments.Key(s.Model.Params(), p)
}

func TestGridOrderAndPolicyArgs(t *testing.T) {
	// Policy first, so it varies slowest; lambda second; n third.
	text := `name = "order"
model = "supermarket"
seed = 7

[params]
horizon = 100.0
warmup = 10.0

[sweep]
policy = ["random", { name = "jsq_d", d = 2 }, { name = "jsq_d", d = 3, replacement = true }]
lambda = [0.5, 0.9]
n = [10, 20]
`
	s, err := parseNoPanic(t, "order.toml", text)
	if err != nil {
		t.Fatal(err)
	}
	if s.Points() != 12 || s.Runs() != 12 || s.Replications != 1 {
		t.Fatalf("Points, Runs, Replications = %d, %d, %d", s.Points(), s.Runs(), s.Replications)
	}
	if len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], "replications") {
		t.Errorf("warnings %q, want the one about fewer than 2 replications", s.Warnings)
	}
	want := []string{
		"n=10,lambda=0.5,load=0.5,horizon=100,warmup=10,policy=random",
		"n=20,lambda=0.5,load=0.5,horizon=100,warmup=10,policy=random",
		"n=10,lambda=0.9,load=0.9,horizon=100,warmup=10,policy=random",
		"n=20,lambda=0.9,load=0.9,horizon=100,warmup=10,policy=random",
		"n=10,lambda=0.5,load=0.5,horizon=100,warmup=10,policy=jsq_d,d=2,replacement=false",
		"n=20,lambda=0.5,load=0.5,horizon=100,warmup=10,policy=jsq_d,d=2,replacement=false",
		"n=10,lambda=0.9,load=0.9,horizon=100,warmup=10,policy=jsq_d,d=2,replacement=false",
		"n=20,lambda=0.9,load=0.9,horizon=100,warmup=10,policy=jsq_d,d=2,replacement=false",
		"n=10,lambda=0.5,load=0.5,horizon=100,warmup=10,policy=jsq_d,d=3,replacement=true",
		"n=20,lambda=0.5,load=0.5,horizon=100,warmup=10,policy=jsq_d,d=3,replacement=true",
		"n=10,lambda=0.9,load=0.9,horizon=100,warmup=10,policy=jsq_d,d=3,replacement=true",
		"n=20,lambda=0.9,load=0.9,horizon=100,warmup=10,policy=jsq_d,d=3,replacement=true",
	}
	for i, w := range want {
		if got := pointKey(s, i); got != w {
			t.Errorf("Point(%d) = %s\n                want %s", i, got, w)
		}
		if r := s.Run(i); r.Key != w {
			t.Errorf("Run(%d).Key = %s, want %s", i, r.Key, w)
		}
	}

	ps := s.Model.Params()
	idx := func(name string) int {
		i := model.Index(ps, name)
		if i < 0 {
			t.Fatalf("no parameter %s", name)
		}
		return i
	}
	pol, d, repl, n := idx("policy"), idx("d"), idx("replacement"), idx("n")

	// random: d and replacement are null.
	p, from := s.Point(0)
	if p[d].Valid || p[repl].Valid {
		t.Errorf("random: d = %+v, replacement = %+v; want both null", p[d], p[repl])
	}
	if !p[pol].Valid || ps[pol].Format(p[pol]) != "random" {
		t.Errorf("policy = %+v", p[pol])
	}
	// from: policy set by axis 0, lambda by 1, n by 2, horizon by [params].
	if from[pol] != 0 || from[idx("lambda")] != 1 || from[n] != 2 || from[idx("horizon")] != -1 {
		t.Errorf("from = %v", from)
	}
	// jsq_d without replacement: the default false, valid.
	p, _ = s.Point(4)
	if !p[d].Valid || p[d].I != 2 || !p[repl].Valid || p[repl].B {
		t.Errorf("jsq_d d = 2: d = %+v, replacement = %+v; want 2 and a valid false", p[d], p[repl])
	}
	p, _ = s.Point(8)
	if p[d].I != 3 || !p[repl].Valid || !p[repl].B {
		t.Errorf("jsq_d d = 3 with replacement: d = %+v, replacement = %+v", p[d], p[repl])
	}
	// Point does not alias Base.
	p[n] = model.IntValue(999)
	if q, _ := s.Point(8); q[n].I != 10 {
		t.Errorf("Point aliases the spec: n = %d after changing a returned point", q[n].I)
	}

	// Fixed policy in [params] with a swept argument.
	text = strings.Replace(text, `policy = ["random", { name = "jsq_d", d = 2 }, { name = "jsq_d", d = 3, replacement = true }]`, `d = [1, 2]`, 1)
	text = strings.Replace(text, "warmup = 10.0", "warmup = 10.0\npolicy = \"jsq_d\"", 1)
	s, err = parseNoPanic(t, "order.toml", text)
	if err != nil {
		t.Fatal(err)
	}
	if s.Points() != 8 {
		t.Errorf("Points = %d, want 8", s.Points())
	}
	if got, want := pointKey(s, 7), "n=20,lambda=0.9,load=0.9,horizon=100,warmup=10,policy=jsq_d,d=2,replacement=false"; got != want {
		t.Errorf("Point(7) = %s, want %s", got, want)
	}

	// An inline [sweep] table keeps the file order of its axes.
	text = `name = "inline"
model = "supermarket"
seed = 7
params = { n = 10, horizon = 100.0 }
sweep = { policy = ["random", "jsq"], lambda = [0.5, 0.9] }
`
	s, err = parseNoPanic(t, "inline.toml", text)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Axes) != 2 || s.Axes[0].Key != "policy" || s.Axes[1].Key != "lambda" {
		t.Errorf("inline sweep axes: %+v, want policy then lambda", s.Axes)
	}
}

func TestSeeds(t *testing.T) {
	parseWith := func(lambdas string) *experiments.Spec {
		t.Helper()
		text := editBase(t, "lambda = [0.5, 0.9]", "lambda = "+lambdas, "")
		text = strings.Replace(text, `policy = ["random", { name = "jsq_d", d = 2 }]`, `policy = ["random", { name = "jsq_d", d = 2 }, "jsq"]`, 1)
		s, err := parseNoPanic(t, "seeds.toml", text)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	small := parseWith("[0.5, 0.9]")
	for _, lambdas := range []string{"[0.5, 0.9, 0.95]", "[0.3, 0.5, 0.9]", "[0.9, 0.7, 0.5]"} {
		big := parseWith(lambdas)
		byKey := map[string]experiments.Run{}
		for i := range big.Runs() {
			r := big.Run(i)
			byKey[fmt.Sprint(r.Key, "#", r.Replication)] = r
		}
		if len(byKey) != big.Runs() {
			t.Fatalf("%s: %d distinct (key, replication) for %d runs", lambdas, len(byKey), big.Runs())
		}
		for i := range small.Runs() {
			r := small.Run(i)
			b, ok := byKey[fmt.Sprint(r.Key, "#", r.Replication)]
			if !ok {
				t.Fatalf("lambda = %s: point %s is gone", lambdas, r.Key)
			}
			if b.Seed != r.Seed {
				t.Errorf("lambda = %s: seed of %s rep %d changed: %+v -> %+v", lambdas, r.Key, r.Replication, r.Seed, b.Seed)
			}
		}
	}

	// The same spec parsed twice gives the same seeds; another root seed gives others.
	again := parseWith("[0.5, 0.9]")
	other, err := parseNoPanic(t, "seeds.toml", strings.Replace(small.Text, "seed = 1", "seed = 2", 1))
	if err != nil {
		t.Fatal(err)
	}
	for i := range small.Runs() {
		if small.Run(i).Seed != again.Run(i).Seed {
			t.Errorf("run %d: seed differs between two parses", i)
		}
		if small.Run(i).Seed.Run == other.Run(i).Seed.Run {
			t.Errorf("run %d: root seeds 1 and 2 give the same run seed", i)
		}
	}

	// Within one spec: policies at a point share Seed.Run (common random numbers), not Seed.Policy; replications
	// and points differ in Seed.Run; Seed.Run fits the int64 seed column.
	type envRep struct {
		env string
		rep int
	}
	runSeed := map[envRep]uint64{}
	policySeeds := map[string]uint64{}
	runSeeds := map[uint64]bool{}
	ps := small.Model.Params()
	for i := range small.Runs() {
		r := small.Run(i)
		if r.Seed.Run > math.MaxInt64 {
			t.Errorf("run %d: Seed.Run %d does not fit int64", i, r.Seed.Run)
		}
		pol := r.Key[strings.Index(r.Key, "policy="):]
		env := r.Key[:strings.Index(r.Key, "policy=")]
		k := envRep{env, r.Replication}
		if s, ok := runSeed[k]; ok && s != r.Seed.Run {
			t.Errorf("%s rep %d: policies at the same point have different run seeds", env, r.Replication)
		}
		runSeed[k] = r.Seed.Run
		if s, ok := policySeeds[pol]; ok && s != r.Seed.Policy {
			t.Errorf("policy %s: Seed.Policy differs between points", pol)
		}
		policySeeds[pol] = r.Seed.Policy
		runSeeds[r.Seed.Run] = true
		if got := experiments.RunSeed(small.Seed, ps, r.Point, r.Replication); got != r.Seed {
			t.Errorf("run %d: RunSeed = %+v, Run.Seed = %+v", i, got, r.Seed)
		}
	}
	// 2 lambdas × 2 replications distinct run seeds; 3 distinct policy seeds.
	if len(runSeeds) != 4 {
		t.Errorf("%d distinct run seeds, want 4 (2 lambdas × 2 replications)", len(runSeeds))
	}
	distinct := map[uint64]bool{}
	for _, s := range policySeeds {
		distinct[s] = true
	}
	if len(policySeeds) != 3 || len(distinct) != 3 {
		t.Errorf("policy seeds %v: want 3 policies with distinct seeds", policySeeds)
	}
}

func TestKeyFormat(t *testing.T) {
	s, err := parseNoPanic(t, "k.toml", specBase)
	if err != nil {
		t.Fatal(err)
	}
	ps := s.Model.Params()
	var names []string
	for _, p := range ps {
		names = append(names, p.Name)
	}
	if got := strings.Join(names, ","); got != "n,servers,lambda,load,horizon,warmup,policy,d,replacement,choice_count,full_scan,active_request_bias,tau,default_rtt,tie,alpha,observe,min_ring_size,epsilon,candidates" {
		t.Fatalf("parameter (column) order %s", got)
	}
	want := []string{
		"n=10,lambda=0.5,load=0.5,horizon=100,warmup=10,policy=random",
		"n=10,lambda=0.5,load=0.5,horizon=100,warmup=10,policy=jsq_d,d=2,replacement=false",
		"n=10,lambda=0.9,load=0.9,horizon=100,warmup=10,policy=random",
		"n=10,lambda=0.9,load=0.9,horizon=100,warmup=10,policy=jsq_d,d=2,replacement=false",
	}
	for i, w := range want {
		for rep := range 2 {
			if r := s.Run(2*i + rep); r.Key != w || r.Replication != rep || r.PointIndex != i {
				t.Errorf("Run(%d) = point %d rep %d key %s, want point %d rep %d key %s", 2*i+rep, r.PointIndex, r.Replication, r.Key, i, rep, w)
			}
		}
	}
	// Floats in the shortest round-trip form.
	text := editBase(t, "lambda = [0.5, 0.9]", "lambda = [0.1, 0.30000000000000004]", "")
	s, err = parseNoPanic(t, "k.toml", text)
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Run(2 * 2).Key; !strings.HasPrefix(got, "n=10,lambda=0.30000000000000004,load=0.3,") {
		t.Errorf("key %s", got)
	}
}
