package sweep

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"lbsweep/experiments"
	"lbsweep/results"
)

const smallSpec = `name = "small"
model = "supermarket"
seed = 11
replications = 3
[params]
n = 8
horizon = 300.0
warmup = 30.0
[sweep]
lambda = { from = 0.5, to = 0.9, step = 0.1 }
policy = ["random", "round_robin", { name = "jsq_d", d = 2 }, { name = "jsq_d", d = 2, replacement = true }, "jsq"]
`

func mustParse(t *testing.T, text string) *experiments.Spec {
	t.Helper()
	s, err := experiments.Parse("small.toml", text)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// DESIGN.md: same spec, same binary → byte-identical Parquet whatever the worker count.
func TestBytesIndependentOfWorkers(t *testing.T) {
	s := mustParse(t, smallSpec)
	var files [][]byte
	for _, j := range []int{1, 2, 7} {
		dir := t.TempDir()
		sum, err := Run(context.Background(), s, Options{Dir: dir, Workers: j, Every: -1})
		if err != nil {
			t.Fatal(err)
		}
		if sum.Runs != 75 {
			t.Fatalf("runs = %d, want 5 λ × 5 policies × 3 replications = 75", sum.Runs)
		}
		b, err := os.ReadFile(filepath.Join(dir, "small", FileName))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, b)
	}
	for i := 1; i < len(files); i++ {
		if !bytes.Equal(files[0], files[i]) {
			t.Errorf("dataset bytes differ between -j 1 and run %d", i)
		}
	}
}

// Rows are in run order: point-major, replication-minor, with the spec's identity and parameters; the point key and
// seed do not depend on the grid position (a point's seed is the same in a spec that adds another λ).
func TestRowsAndSeeds(t *testing.T) {
	dir := t.TempDir()
	s := mustParse(t, smallSpec)
	if _, err := Run(context.Background(), s, Options{Dir: dir, Workers: 2, Every: -1}); err != nil {
		t.Fatal(err)
	}
	tb, err := results.ReadDataset(filepath.Join(dir, "small"))
	if err != nil {
		t.Fatal(err)
	}
	if len(tb.Rows) != s.Runs() {
		t.Fatalf("%d rows, want %d", len(tb.Rows), s.Runs())
	}
	rep, pt, seed := tb.Col("replication"), tb.Col("point"), tb.Col("seed")
	for i, row := range tb.Rows {
		r := s.Run(i)
		if row[rep].I != int64(i%3) || row[pt].S != r.Key || row[seed].I != int64(r.Seed.Run) {
			t.Fatalf("row %d: replication %d point %q seed %d; want %d %q %d", i, row[rep].I, row[pt].S, row[seed].I, i%3, r.Key, r.Seed.Run)
		}
	}
	// A wider λ axis: the common points keep their rows exactly.
	wider := mustParse(t, replaceOnce(smallSpec, "to = 0.9", "to = 0.95"))
	dir2 := t.TempDir()
	if _, err := Run(context.Background(), wider, Options{Dir: dir2, Workers: 2, Every: -1}); err != nil {
		t.Fatal(err)
	}
	tb2, err := results.ReadDataset(filepath.Join(dir2, "small"))
	if err != nil {
		t.Fatal(err)
	}
	byKey := map[string]results.Row{}
	for _, row := range tb2.Rows {
		byKey[row[pt].S+"#"+string(rune('0'+row[rep].I))] = row
	}
	mean := tb.Col("mean_sojourn")
	for _, row := range tb.Rows {
		other, ok := byKey[row[pt].S+"#"+string(rune('0'+row[rep].I))]
		if !ok || other[mean].F != row[mean].F {
			t.Fatalf("point %s replication %d changed when the λ axis grew", row[pt].S, row[rep].I)
		}
	}
}

func replaceOnce(s, old, new string) string {
	i := bytes.Index([]byte(s), []byte(old))
	if i < 0 {
		panic("replaceOnce: " + old)
	}
	return s[:i] + new + s[i+len(old):]
}

// An interrupted sweep never leaves a file that looks complete.
func TestCancelLeavesNoDataset(t *testing.T) {
	dir := t.TempDir()
	s := mustParse(t, smallSpec)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Run(ctx, s, Options{Dir: dir, Workers: 2, Every: -1})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "small"))
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), ".") { // only the hidden progress directory may stay
			t.Errorf("left behind: %s", e.Name())
		}
	}
}

// check and plot read a dataset only through Spec.ReadResults: a dataset from another version of the spec, a stray
// copy of a file (every run twice) or a file from another spec in the directory is an error, never evaluated.
func TestReadResultsRefusesStaleAndStray(t *testing.T) {
	dir := t.TempDir()
	s := mustParse(t, smallSpec)
	if _, err := Run(context.Background(), s, Options{Dir: dir, Workers: 2, Every: -1}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ReadResults(dir); err != nil {
		t.Fatalf("fresh dataset refused: %v", err)
	}
	edited := mustParse(t, replaceOnce(smallSpec, "horizon = 300.0", "horizon = 301.0"))
	if _, err := edited.ReadResults(dir); err == nil || !strings.Contains(err.Error(), "another version") {
		t.Errorf("edited spec: err = %v, want 'another version'", err)
	}
	data := filepath.Join(dir, "small", FileName)
	b, _ := os.ReadFile(data)
	stray := filepath.Join(dir, "small", "copy.parquet")
	if err := os.WriteFile(stray, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ReadResults(dir); err == nil || !strings.Contains(err.Error(), "appears twice") {
		t.Errorf("stray copy: err = %v, want 'appears twice'", err)
	}
	os.Remove(stray)
	other := t.TempDir()
	if _, err := Run(context.Background(), edited, Options{Dir: other, Workers: 1, Every: -1}); err != nil {
		t.Fatal(err)
	}
	b, _ = os.ReadFile(filepath.Join(other, "small", FileName))
	os.WriteFile(filepath.Join(dir, "small", "zz-other.parquet"), b, 0o644)
	if _, err := s.ReadResults(dir); err == nil || !strings.Contains(err.Error(), "another spec") {
		t.Errorf("file from another spec: err = %v, want 'another spec'", err)
	}
}
