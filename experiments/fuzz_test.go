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

// fuzzCheck holds an error from Parse to the contract: an *experiments.Error, one line, starting with the file name.
func fuzzCheck(t *testing.T, file string, err error) {
	t.Helper()
	var e *experiments.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %T is not *experiments.Error: %v", err, err)
	}
	if msg := err.Error(); !strings.HasPrefix(msg, file) || strings.Contains(msg, "\n") || e.Line < 0 {
		t.Fatalf("not one line starting with the file name, or a negative line: %q", msg)
	}
}

// committedValues returns, from every committed spec, the values of key (the text after "key = " to the end of the
// value: a balanced [...] or {...} over one or several lines), to seed a corpus.
func committedValues(f *testing.F, key string) []string {
	specs, err := filepath.Glob("*.toml")
	if err != nil || len(specs) == 0 {
		f.Fatalf("no committed specs to seed the corpus (%v)", err)
	}
	var out []string
	for _, path := range specs {
		b, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		text := string(b)
		for {
			i := strings.Index(text, key+" = ")
			if i < 0 {
				break
			}
			text = text[i+len(key)+3:]
			depth, end := 0, len(text)
		scan:
			for j := 0; j < len(text); j++ {
				switch text[j] {
				case '[', '{':
					depth++
				case ']', '}':
					if depth--; depth == 0 {
						end = j + 1
						break scan
					}
				case '\n':
					if depth == 0 {
						end = j
						break scan
					}
				}
			}
			out = append(out, text[:end])
		}
	}
	return out
}

// fuzzResilience is a resilience spec whose [params] end with a timeline (TIMELINE) and whose figure, table and
// expect select with a where (WHERE).
const fuzzResilience = `name = "fz"
model = "resilience"
seed = 1
replications = 2

[params]
servers = [{ count = 4 }, { count = 2, speed = 0.5 }]
rate = 100.0
horizon = 2000.0
warmup = 100.0
timeline = TIMELINE

[sweep]
policy = ["round_robin", { name = "least_outstanding", tie = "random" }, { name = "jsq_d", d = 2 }]
limiter = ["none", "aimd"]
`

// FuzzTimeline: a timeline of any text in a resilience spec is accepted or refused with one line naming the file
// (never a panic); an accepted one expands into runs. Seeded with every committed timeline. Run it with
//
//	go test -run XXX -fuzz FuzzTimeline -fuzztime 10m -parallel 1 ./experiments/
func FuzzTimeline(f *testing.F) {
	for _, v := range committedValues(f, "timeline") {
		f.Add(v)
	}
	f.Add(`[{ at = 100.0, server = 1, action = "slow", factor = 0.5 }, { at = 1000.0, server = 1, action = "restore" }]`)
	f.Add(`[{ at = 200.0, action = "rate", rate = 150.0 }, { at = 300.0, server = 5, action = "kill" }, { at = 400.0, server = 5, action = "restart" }]`)
	f.Add(`[{ at = 200.0, server = 2, action = "fail", level = 0.5 }, { at = 300.0, action = "recover" }, { at = 350.0, server = 1, action = "pause", duration = 10.0 }]`)
	f.Fuzz(func(t *testing.T, timeline string) {
		const file = "fuzz/timeline.toml"
		text := strings.Replace(fuzzResilience, "TIMELINE", timeline, 1)
		s, err := experiments.Parse(file, text)
		if err != nil {
			fuzzCheck(t, file, err)
			return
		}
		if r := s.Run(s.Runs() - 1); r.Key == "" {
			t.Fatalf("last run has no key: %+v", r)
		}
	})
}

// FuzzWhere: a where selection of any text, in a figure, a table, an expect or an expect's ratio, is accepted or
// refused with one line naming the file (never a panic). Seeded with every committed where. Run it with
//
//	go test -run XXX -fuzz FuzzWhere -fuzztime 10m -parallel 1 ./experiments/
func FuzzWhere(f *testing.F) {
	for i, v := range committedValues(f, "where") {
		f.Add(uint8(i), v)
	}
	f.Add(uint8(0), `{ policy = "jsq_d", d = 2, limiter = "null" }`)
	f.Add(uint8(1), `{ servers = [{ count = 4 }], replication = 1 }`)
	f.Add(uint8(2), `{ weights = [5, 1, 1], rate = 100 }`)
	f.Fuzz(func(t *testing.T, kind uint8, where string) {
		const file = "fuzz/where.toml"
		text := strings.Replace(fuzzResilience, "TIMELINE", `[{ at = 100.0, server = 1, action = "slow", factor = 0.5 }]`, 1)
		switch kind % 4 {
		case 0:
			text += "\n[[figure]]\nname = \"f\"\nkind = \"metric\"\nx = \"limiter\"\ny = \"mean_latency\"\nseries = [\"policy\"]\nwhere = " + where + "\n"
		case 1:
			text += "\n[[table]]\nname = \"t\"\nrows = \"policy\"\ncolumns = \"limiter\"\nmetric = \"mean_latency\"\nwhere = " + where + "\n"
		case 2:
			text += "\n[[expect]]\nsource = \"s\"\nmetric = \"mean_latency\"\nwhere = " + where + "\nmax = 1.0\n"
		case 3:
			text += "\n[[expect]]\nsource = \"s\"\nmetric = \"mean_latency\"\nwhere = { policy = \"round_robin\" }\nratio = { where = " + where + ", min = 0.5, max = 2 }\n"
		}
		if _, err := experiments.Parse(file, text); err != nil {
			fuzzCheck(t, file, err)
		}
	})
}
