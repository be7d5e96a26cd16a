package sweep

import (
	"path/filepath"
	"strings"
	"testing"

	"lbsweep/experiments"
)

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
