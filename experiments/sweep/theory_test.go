package sweep

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"lbsweep/experiments"
	"lbsweep/experiments/experimentstest"
	"lbsweep/model"
	"lbsweep/results"
	"lbsweep/results/schema"
)

// theoryModel is a test model.Theorist: value = x + the run's seed mod 7, theory = 10·x, and calls counts its
// Theory calls. wrong = true makes Run put a string in the double column value.
type theoryModel struct{ calls *atomic.Int64 }

var (
	colValue      = schema.Column{Name: "value", Type: schema.Float64, Doc: "x + seed mod 7"}
	colTheory     = schema.Column{Name: "theory", Type: schema.Float64, Doc: "10·x"}
	theoryMetrics = schema.New(colValue, colTheory)
)

func (theoryModel) Name() string { return "fake_theory" }
func (theoryModel) Doc() string  { return "test model with a theory per point" }
func (theoryModel) Params() []model.Param {
	return []model.Param{
		{Name: "x", Kind: model.Float, Doc: "the point"},
		{Name: "wrong", Kind: model.Bool, Default: model.BoolValue(false), Doc: "a string in a double column"},
	}
}
func (theoryModel) Metrics() []schema.Column                                { return theoryMetrics.Columns() }
func (theoryModel) Check(model.Point, model.CheckOptions) ([]string, error) { return nil, nil }
func (theoryModel) Cost(model.Point) float64                                { return 1 }
func (theoryModel) Bounds(model.Point) model.Bounds                         { return model.Bounds{} }
func (theoryModel) Run(_ context.Context, p model.Point, seed model.Seed) (schema.Row, error) {
	row := make(schema.Row, 2)
	row[0] = schema.Float(p[0].F + float64(seed.Run%7))
	if p[1].B {
		row[0] = schema.Str("oops")
	}
	return row, nil
}
func (m theoryModel) Theory(p model.Point) model.Theory {
	m.calls.Add(1)
	th := schema.Float(10 * p[0].F)
	return func(row schema.Row) { theoryMetrics.Edit(row).Set(colTheory, th) }
}

const theorySpec = `name = "th"
model = "fake_theory"
seed = 3
replications = 5
[sweep]
x = [1.0, 2.0, 3.0, 4.0]
`

// The sweep computes a Theorist's theory once per grid point, shares it among the point's replications (run on four
// workers), and writes what model.RunRow gives for each run.
func TestTheoryOncePerPoint(t *testing.T) {
	m := theoryModel{calls: new(atomic.Int64)}
	experimentstest.Register(t, m)
	s, err := experiments.Parse("th.toml", theorySpec)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	sum, err := Run(context.Background(), s, Options{Dir: dir, Workers: 4, Every: -1})
	if err != nil {
		t.Fatal(err)
	}
	if got := m.calls.Load(); got != 4 {
		t.Errorf("Theory called %d times for 4 points × 5 replications, want 4", got)
	}
	tab, err := results.ReadFile(sum.Path)
	if err != nil {
		t.Fatal(err)
	}
	vc, tc := tab.Col("value"), tab.Col("theory")
	for i, row := range tab.Rows {
		r := s.Run(i)
		want, _ := model.RunRow(context.Background(), m, r.Point, r.Seed)
		if row[vc].F != want[0].F || row[tc].F != want[1].F || row[tc].F != 10*r.Point[0].F {
			t.Errorf("run %d: value %v theory %v, want %v %v", i, row[vc].F, row[tc].F, want[0].F, want[1].F)
		}
	}
}

// A model's cell of another type than its column's is an error at row assembly that names the column.
func TestRowTypeMismatchNamesColumn(t *testing.T) {
	experimentstest.Register(t, theoryModel{calls: new(atomic.Int64)})
	s, err := experiments.Parse("th.toml", theorySpec+"[params]\nwrong = true\n")
	if err != nil {
		t.Fatal(err)
	}
	_, err = Run(context.Background(), s, Options{Dir: t.TempDir(), Workers: 1, Every: -1})
	if err == nil || !strings.Contains(err.Error(), `column value (double): got "oops" (string)`) {
		t.Errorf("err = %v, want one naming column value", err)
	}
}
