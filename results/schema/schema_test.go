package schema

import (
	"math"
	"strings"
	"testing"
)

var (
	colN    = Column{Name: "n", Type: Int64, Doc: "a count"}
	colMean = Column{Name: "mean", Type: Float64, Unit: "ticks", Doc: "a mean"}
	colOK   = Column{Name: "ok", Type: Bool}
	colName = Column{Name: "name", Type: String}
	colTail = Column{Name: "tail", Type: Float64List}
)

var testSchema = New(colN, colMean, colOK, colName, colTail)

// panics runs f and returns what it panicked with, as a string ("" when it did not panic).
func panics(f func()) (msg string) {
	defer func() {
		if p := recover(); p != nil {
			msg, _ = p.(string)
			if msg == "" {
				msg = "panic"
			}
		}
	}()
	f()
	return ""
}

func TestBuilderFillsByColumn(t *testing.T) {
	b := testSchema.NewRow()
	b.Set(colTail, List([]float64{0.5, 0.25}))
	b.Set(colN, Int(7))
	b.Set(colOK, Null()) // explicitly null counts as set
	row := b.Row()
	if len(row) != testSchema.Len() {
		t.Fatalf("%d cells, want %d", len(row), testSchema.Len())
	}
	if row[0].I != 7 || !row[0].Valid || row[0].Type != Int64 {
		t.Errorf("n = %+v, want Int(7)", row[0])
	}
	if row[1].Valid || row[2].Valid || row[3].Valid {
		t.Errorf("unset cells not null: %+v %+v %+v", row[1], row[2], row[3])
	}
	if got := row[4].L; len(got) != 2 || got[1] != 0.25 || row[4].Type != Float64List {
		t.Errorf("tail = %+v", row[4])
	}
	if got := b.Get(colN); got.I != 7 {
		t.Errorf("Get(n) = %+v", got)
	}
	if err := CheckRow(testSchema.Columns(), row); err != nil {
		t.Error(err)
	}
	if testSchema.Index("mean") != 1 || testSchema.Index("nope") != -1 {
		t.Errorf("Index: mean %d, nope %d", testSchema.Index("mean"), testSchema.Index("nope"))
	}
}

// Misuse is a panic naming the column: a cell of another type, a column set twice, one not in the schema, one
// declared differently.
func TestBuilderRefusesMisuse(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    func(b *Builder)
		want string
	}{
		{"float in int64", func(b *Builder) { b.Set(colN, Float(1)) }, "column n (int64): got 1 (double)"},
		{"list in string", func(b *Builder) { b.Set(colName, List([]float64{1})) }, "column name (string): got [1] (list<double>)"},
		{"int in list", func(b *Builder) { b.Set(colTail, Int(3)) }, "column tail (list<double>): got 3 (int64)"},
		{"twice", func(b *Builder) { b.Set(colMean, Float(1)); b.Set(colMean, Float(2)) }, "column mean set twice"},
		{"null then value", func(b *Builder) { b.Set(colMean, Null()); b.Set(colMean, Float(2)) }, "column mean set twice"},
		{"unknown", func(b *Builder) { b.Set(Column{Name: "p99", Type: Float64}, Float(1)) }, "column p99 is not in the schema"},
		{"declared differently", func(b *Builder) { b.Set(Column{Name: "mean", Type: Float64}, Float(1)) }, "column mean is declared differently"},
		{"get unknown", func(b *Builder) { b.Get(Column{Name: "x", Type: Bool}) }, "column x is not in the schema"},
	} {
		got := panics(func() { tc.f(testSchema.NewRow()) })
		if !strings.Contains(got, tc.want) {
			t.Errorf("%s: panic %q, want one containing %q", tc.name, got, tc.want)
		}
	}
}

func TestNewRefusesBadSchemas(t *testing.T) {
	for _, tc := range []struct {
		name string
		cols []Column
		want string
	}{
		{"duplicate", []Column{colN, {Name: "n", Type: Bool}}, "column n declared twice"},
		{"no name", []Column{{Type: Int64}}, "column 0 has no name"},
		{"no type", []Column{{Name: "x"}}, "column x has an invalid type"},
	} {
		if got := panics(func() { New(tc.cols...) }); !strings.Contains(got, tc.want) {
			t.Errorf("%s: panic %q, want one containing %q", tc.name, got, tc.want)
		}
	}
}

// Edit fills the null cells of a row in place and refuses the valid ones.
func TestEdit(t *testing.T) {
	b := testSchema.NewRow()
	b.Set(colN, Int(1))
	row := b.Row()
	e := testSchema.Edit(row)
	e.Set(colName, Str("x"))
	if row[3].S != "x" || row[3].Type != String {
		t.Errorf("Edit did not write the row in place: %+v", row[3])
	}
	if got := panics(func() { e.Set(colN, Int(2)) }); !strings.Contains(got, "column n set twice") {
		t.Errorf("Edit over a valid cell: panic %q", got)
	}
	if got := panics(func() { testSchema.Edit(row[:2]) }); got == "" {
		t.Error("Edit of a short row did not panic")
	}
}

// CheckRow names the first cell that does not fit, with the column's type; null fits every column.
func TestCheckRow(t *testing.T) {
	cols := testSchema.Columns()
	row := Row{Int(1), Float(math.NaN()), Boolean(true), Str(""), List(nil)}
	if err := CheckRow(cols, row); err != nil {
		t.Errorf("valid row: %v", err)
	}
	if err := CheckRow(cols, Row{Null(), Null(), Null(), Null(), Null()}); err != nil {
		t.Errorf("null row: %v", err)
	}
	row[2] = Int(1)
	if err := CheckRow(cols, row); err == nil || err.Error() != "column ok (bool): got 1 (int64)" {
		t.Errorf("int in bool column: %v", err)
	}
	if err := CheckRow(cols, row[:4]); err == nil || !strings.Contains(err.Error(), "4 cells, want 5 columns") {
		t.Errorf("short row: %v", err)
	}
	if err := CheckRow(cols, Row{{Valid: true}, Null(), Null(), Null(), Null()}); err == nil {
		t.Error("a valid cell of no type fits")
	}
}

// Setting a row costs no allocation beyond NewRow's (the sweep fills one per run).
func TestBuilderAllocations(t *testing.T) {
	b := testSchema.NewRow()
	allocs := testing.AllocsPerRun(100, func() {
		clear(b.set)
		b.Set(colN, Int(1))
		b.Set(colMean, Float(2))
		b.Set(colName, Str("x"))
	})
	if allocs != 0 {
		t.Errorf("%v allocations per Set round, want 0", allocs)
	}
}
