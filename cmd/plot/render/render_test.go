package render

import (
	"bytes"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/plot/plotter"

	"lbsweep/experiments"
	"lbsweep/model"
	"lbsweep/results"
)

var update = flag.Bool("update", false, "rewrite the golden SVGs and Markdown tables in testdata/")

const figSpec = `name = "fig"
model = "supermarket"
seed = 1
replications = 2
[params]
n = 10
horizon = 100.0
warmup = 10.0
[sweep]
lambda = [0.5, 0.9]
policy = ["random", { name = "jsq_d", d = 2 }]

[[figure]]
name = "tail"
kind = "queue_tail"
title = "tail"
series = "lambda"
where = { policy = "jsq_d" }

[[figure]]
name = "mean"
kind = "metric"
title = "mean"
x = "lambda"
y = "mean_sojourn"
series = ["policy", "d"]
log_y = true
`

// table builds a small dataset in the spec's schema with known values (two replications per point), including a
// zero in a log-scaled tail and a null theory.
func table(t *testing.T, s *experiments.Spec) *results.Table {
	cols := model.Columns(s.Model)
	tb := &results.Table{Columns: cols}
	set := func(row results.Row, name string, c results.Cell) {
		for i, col := range cols {
			if col.Name == name {
				row[i] = c
				return
			}
		}
		t.Fatalf("no column %s", name)
	}
	for i := range s.Runs() {
		r := s.Run(i)
		row := make(results.Row, len(cols))
		for k, p := range s.Model.Params() {
			set(row, p.Name, p.Cell(r.Point[k]))
		}
		lambda := r.Point[model.Index(s.Model.Params(), "lambda")].F
		jitter := 1 + 0.01*float64(r.Replication)
		set(row, "mean_sojourn", results.Float(jitter/(1-lambda)))
		set(row, "theory_mean_sojourn", results.Float(1/(1-lambda)))
		set(row, "queue_tail", results.List([]float64{lambda * jitter, lambda * lambda * jitter, 0}))
		set(row, "theory_queue_tail", results.List([]float64{lambda, lambda * lambda, math.Pow(lambda, 3)}))
		tb.Rows = append(tb.Rows, row)
	}
	return tb
}

