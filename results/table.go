// Package results owns lbsweep's results contract: the typed column schema of a dataset, the provenance written into
// every file, and reading and writing the dataset as Parquet (one row per run, zstd-compressed, no timestamps, so that
// the same spec and binary give byte-identical files).
//
// A dataset is the directory DIR/NAME/ holding one or more *.parquet files with one schema; DuckDB
// read_parquet('DIR/NAME/*.parquet'), pyarrow.dataset and polars.scan_parquet read it as one table.
package results

// Type is the physical type of a column.
type Type uint8

// Column types. Every column is nullable: null marks "does not apply" (a policy parameter another policy lacks, a
// theory column with no closed form).
const (
	Int64       Type = iota + 1 // Parquet INT64
	Float64                     // Parquet DOUBLE
	Bool                        // Parquet BOOLEAN
	String                      // Parquet BYTE_ARRAY (UTF8)
	Float64List                 // Parquet LIST<DOUBLE>
)

// String returns the type's name as the README's schema table shows it ("int64", "double", "bool", "string",
// "list<double>").
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
}

// Cell is one value of a row. The field that matches the column's Type holds the value; Valid = false is null.
type Cell struct {
	Valid bool
	I     int64
	F     float64
	B     bool
	S     string
	L     []float64
}

// Row is one run's values, aligned with a Schema's Columns.
type Row []Cell

// KV is one key-value pair of file metadata. Metadata is written in the order given.
type KV struct{ Key, Value string }

// Int, Float, Boolean, Str, List and Null build cells.
func Int(v int64) Cell      { return Cell{Valid: true, I: v} }
func Float(v float64) Cell  { return Cell{Valid: true, F: v} }
func Boolean(v bool) Cell   { return Cell{Valid: true, B: v} }
func Str(v string) Cell     { return Cell{Valid: true, S: v} }
func List(v []float64) Cell { return Cell{Valid: true, L: v} }
func Null() Cell            { return Cell{} }
