package experiments_test

import (
	"strings"
	"testing"
)

// TestSelectionOfNoRunRefusedAtLoad guards the check of every where against the grid before anything runs: a figure,
// table or claim whose selection matches no run is an error naming the file, the line of its key and the grid's
// values, where before it was found after the sweep as an empty figure or "n = 0".
func TestSelectionOfNoRunRefusedAtLoad(t *testing.T) {
	const fig = "\n[[figure]]\nname = \"f\"\nkind = \"metric\"\nx = \"lambda\"\ny = \"mean_sojourn\"\n"
	const claim = "\n[[expect]]\nsource = \"s\"\nmetric = \"mean_sojourn\"\n"
	for _, c := range []struct {
		name, tail, want string
	}{
		{"figure value off the grid", fig + "where = { lambda = 0.95 }\n",
			`t.toml:20: figure[0].where: figure "f" selects no run of the grid: no run has lambda = 0.95 (the grid's lambda: 0.5, 0.9)`},
		{"table policy not swept", "\n[[table]]\nname = \"u\"\nrows = \"policy\"\nmetrics = [\"mean_sojourn\"]\nwhere = { policy = \"jsq\" }\n",
			`t.toml:19: table[0].where: table "u" selects no run of the grid: no run has policy = jsq (the grid's policy: random, jsq_d)`},
		{"claim, each condition holds but not together", claim + "where = { policy = \"random\", d = 2 }\nless_than = 5.0\n",
			`t.toml:18: expect[0].where: the claim selects no run of the grid: each of d = 2, policy = random holds in some run, but never all together`},
		{"claim's other selection", claim + "where = { policy = \"random\" }\nless_than = { lambda = 0.7 }\n",
			`t.toml:19: expect[0].less_than: the claim's other selection selects no run of the grid: no run has lambda = 0.7 (the grid's lambda: 0.5, 0.9)`},
		{"ratio's selection", claim + "where = { lambda = 0.9 }\nratio = { where = { replication = 5 }, min = 0.5, max = 2.0 }\n",
			`t.toml:19: expect[0].ratio: the claim's other selection selects no run of the grid: no run has replication = 5 (the grid's replication: 0 to 1)`},
	} {
		t.Run(c.name, func(t *testing.T) {
			text := specBase + c.tail
			_, err := parseNoPanic(t, "t.toml", text)
			if err == nil {
				t.Fatalf("accepted a selection of no run:\n%s", c.tail)
			}
			if err.Error() != c.want {
				t.Errorf("error\n  %s\nwant\n  %s", err, c.want)
			}
		})
	}
	// A condition on a metric column is not known before the runs: not checked, so accepted.
	if _, err := parseNoPanic(t, "t.toml", specBase+fig+"where = { lambda = 0.9, unstable = true }\n"); err != nil && !strings.Contains(err.Error(), "unstable") {
		t.Errorf("a condition on a metric column refused at load: %v", err)
	}
	// Selections that do select a run stay accepted.
	if _, err := parseNoPanic(t, "t.toml", specBase+claim+"where = { policy = \"jsq_d\", d = 2, lambda = 0.9 }\nless_than = { policy = \"random\", d = \"null\" }\n"); err != nil {
		t.Errorf("a selection of runs refused: %v", err)
	}
}
