package sweep

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"lbsweep/experiments"
	"lbsweep/model"
)

// The README's results tables are generated from the models' declarations: each must match `sweep -schema` exactly,
// so the documentation cannot drift from the schema. A model with a time series has a second table.
func TestREADMESchema(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	for name, m := range experiments.Models {
		checkREADMETable(t, text, name, SchemaMarkdown(m))
		if sm, ok := m.(model.SeriesModel); ok {
			checkREADMETable(t, text, name+":timeseries", SeriesSchemaMarkdown(sm))
		}
	}
}

// checkREADMETable checks that the README's block <!-- schema:KEY --> ... <!-- /schema --> is want.
func checkREADMETable(t *testing.T, text, key, want string) {
	t.Helper()
	begin, end := "<!-- schema:"+key+" -->\n", "<!-- /schema -->"
	i := strings.Index(text, begin)
	if i < 0 {
		t.Errorf("README.md has no %q section; add it with the output of `go run ./cmd/sweep -schema %s`", begin, strings.TrimSuffix(key, ":timeseries"))
		return
	}
	rest := text[i+len(begin):]
	j := strings.Index(rest, end)
	if j < 0 {
		t.Fatalf("README.md: %q is not closed", begin)
	}
	if got := rest[:j]; got != want {
		t.Errorf("README.md schema %s is stale; replace it with the output of `go run ./cmd/sweep -schema %s`:\n%s", key, strings.TrimSuffix(key, ":timeseries"), want)
	}
}

// Every committed spec loads, and its file stem is its name (the Makefile maps experiments/X.toml to results/X/).
func TestCommittedSpecs(t *testing.T) {
	paths, _ := filepath.Glob("../*.toml")
	if len(paths) == 0 {
		t.Fatal("no specs in experiments/")
	}
	for _, p := range paths {
		s, err := experiments.Load(p)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		stem := strings.TrimSuffix(p[strings.LastIndex(p, "/")+1:], ".toml")
		if s.Name != stem {
			t.Errorf("%s: name %q differs from the file stem %q", p, s.Name, stem)
		}
		if len(s.Figures) == 0 && len(s.Expects) == 0 {
			t.Errorf("%s: neither figures nor claims", p)
		}
	}
}
