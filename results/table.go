// Package results owns lbsweep's results contract: the provenance written into every file, and reading and writing
// a dataset as Parquet (one row per run, zstd-compressed, no timestamps, so that the same spec and binary give
// byte-identical files). Its columns and cells are those of package results/schema, which the models use without
// linking Parquet; the names below are aliases of them for the readers of datasets.
//
// A dataset is the directory DIR/NAME/ holding one or more *.parquet files with one schema; DuckDB
// read_parquet('DIR/NAME/*.parquet'), pyarrow.dataset and polars.scan_parquet read it as one table.
//
// Selecting rows by column values (Cond, Table.Where) is table reading and lives here; the statistics over the rows
// selected (means with confidence intervals) are package experiments/claims's.
package results

import "lbsweep/results/schema"

// Type, Column, Cell and Row are schema's (see there).
type (
	Type   = schema.Type
	Column = schema.Column
	Cell   = schema.Cell
	Row    = schema.Row
)

// Column types, as schema's.
const (
	Int64       = schema.Int64
	Float64     = schema.Float64
	Bool        = schema.Bool
	String      = schema.String
	Float64List = schema.Float64List
)

// KV is one key-value pair of file metadata. Metadata is written in the order given.
type KV struct{ Key, Value string }

// Int, Float, Boolean, Str, List and Null build cells (schema.Int, ...).
func Int(v int64) Cell      { return schema.Int(v) }
func Float(v float64) Cell  { return schema.Float(v) }
func Boolean(v bool) Cell   { return schema.Boolean(v) }
func Str(v string) Cell     { return schema.Str(v) }
func List(v []float64) Cell { return schema.List(v) }
func Null() Cell            { return schema.Null() }
