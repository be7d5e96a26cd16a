// Package schema declares the columns and cells of lbsweep's datasets: a column's name, physical type, unit and doc;
// one typed value (a cell) of a row; and a Schema that a model declares its metric columns with once and fills each
// run's row by (Builder). It is a leaf: it imports nothing of Parquet or Arrow, so the simulation models (model/...)
// depend on it and not on the results package, which writes and reads these rows as Parquet.
//
// Every column is nullable: null marks "does not apply" (a policy parameter another policy lacks, a theory column
// with no closed form). A cell carries its type, and a valid cell whose type is not its column's is an error where
// rows are written (CheckRow), never a silent zero.
package schema

import "fmt"

// Type is the physical type of a column.
type Type uint8

// Column types. The zero Type is invalid; a null cell has it.
const (
	Int64       Type = iota + 1 // Parquet INT64
	Float64                     // Parquet DOUBLE
	Bool                        // Parquet BOOLEAN
	String                      // Parquet BYTE_ARRAY (UTF8)
	Float64List                 // Parquet LIST<DOUBLE>
)

// String returns the type's name as the README's schema table shows it ("int64", "double", "bool", "string",
// "list<double>"), or "invalid".
func (t Type) String() string {
	switch t {
	case Int64:
		return "int64"
	case Float64:
		return "double"
	case Bool:
		return "bool"
	case String:
		return "string"
	case Float64List:
		return "list<double>"
	}
	return "invalid"
}

// Column declares one column of a dataset.
type Column struct {
	Name string // lowercase snake_case, unique within a schema
	Type Type
	Unit string // e.g. "mean service times"; empty when dimensionless
	Doc  string // one sentence: what the value is, its range, when it is null
	// Label is the column's short axis label in a figure, ASCII, without the unit (figures append Unit); empty: the
	// name. For a list column it labels element i = k+1, e.g. "s(i): fraction of bins with load >= i".
	Label string
	// IndexLabel, for a list column only, is the axis label of its element number i = k+1, e.g. "i (balls in the
	// bin)"; empty: "i".
	IndexLabel string
}

// Cell is one value of a row, built by Int, Float, Boolean, Str, List or Null. Type is the value's type and the
// field that matches it holds the value (I for Int64, F for Float64, B for Bool, S for String, L for Float64List);
// Valid = false is null (Type 0). A valid cell fits only a column of its own Type; a null cell fits any column.
type Cell struct {
	Type  Type
	Valid bool
	I     int64
	F     float64
	B     bool
	S     string
	L     []float64
}

// Row is one run's values, aligned with a list of columns.
type Row []Cell

// Int, Float, Boolean, Str and List build valid cells of type Int64, Float64, Bool, String and Float64List; Null
// builds the null cell. List keeps v (no copy); a nil or empty v is an empty list, not null.
func Int(v int64) Cell      { return Cell{Type: Int64, Valid: true, I: v} }
func Float(v float64) Cell  { return Cell{Type: Float64, Valid: true, F: v} }
func Boolean(v bool) Cell   { return Cell{Type: Bool, Valid: true, B: v} }
func Str(v string) Cell     { return Cell{Type: String, Valid: true, S: v} }
func List(v []float64) Cell { return Cell{Type: Float64List, Valid: true, L: v} }
func Null() Cell            { return Cell{} }

// Fits reports whether c may be stored in a column of type t: c is null, or valid of type t.
func (c Cell) Fits(t Type) bool { return !c.Valid || c.Type == t }

// String renders c for error messages: "null", or the value and its type, e.g. "0.5 (double)".
func (c Cell) String() string {
	if !c.Valid {
		return "null"
	}
	var v any
	switch c.Type {
	case Int64:
		v = c.I
	case Float64:
		v = c.F
	case Bool:
		v = c.B
	case String:
		v = fmt.Sprintf("%q", c.S)
	case Float64List:
		v = c.L
	default:
		return "a valid cell of no type"
	}
	return fmt.Sprintf("%v (%s)", v, c.Type)
}

// CheckRow reports the first cell of row that does not fit its column (Cell.Fits), as an error naming the column, its
// type and the cell; and a row whose length is not len(cols). It does not allocate when the row fits.
func CheckRow(cols []Column, row Row) error {
	if len(row) != len(cols) {
		return fmt.Errorf("row has %d cells, want %d columns", len(row), len(cols))
	}
	for i, c := range row {
		if !c.Fits(cols[i].Type) {
			return fmt.Errorf("column %s (%s): got %s", cols[i].Name, cols[i].Type, c)
		}
	}
	return nil
}
