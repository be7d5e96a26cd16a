package render

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"lbsweep/experiments"
	"lbsweep/experiments/experimentstest"
	"lbsweep/model"
	"lbsweep/results"
)

const seriesFigSpec = `name = "ts"
model = "fake_series"
seed = 1
replications = 2
[params]
horizon = 20.0
n = 4

[[figure]]
name = "extremes"
kind = "timeseries"
title = "longest and shortest queue"
where = { replication = 1 }
y = ["max_queue", "min_queue"]

[[figure]]
name = "tracked"
kind = "timeseries"
where = { replication = 0 }
y = "queues"
x_from = 5
x_to = 15.5
log_y = true
y_label = "jobs"
`

// seriesTable builds a time-series table in the fake model's schema: both replications, samples at t = 0..20, with a
// queue at 0 (a gap on a log axis), a NaN element and a null, and the rows of replication 0 out of time order.
func seriesTable(t *testing.T, s *experiments.Spec) *results.Table {
	cols := model.SeriesColumns(s.Model.(model.SeriesModel))
	tb := &results.Table{Columns: cols}
	for i := range s.Runs() {
		r := s.Run(i)
		prefix := results.Row{results.Str(s.Name), results.Str(r.Key), results.Int(int64(r.Replication)), results.Int(int64(r.Seed.Run))}
		for k, p := range s.Model.Params() {
			prefix = append(prefix, p.Cell(r.Point[k]))
		}
		var rows []results.Row
		for k := range 21 {
			x := float64(k)
			q := []float64{math.Round(3 + 2*math.Sin(x/3)), math.Round(2 + math.Cos(x/2)), float64(k % 4)}
			if k == 11 {
				q[1] = math.NaN()
			}
			hi, lo := results.Int(int64(max(q[0], q[2])+float64(r.Replication))), results.Int(int64(min(q[0], q[2])))
			if k == 7 {
				lo = results.Null()
			}
			rows = append(rows, append(append(results.Row(nil), prefix...), results.Float(x), hi, lo, results.List(q)))
		}
		if r.Replication == 0 {
			rows[3], rows[9] = rows[9], rows[3]
		}
		tb.Rows = append(tb.Rows, rows...)
	}
	return tb
}

func TestGoldenSeriesFigures(t *testing.T) {
	experimentstest.Register(t, experimentstest.Series{})
	s, err := experiments.Parse("ts.toml", seriesFigSpec)
	if err != nil {
		t.Fatal(err)
	}
	tb := seriesTable(t, s)
	for _, f := range s.Figures {
		var buf bytes.Buffer
		if err := Draw(s, f, tb, &buf); err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		svg := buf.String()
		if strings.Contains(svg, "NaN") || strings.Contains(svg, "Inf") {
			t.Errorf("%s: SVG holds NaN or Inf coordinates", f.Name)
		}
		for _, label := range map[string][]string{"extremes": {">max_queue<", ">min_queue<"}, "tracked": {">queues[0]<", ">queues[2]<"}}[f.Name] {
			if !strings.Contains(svg, label) {
				t.Errorf("%s: no legend entry %s", f.Name, label)
			}
		}
		golden := filepath.Join("testdata", "series-"+f.Name+".svg")
		if *update {
			if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatalf("%v (run go test ./cmd/plot/render -update)", err)
		}
		if !bytes.Equal(buf.Bytes(), want) {
			t.Errorf("%s: SVG differs from %s (inspect, then go test ./cmd/plot/render -update)", f.Name, golden)
		}
	}
}

// What a timeseries figure cannot draw is an error naming the figure, never a panic or an empty figure.
func TestSeriesFigureErrors(t *testing.T) {
	experimentstest.Register(t, experimentstest.Series{})
	s, err := experiments.Parse("ts.toml", seriesFigSpec)
	if err != nil {
		t.Fatal(err)
	}
	tb := seriesTable(t, s)
	extremes, tracked := s.Figures[0], s.Figures[1]
	many := extremes
	many.Where = nil // the table holds both replications
	wide := seriesTable(t, s)
	for _, row := range wide.Rows {
		row[len(row)-1] = results.List(make([]float64, 20))
	}
	zeros := seriesTable(t, s)
	for _, row := range zeros.Rows {
		row[len(row)-1] = results.List([]float64{0, 0, 0})
	}
	late := tracked
	from := 100.0
	late.XFrom, late.XTo = &from, nil
	for _, tc := range []struct {
		name string
		f    experiments.Figure
		tb   *results.Table
		want string
	}{
		{"two runs", many, tb, "figure extremes: the selection holds 2 runs, and a timeseries figure draws one: replication still vary"},
		{"no rows", extremes, &results.Table{Columns: tb.Columns}, "figure extremes: no time-series rows match"},
		{"too many lines", tracked, wide, "20 lines, more than the 16"},
		{"zeros on a log axis", tracked, zeros, "nothing to draw (no finite values > 0 for the log axis"},
		{"empty window", late, tb, "no samples with time in the window"},
	} {
		err := Draw(s, tc.f, tc.tb, &bytes.Buffer{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.want)
		}
	}
}
