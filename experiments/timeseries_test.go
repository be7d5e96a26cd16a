package experiments_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"lbsweep/experiments"
	"lbsweep/experiments/experimentstest"
	"lbsweep/results"
)

// seriesBase is a small valid spec of the fake SeriesModel with one timeseries figure. Its line numbers are asserted:
//
//	1 name, 2 model, 3 seed, 4 replications, 6 [params], 7 horizon, 9 [sweep], 10 n, 12 [[figure]], 13 name, 14 kind,
//	15 where, 16 y
const seriesBase = `name = "ts"
model = "fake_series"
seed = 1
replications = 2

[params]
horizon = 50.0

[sweep]
n = [2, 5]

[[figure]]
name = "q"
kind = "timeseries"
where = { n = 5, replication = 1 }
y = ["max_queue", "min_queue"]
`

func TestTimeseriesFigure(t *testing.T) {
	experimentstest.Register(t, experimentstest.Series{})
	s, err := experiments.Parse("ts.toml", seriesBase)
	if err != nil {
		t.Fatal(err)
	}
	f := s.Figures[0]
	if f.Kind != experiments.Timeseries || f.X != "time" || fmt.Sprint(f.Ys) != "[max_queue min_queue]" || f.XFrom != nil || f.XTo != nil || f.LogY {
		t.Errorf("decoded %+v", f)
	}
	if fmt.Sprint(f.Where) != fmt.Sprint([]results.Cond{{Column: "n", Value: results.Int(5), Text: "5"}, {Column: "replication", Value: results.Int(1), Text: "1"}}) {
		t.Errorf("where = %+v", f.Where)
	}
	// A list column, a single name, a window, log_y, labels; one replication needs no replication in where.
	s, err = experiments.Parse("ts.toml", strings.NewReplacer(
		"replications = 2", "replications = 1",
		"where = { n = 5, replication = 1 }", "where = { n = 2 }",
		`y = ["max_queue", "min_queue"]`, "y = \"queues\"\nx_from = 10\nx_to = 20.5\nlog_y = true\ntitle = \"t\"\nx_label = \"time\"\ny_label = \"jobs\"",
	).Replace(seriesBase))
	if err != nil {
		t.Fatal(err)
	}
	f = s.Figures[0]
	if fmt.Sprint(f.Ys) != "[queues]" || f.XFrom == nil || *f.XFrom != 10 || f.XTo == nil || *f.XTo != 20.5 || !f.LogY || f.Title != "t" || f.YLabel != "jobs" {
		t.Errorf("decoded %+v", f)
	}
	// x may be another numeric series column; where may name the point.
	if _, err := experiments.Parse("ts.toml", strings.Replace(seriesBase, "where = { n = 5, replication = 1 }", "x = \"max_queue\"\nwhere = { point = \"n=5,horizon=50,interval=1\", replication = 0 }", 1)); err != nil {
		t.Error(err)
	}
}