func TestGoldenFigures(t *testing.T) {
	s, err := experiments.Parse("fig.toml", figSpec)
	if err != nil {
		t.Fatal(err)
	}
	tb := table(t, s)
	for _, f := range s.Figures {
		var buf bytes.Buffer
		if err := Draw(s, f, tb, &buf); err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		svg := buf.String()
		if strings.Contains(svg, "NaN") || strings.Contains(svg, "Inf") {
			t.Errorf("%s: SVG holds NaN or Inf coordinates", f.Name)
		}
		golden := filepath.Join("testdata", f.Name+".svg")
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

// Zeros, nulls and single replications on log axes draw without panicking.
func TestDegenerateData(t *testing.T) {
	s, err := experiments.Parse("fig.toml", figSpec)
	if err != nil {
		t.Fatal(err)
	}
	tb := table(t, s)
	m, q := tb.Col("mean_sojourn"), tb.Col("queue_tail")
	for i := range tb.Rows {
		tb.Rows[i][m] = results.Float(0)
		tb.Rows[i][q] = results.List(nil)
	}
	tb.Rows = tb.Rows[:1]
	for _, f := range s.Figures {
		var buf bytes.Buffer
		// Zeros on a log axis cannot be drawn: an error saying so, never a panic or an empty figure.
		if err := Draw(s, f, tb, &buf); err == nil || !strings.Contains(err.Error(), "nothing to draw") && !strings.Contains(err.Error(), "no rows") {
			t.Errorf("%s: err = %v, want \"nothing to draw\" or \"no rows\"", f.Name, err)
		}
	}
	// A log x axis over a parameter that is 0 everywhere (warmup here) is an error too, not a gonum panic.
	logx, err := experiments.Parse("fig.toml", strings.Replace(figSpec, `x = "lambda"`, "x = \"warmup\"\nlog_x = true", 1))
	if err != nil {
		t.Fatal(err)
	}
	zero := table(t, logx)
	w := zero.Col("warmup")
	for i := range zero.Rows {
		zero.Rows[i][w] = results.Float(0)
	}
	if err := Draw(logx, logx.Figures[1], zero, &bytes.Buffer{}); err == nil {
		t.Error("log x over zeros: no error")
	}
	if err := Draw(s, s.Figures[0], &results.Table{Columns: tb.Columns}, &bytes.Buffer{}); err == nil {
		t.Error("an empty dataset should be an error, not an empty figure")
	}
}

// Rows whose x is null (random takes no d) are left out of a metric figure, and a series with no x at all is not
// drawn: the figure over d shows jsq_d alone.
func TestNullX(t *testing.T) {
	s, err := experiments.Parse("fig.toml", strings.Replace(figSpec, `x = "lambda"`, `x = "d"`, 1))
	if err != nil {
		t.Fatal(err)
	}
	ss, err := build(s.Figures[1], table(t, s))
	if err != nil {
		t.Fatal(err)
	}
	if len(ss) != 1 || !strings.HasPrefix(ss[0].label, "jsq_d") || len(ss[0].x) != 1 || ss[0].x[0] != 2 {
		t.Fatalf("series %+v, want jsq_d alone at d = 2", ss)
	}
	var buf bytes.Buffer
	if err := Draw(s, s.Figures[1], table(t, s), &buf); err != nil || strings.Contains(buf.String(), "NaN") {
		t.Errorf("draw: %v (NaN in the SVG: %v)", err, strings.Contains(buf.String(), "NaN"))
	}
}

// A theory with no value at some x is broken there, not drawn across it; off-axis points are skipped without a break.
func TestTheorySegments(t *testing.T) {
	nan := math.NaN()
	x := []float64{0, 1, 2, 3, 4, 5}
	got := theorySegments(x, []float64{1, 2, nan, 4, -1, 6}, true, true)
	want := []plotter.XYs{{{X: 1, Y: 2}}, {{X: 3, Y: 4}, {X: 5, Y: 6}}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("log axes: %v, want %v", got, want)
	}
	if got := theorySegments(x, []float64{nan, nan, nan, nan, nan, nan}, false, false); len(got) != 0 {
		t.Errorf("all null: %v, want no segment", got)
	}
	if got := theorySegments(x[:3], []float64{0, -1, 2}, false, false); len(got) != 1 || len(got[0]) != 3 {
		t.Errorf("linear axes keep every finite value in one piece: %v", got)
	}
}

// Labels a spec leaves out come from the model's schema: a balls-into-bins tail is labelled with bins and loads
// (not the supermarket's servers and jobs), a metric axis with the column's unit, an untitled figure by its columns.
func TestSchemaLabels(t *testing.T) {
	s, err := experiments.Parse("bins.toml", `name = "b"
model = "balls_into_bins"
seed = 1
replications = 2
[params]
n = 100
balls_per_bin = 1.0
[sweep]
d = [1, 2]

[[figure]]
name = "tail"
kind = "queue_tail"
y = "load_tail"
theory = "theory_load_tail"
series = "d"

[[figure]]
name = "max"
kind = "metric"
x = "d"
y = "max_load"
`)
	if err != nil {
		t.Fatal(err)
	}
	cols := model.Columns(s.Model)
	tb := &results.Table{Columns: cols}
	for i := range s.Runs() {
		r := s.Run(i)
		row := make(results.Row, len(cols))
		for k, p := range s.Model.Params() {
			row[tb.Col(p.Name)] = p.Cell(r.Point[k])
		}
		row[tb.Col("load_tail")] = results.List([]float64{0.6, 0.2 + 0.01*float64(r.Replication), 0.01})
		row[tb.Col("theory_load_tail")] = results.List([]float64{0.6, 0.2, 0.01})
		row[tb.Col("max_load")] = results.Int(int64(3 + r.Replication))
		tb.Rows = append(tb.Rows, row)
	}
	for _, tc := range []struct {
		fig          int
		want, absent []string
	}{
		{0, []string{"s(i): fraction of bins with load &gt;= i", "i (balls in the bin)", "b: load_tail"}, []string{"servers", "jobs"}},
		{1, []string{"max_load (balls)", ">d<", "b: max_load against d"}, nil},
	} {
		var buf bytes.Buffer
		if err := Draw(s, s.Figures[tc.fig], tb, &buf); err != nil {
			t.Fatal(err)
		}
		for _, w := range tc.want {
			if !strings.Contains(buf.String(), w) {
				t.Errorf("%s: no %q in the SVG", s.Figures[tc.fig].Name, w)
			}
		}
		for _, w := range tc.absent {
			if strings.Contains(buf.String(), w) {
				t.Errorf("%s: %q in the SVG", s.Figures[tc.fig].Name, w)
			}
		}
	}
}

// Points of unstable runs are drawn grey and the caption says so; a figure without unstable runs has neither.
func TestUnstableGrey(t *testing.T) {
	s, err := experiments.Parse("fig.toml", figSpec)
	if err != nil {
		t.Fatal(err)
	}
	grey := fmt.Sprintf("stroke:#%02X%02X%02X", unstableColor.R, unstableColor.G, unstableColor.B)
	for _, marked := range []bool{false, true} {
		tb := table(t, s)
		u, l := tb.Col(UnstableColumn), tb.Col("lambda")
		for i := range tb.Rows {
			tb.Rows[i][u] = results.Boolean(marked && tb.Rows[i][l].F == 0.9)
		}
		for _, f := range s.Figures {
			var buf bytes.Buffer
			if err := Draw(s, f, tb, &buf); err != nil {
				t.Fatal(err)
			}
			svg := buf.String()
			if got := strings.Contains(svg, grey) && strings.Contains(svg, unstableCaption); got != marked {
				t.Errorf("%s, unstable rows %v: grey points and caption %v", f.Name, marked, got)
			}
		}
	}
}

// No first-theory line may look like the further theory columns' dotted (1, 2) ("dotted: asymptotic" in the legend):
// every pattern but the first (solid) has a dash of at least 4 points, and the patterns differ from each other. A
// newcomer read go_left d = 2's (1, 1) line in figures/bins-max-load.svg as an asymptotic before.
func TestTheoryDashesAreNotDotted(t *testing.T) {
	seen := map[string]bool{}
	for i, d := range theoryDashes {
		key := fmt.Sprint(d)
		if seen[key] {
			t.Errorf("theoryDashes[%d] = %v repeats an earlier pattern", i, d)
		}
		seen[key] = true
		if i == 0 {
			if len(d) != 0 {
				t.Errorf("theoryDashes[0] = %v, want solid", d)
			}
			continue
		}
		longest := 0.0
		for j := 0; j < len(d); j += 2 { // on, off, on, off…
			longest = math.Max(longest, float64(d[j]))
		}
		if len(d)%2 != 0 || longest < 4 {
			t.Errorf("theoryDashes[%d] = %v: its longest dash is %g points, under 4 (it reads as dotted)", i, d, longest)
		}
	}
}
