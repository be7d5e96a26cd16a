package sweep

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"lbsweep/experiments"
)

// The README's results table is generated from the model's declarations: it must match `sweep -schema` exactly,
// so the documentation cannot drift from the schema.
func TestREADMESchema(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for name, m := range experiments.Models {
		begin, end := "<!-- schema:"+name+" -->\n", "<!-- /schema -->"
		text := string(b)
		i := strings.Index(text, begin)
		if i < 0 {
			t.Errorf("README.md has no %q section", begin)
			continue
		}
		rest := text[i+len(begin):]
		j := strings.Index(rest, end)
		if j < 0 {
			t.Fatalf("README.md: %q is not closed", begin)
		}
		if got, want := rest[:j], SchemaMarkdown(m); got != want {
			t.Errorf("README.md schema for %s is stale; replace it with the output of `go run ./cmd/sweep -schema %s`:\n%s", name, name, want)
		}
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
