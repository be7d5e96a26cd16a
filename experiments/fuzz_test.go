package experiments_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"lbsweep/experiments"
)

// FuzzParse: Parse never panics; every error is an *experiments.Error whose message starts with the file name; an
// accepted spec expands into runs without panicking. Run it with
//
//	go test -run XXX -fuzz FuzzParse -fuzztime 60s ./experiments/
//
// Crashers it finds land in testdata/fuzz/FuzzParse and are replayed by every `go test`.
func FuzzParse(f *testing.F) {
	specs, err := filepath.Glob("*.toml")
	if err != nil || len(specs) == 0 {
		f.Fatalf("no committed specs to seed the corpus (%v)", err)
	}
	for _, path := range specs {
		b, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	f.Add(specBase)
	for _, e := range [][2]string{
		{"replications = 2", "replication = 3"},
		{"horizon = 100.0", "horizn = 100.0"},
		{"n = 10", `n = "100"`},
		{"lambda = [0.5, 0.9]", "lambda = [0.5, 1.2]"},
		{"lambda = [0.5, 0.9]", "lambda = { from = 0.5, to = 0.99, step = 0.01 }"},
		{"lambda = [0.5, 0.9]", "lambda = { from = 0.9, to = 0.5, step = 0.1 }"},
		{"lambda = [0.5, 0.9]", "lambda.from = 0.5\nlambda.to = 0.9\nlambda.step = 0.1"},
		{"[sweep]", "[sweep"},
		{`name = "t"`, `name = "t`},
		{`"random"`, `{ name = "random", d = 2 }`},
		{`{ name = "jsq_d", d = 2 }`, `"jsq_d"`},
		{"warmup = 10.0", "warmup = 10.0\nd = 3"},
		{`"random", `, `"random", "random", `},
		{"seed = 1", "seed = 1\nallow_unstable = true"},
		{"n = 10", "n = 1"},
	} {
		f.Add(strings.Replace(specBase, e[0], e[1], 1))
	}
	f.Add(specBase + "\n[[figure]]\nname = \"f\"\nkind = \"metric\"\nx = \"lambda\"\ny = \"mean_sojourn\"\nwhere = { policy = \"random\" }\nseries = [\"policy\", \"d\"]\n")
	f.Add(specBase + "\n[[table]]\nname = \"t\"\nrows = [\"policy\", \"d\"]\ncolumns = \"lambda\"\nmetric = \"p99_sojourn\"\nwhere = { n = 10 }\ndigits = 3\n")
	f.Add(specBase + "\n[[table]]\nname = \"u\"\nrows = \"policy\"\nmetrics = [\"mean_sojourn\", \"theory_mean_sojourn\"]\nstat = \"mean\"\nalpha = 0.1\n")
	f.Add(specBase + "\n[[expect]]\nsource = \"s\"\nmetric = \"queue_tail\"\nlevel = 2\nwhere = { lambda = 0.9 }\nratio = { where = { policy = \"random\" }, min = 0.5, max = 2 }\n")
	f.Add(specBase + "\n[[expect]]\nsource = \"s\"\nmetric = \"mean_sojourn\"\ntheory = \"theory_mean_sojourn\"\nallowance = 0.1\n")

	f.Fuzz(func(t *testing.T, text string) {
		const file = "fuzz/spec.toml"
		s, err := experiments.Parse(file, text)
		if err != nil {
			var e *experiments.Error
			if !errors.As(err, &e) {
				t.Fatalf("error %T is not *experiments.Error: %v", err, err)
			}
			if msg := err.Error(); !strings.HasPrefix(msg, file) {
				t.Fatalf("message does not start with the file name: %q", msg)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("message spans several lines: %q", err.Error())
			}
			if e.Line < 0 {
				t.Fatalf("negative line: %+v", e)
			}
			return
		}
		if s.Points() < 1 || s.Runs() != s.Points()*s.Replications {
			t.Fatalf("Points = %d, Runs = %d, Replications = %d", s.Points(), s.Runs(), s.Replications)
		}
		// Expand the first and the last runs (keys, seeds, policy resolution).
		n := s.Runs()
		for _, i := range []int{0, 1, 2, n / 2, n - 2, n - 1} {
			if i < 0 || i >= n {
				continue
			}
			if r := s.Run(i); r.Key == "" || r.Index != i {
				t.Fatalf("Run(%d) = %+v", i, r)
			}
		}
	})
}