func TestTimeseriesFigureBadInput(t *testing.T) {
	experimentstest.Register(t, experimentstest.Series{})
	edit := func(old, new string) string {
		if !strings.Contains(seriesBase, old) {
			t.Fatalf("test bug: %q is not in the base spec", old)
		}
		return strings.Replace(seriesBase, old, new, 1)
	}
	const where = "where = { n = 5, replication = 1 }"
	const y = `y = ["max_queue", "min_queue"]`
	tests := []struct {
		name, text, key string
		line            int
		want            string
	}{
		{"several runs", edit(where, "where = { n = 5 }"), "figure[0].where", 15, `figure "q": selects 2 runs, and a timeseries figure draws one: these columns still vary: replication`},
		{"no where", edit(where+"\n", ""), "figure[0].where", 12, "selects 4 runs, and a timeseries figure draws one: these columns still vary: replication, n"},
		{"no run", edit(where, "where = { n = 3, replication = 0 }"), "figure[0].where", 15, `figure "q": selects no run of the grid`},
		{"replication out of range", edit(where, "where = { n = 5, replication = 2 }"), "figure[0].where", 15, "selects no run"},
		{"where on a series column", edit(where, "where = { n = 5, replication = 1, time = 3.0 }"), "figure[0].where", 15, "time is a series column"},
		{"where on a metric", edit(where, "where = { n = 5, samples = 51 }"), "figure[0].where", 15, `unknown column "samples"`},
		{"where typo", edit(where, "where = { nn = 5 }"), "figure[0].where", 15, `unknown column "nn"`},
		{"where wrong type", edit(where, `where = { n = "5" }`), "figure[0].where", 15, "n: expected a int64 value, got a string"},
		{"y missing", edit(y+"\n", ""), "figure[0].y", 12, "missing: the series columns to draw"},
		{"y unknown", edit(y, `y = ["max_q"]`), "figure[0].y", 16, `unknown series column "max_q" (series columns: time, max_queue, min_queue, queues)`},
		{"y a parameter", edit(y, `y = "n"`), "figure[0].y", 16, `unknown series column "n"`},
		{"y twice", edit(y, `y = ["queues", "queues"]`), "figure[0].y", 16, `"queues" is listed twice`},
		{"y not names", edit(y, `y = [1]`), "figure[0].y", 16, "expected column names, got an integer"},
		{"x unknown", edit(y, y+"\nx = \"tme\""), "figure[0].x", 17, `unknown series column "tme"`},
		{"x a list", edit(y, y+"\nx = \"queues\""), "figure[0].x", 17, `series column "queues" is list<double>: x needs a numeric column`},
		{"x_from after x_to", edit(y, y+"\nx_from = 5\nx_to = 5.0"), "figure[0].x_to", 18, "need x_from < x_to"},
		{"x_from a string", edit(y, y+"\nx_from = \"5\""), "figure[0].x_from", 17, "expected a number, got a string"},
		{"x_to infinite", edit(y, y+"\nx_to = inf"), "figure[0].x_to", 17, "need a finite number"},
		{"series", edit(y, y+"\nseries = \"n\""), "figure[0].series", 17, "a timeseries figure draws the samples of one run: it takes no series"},
		{"log_x", edit(y, y+"\nlog_x = true"), "figure[0].log_x", 17, "it takes no log_x"},
		{"levels", edit(y, y+"\nlevels = 3"), "figure[0].levels", 17, "it takes no levels"},
		{"log_y not a boolean", edit(y, y+"\nlog_y = 1"), "figure[0].log_y", 17, "expected a boolean, got an integer"},
		{"unknown key", edit(y, y+"\nstep = true"), "figure[0].step", 17, "unknown key"},
		{"model without series", specBase + "\n[[figure]]\nname = \"f\"\nkind = \"timeseries\"\ny = \"x\"\n", "figure[0].kind", 17, "model supermarket has no time series"},
		{"x_from on a metric figure", specBase + "\n[[figure]]\nname = \"f\"\nkind = \"metric\"\nx = \"lambda\"\ny = \"mean_sojourn\"\nx_from = 1\n", "figure[0].x_from", 20, "only a timeseries figure takes x_from"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			const file = "bad/ts.toml"
			s, err := parseNoPanic(t, file, tc.text)
			if err == nil {
				t.Fatalf("Parse accepted the spec (%d runs)\n--- spec:\n%s", s.Runs(), tc.text)
			}
			var e *experiments.Error
			if !errors.As(err, &e) {
				t.Fatalf("error %T is not *experiments.Error: %v", err, err)
			}
			msg := err.Error()
			if e.Key != tc.key || e.Line != tc.line || !strings.HasPrefix(msg, fmt.Sprintf("%s:%d: ", file, tc.line)) {
				t.Errorf("key %q line %d, want %q line %d: %s", e.Key, e.Line, tc.key, tc.line, msg)
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
