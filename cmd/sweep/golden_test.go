package main

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"lbsweep/experiments"
)

var update = flag.Bool("update", false, "rewrite testdata/NAME.stdout and NAME.stderr from the command's output")

// golden is one golden CLI test: the command's stdout and stderr must be testdata/NAME.stdout and NAME.stderr
// byte for byte (go test ./cmd/sweep -update rewrites them, as benchstat's tests do), and its exit code code.
type golden struct {
	name string
	args []string
	code int
}

// goldenCases are the listings (-list, -schema of every model), a plan of a committed spec, the usage texts, and
// one-line errors: usage errors (exit 2) and spec errors (exit 1) from the small bad specs under testdata.
func goldenCases() []golden {
	cs := []golden{
		{"list", []string{"-list"}, 0},
		{"plan-homo", []string{"plan", "-shard", "3", "../../experiments/homo.toml"}, 0},
		{"help", []string{"-h"}, 0},
		{"check-help", []string{"check", "-h"}, 0},
		{"plan-help", []string{"plan", "-h"}, 0},
		{"no-spec", nil, 2},
		{"unknown-flag", []string{"-frobnicate", "a.toml"}, 2},
		{"unknown-model", []string{"-schema", "supermarkt"}, 2},
		{"merge-usage", []string{"merge"}, 2},
		{"spec-unknown-key", []string{"plan", "testdata/unknown-key.toml"}, 1},
		{"spec-wrong-type", []string{"plan", "testdata/wrong-type.toml"}, 1},
		{"spec-bad-value", []string{"plan", "testdata/bad-value.toml"}, 1},
		{"spec-unknown-policy", []string{"plan", "testdata/unknown-policy.toml"}, 1},
		{"spec-missing", []string{"check", "testdata/missing.toml"}, 1},
	}
	for _, m := range experiments.ModelNames() {
		cs = append(cs, golden{"schema-" + m, []string{"-schema", m}, 0})
	}
	return cs
}

func TestGolden(t *testing.T) {
	// plan's time estimate divides by GOMAXPROCS and prints it: pin it, so the golden file holds on any machine.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	for _, c := range goldenCases() {
		t.Run(c.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), c.args, &stdout, &stderr)
			if code != c.code {
				t.Errorf("sweep %q: exit %d, want %d", c.args, code, c.code)
			}
			for _, out := range []struct {
				ext string
				got []byte
			}{{".stdout", stdout.Bytes()}, {".stderr", stderr.Bytes()}} {
				path := filepath.Join("testdata", c.name+out.ext)
				if *update {
					if err := os.WriteFile(path, out.got, 0o644); err != nil {
						t.Fatal(err)
					}
					continue
				}
				want, err := os.ReadFile(path)
				if err != nil {
					t.Fatalf("%v (go test ./cmd/sweep -update writes it)", err)
				}
				if !bytes.Equal(out.got, want) {
					t.Errorf("sweep %q: %s differs from %s (inspect, then go test ./cmd/sweep -update):\n%s", c.args, out.ext[1:], path, out.got)
				}
			}
		})
	}
}
