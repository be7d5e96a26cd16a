package results

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// Table is a dataset read back into memory (for plotting and claim checks; results are small aggregates compared to
// runs).
type Table struct {
	Columns []Column // Name and Type from the files' schema (Unit and Doc empty)
	Rows    []Row    // in file order, files in lexical order of their names
	Meta    []KV     // key-value metadata of the first file, in file order, without arrow's "ARROW:schema"
}

// Col returns the index of the column named name, or -1.
func (t *Table) Col(name string) int {
	for i, c := range t.Columns {
		if c.Name == name {
			return i
		}
	}
	return -1
}

// MetaValue returns the metadata value for key, or "" when absent.
func (t *Table) MetaValue(key string) string { return Lookup(t.Meta, key) }

// arrowSchemaKey is the key under which Arrow writers store their serialized schema; it is not user metadata.
const arrowSchemaKey = "ARROW:schema"

// ReadDataset reads every *.parquet file directly inside dir (not *.tmp, not subdirectories such as a dataset's
// time-series table, SeriesDir) as one table, files in lexical order of their names. The files must have the same
// column names and types, else an error naming the file that differs, and were written from the same spec (equal
// lbsweep.spec_sha256 metadata). No files is an error naming dir. Meta is the first file's.
func ReadDataset(dir string) (*Table, error) {
	paths, err := DatasetFiles(dir)
	if err != nil {
		return nil, err
	}
	var t *Table
	for _, p := range paths {
		ft, err := ReadFile(p)
		if err != nil {
			return nil, err
		}
		if t == nil {
			t = ft
			continue
		}
		if err := sameFile(t, ft.Columns, ft.Meta, p, paths[0]); err != nil {
			return nil, err
		}
		t.Rows = append(t.Rows, ft.Rows...)
	}
	return t, nil
}

// ReadDatasetWhere is ReadDataset keeping only the rows that match every condition of where (see Table.Where; nil
// keeps every row). It reads one row group at a time, so memory holds the selected rows and one row group, not the
// dataset: the way to take one run's rows out of a large time-series table.
func ReadDatasetWhere(dir string, where []Cond) (*Table, error) {
	paths, err := DatasetFiles(dir)
	if err != nil {
		return nil, err
	}
	var t *Table
	for _, p := range paths {
		first := true
		err := Scan(p, func(meta []KV, cols []Column, rows []Row) error {
			switch {
			case t == nil:
				t = &Table{Columns: cols, Meta: meta}
			case first:
				if err := sameFile(t, cols, meta, p, paths[0]); err != nil {
					return err
				}
			}
			first = false
			group := Table{Columns: cols, Rows: rows}
			for _, r := range group.Where(where) {
				t.Rows = append(t.Rows, append(Row(nil), rows[r]...)) // a copy: rows share one array per group
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return t, nil
}

// DatasetFiles lists the *.parquet files of the dataset in dir (the files ReadDataset reads: directly inside dir, not
// subdirectories), as paths under dir in lexical order of their names; none is an error naming dir.
func DatasetFiles(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir) // sorted by name
	if err != nil {
		return nil, fmt.Errorf("results: %w", err)
	}
	var paths []string
	for _, e := range ents {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".parquet") {
			continue
		}
		p := filepath.Join(dir, e.Name())
		if e.Type()&os.ModeSymlink != 0 {
			if fi, err := os.Stat(p); err == nil && fi.IsDir() {
				continue
			}
		}
		paths = append(paths, p)
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("results: %s: no *.parquet files", dir)
	}
	return paths, nil
}

// sameFile checks that file p (columns cols, metadata meta) belongs to the dataset t read from first: the same
// columns, from the same spec.
func sameFile(t *Table, cols []Column, meta []KV, p, first string) error {
	if err := sameColumns(t.Columns, cols); err != nil {
		return fmt.Errorf("results: %s: schema differs from %s: %w", p, first, err)
	}
	if a, b := t.MetaValue(KeySpecSHA256), Lookup(meta, KeySpecSHA256); a != b {
		return fmt.Errorf("results: %s was written from another spec than %s (%s %.12s… vs %.12s…): a dataset is one spec's runs; remove the stray file or rerun the sweep", p, first, KeySpecSHA256, b, a)
	}
	return nil
}

// SameColumns reports how the columns got (a file's) differ from want (a model's) in names and types, naming the
// first column that differs, or nil. Units and docs are not compared: files do not store them.
func SameColumns(want, got []Column) error { return sameColumns(want, got) }

// sameColumns reports how got differs from want in column names and types, or nil.
func sameColumns(want, got []Column) error {
	for i := 0; i < len(want) && i < len(got); i++ {
		if want[i].Name != got[i].Name || want[i].Type != got[i].Type {
			return fmt.Errorf("column %d is %s %s, want %s %s", i, got[i].Name, got[i].Type, want[i].Name, want[i].Type)
		}
	}
	if len(want) != len(got) {
		return fmt.Errorf("%d columns, want %d", len(got), len(want))
	}
	return nil
}

// ReadFile reads one Parquet file into memory. Its columns must be of the types a Writer writes (INT64, DOUBLE,
// BOOLEAN, UTF8 string — plain or dictionary-encoded — and LIST<DOUBLE>); any other type is an error naming the
// column. A null element inside a list (which a Writer never writes) reads as NaN.
func ReadFile(path string) (*Table, error) {
	t, err := readFile(path)
	if err != nil {
		return nil, fmt.Errorf("results: %s: %w", path, err)
	}
	return t, nil
}

func readFile(path string) (*Table, error) {
	t := &Table{}
	err := scan(path, func(meta []KV, cols []Column, rows []Row) error {
		t.Meta, t.Columns = meta, cols
		t.Rows = append(t.Rows, rows...)
		return nil
	}, false)
	return t, err
}

// ReadMeta reads only a file's footer: its key-value metadata (as Table.Meta) and its row count.
func ReadMeta(path string) (meta []KV, rows int64, err error) {
	defer func() {
		if err != nil {
			err = fmt.Errorf("results: %s: %w", path, err)
		}
	}()
	defer corrupt(&err)
	rdr, err := file.OpenParquetFile(path, false)
	if err != nil {
		return nil, 0, err
	}
	defer rdr.Close()
	return metaOf(rdr), rdr.NumRows(), nil
}

// corrupt turns a panic of the Parquet library on a corrupt file (seen by FuzzReadFile: "invalid logical type",
// "column "policy" expected length >= 12 but got length 8") into an error in *err, so a reader of a damaged dataset
// gets a message naming the file rather than a stack trace. It is deferred only around the library's calls, never
// around a caller's callback, whose panics are the caller's bugs.
func corrupt(err *error) {
	if p := recover(); p != nil {
		*err = fmt.Errorf("corrupt Parquet file (the reader failed: %v)", p)
	}
}

// Scan reads a file one row group at a time, calling fn with the file's metadata, its columns and the group's rows,
// so memory holds one row group (DefaultRowGroup rows for files a Writer wrote), not the file.
func Scan(path string, fn func(meta []KV, cols []Column, rows []Row) error) error {
	if err := scan(path, fn, true); err != nil {
		return fmt.Errorf("results: %s: %w", path, err)
	}
	return nil
}

func metaOf(rdr *file.Reader) []KV {
	var meta []KV
	kv := rdr.MetaData().KeyValueMetadata()
	keys, vals := kv.Keys(), kv.Values()
	for i := range keys {
		if keys[i] == arrowSchemaKey {
			continue
		}
		meta = append(meta, KV{Key: keys[i], Value: vals[i]})
	}
	return meta
}

// checkChunks refuses a footer whose column chunks do not lie inside the file: the library reads each chunk into a
// buffer of the footer's stated size before looking at it, so one flipped length (FuzzReadFile found 17 GB) would
// allocate without bound.
func checkChunks(rdr *file.Reader) error {
	md := rdr.MetaData()
	size := md.GetSourceFileSize()
	for g := range rdr.NumRowGroups() {
		rg := md.RowGroup(g)
		for c := range rg.NumColumns() {
			col, err := rg.ColumnChunk(c)
			if err != nil {
				return err
			}
			start := col.DataPageOffset()
			if col.HasDictionaryPage() && col.DictionaryPageOffset() > 0 && start > col.DictionaryPageOffset() {
				start = col.DictionaryPageOffset()
			}
			n := col.TotalCompressedSize()
			if start < 0 || n < 0 || start > size || n > size-start {
				return fmt.Errorf("corrupt footer: row group %d, column %d claims bytes %d to %d of a file of %d", g, c, start, start+n, size)
			}
		}
	}
	return nil
}

// scan reads path whole (byGroup false: one call) or one row group per call.
func scan(path string, fn func(meta []KV, cols []Column, rows []Row) error, byGroup bool) error {
	var rdr *file.Reader
	var meta []KV
	var fr *pqarrow.FileReader
	open := func() (err error) {
		defer corrupt(&err)
		if rdr, err = file.OpenParquetFile(path, false); err != nil {
			return err
		}
		if err = checkChunks(rdr); err != nil {
			return err
		}
		meta = metaOf(rdr)
		fr, err = pqarrow.NewFileReader(rdr, pqarrow.ArrowReadProperties{BatchSize: 1 << 16}, memory.NewGoAllocator())
		return err
	}
	err := open()
	if rdr != nil {
		defer rdr.Close()
	}
	if err != nil {
		return err
	}
	load := func(groups []int) (cols []Column, rows []Row, err error) {
		defer corrupt(&err)
		var tbl arrow.Table
		if groups == nil {
			tbl, err = fr.ReadTable(context.Background())
		} else {
			all := make([]int, rdr.MetaData().Schema.NumColumns()) // nil would read no column at all
			for i := range all {
				all[i] = i
			}
			tbl, err = fr.ReadRowGroups(context.Background(), all, groups)
		}
		if err != nil {
			return nil, nil, err
		}
		defer tbl.Release()
		return tableRows(tbl)
	}
	read := func(groups []int) error {
		cols, rows, err := load(groups)
		if err != nil {
			return err
		}
		return fn(meta, cols, rows)
	}
	if !byGroup || rdr.NumRowGroups() == 0 {
		return read(nil)
	}
	for g := range rdr.NumRowGroups() {
		if err := read([]int{g}); err != nil {
			return err
		}
	}
	return nil
}

// tableRows converts an Arrow table of a Writer's column types into columns and rows.
func tableRows(tbl arrow.Table) ([]Column, []Row, error) {
	sc := tbl.Schema()
	cols := make([]Column, sc.NumFields())
	for i, f := range sc.Fields() {
		typ, err := columnType(f.Type)
		if err != nil {
			return nil, nil, fmt.Errorf("column %q: %w", f.Name, err)
		}
		cols[i] = Column{Name: f.Name, Type: typ}
	}
	nrows, ncols := int(tbl.NumRows()), len(cols)
	cells := make([]Cell, nrows*ncols)
	rows := make([]Row, nrows)
	for r := range rows {
		rows[r] = cells[r*ncols : (r+1)*ncols : (r+1)*ncols]
	}
	for c := 0; c < ncols; c++ {
		r := 0
		for _, chunk := range tbl.Column(c).Data().Chunks() {
			if r+chunk.Len() > nrows {
				return nil, nil, fmt.Errorf("column %q has more than %d rows", cols[c].Name, nrows)
			}
			if err := readChunk(chunk, rows[r:r+chunk.Len()], c); err != nil {
				return nil, nil, fmt.Errorf("column %q: %w", cols[c].Name, err)
			}
			r += chunk.Len()
		}
		if r != nrows {
			return nil, nil, fmt.Errorf("column %q has %d rows, want %d", cols[c].Name, r, nrows)
		}
	}
	return cols, rows, nil
}

// columnType maps an Arrow type read from a file to a column Type.
func columnType(dt arrow.DataType) (Type, error) {
	switch dt.ID() {
	case arrow.INT64:
		return Int64, nil
	case arrow.FLOAT64:
		return Float64, nil
	case arrow.BOOL:
		return Bool, nil
	case arrow.STRING, arrow.LARGE_STRING:
		return String, nil
	case arrow.DICTIONARY:
		switch dt.(*arrow.DictionaryType).ValueType.ID() {
		case arrow.STRING, arrow.LARGE_STRING:
			return String, nil
		}
	case arrow.LIST, arrow.LARGE_LIST:
		if dt.(arrow.ListLikeType).Elem().ID() == arrow.FLOAT64 {
			return Float64List, nil
		}
	}
	return 0, fmt.Errorf("unsupported type %s", dt)
}

// stringer is what *array.String and *array.LargeString have in common.
type stringer interface {
	arrow.Array
	Value(int) string
}

// readChunk stores the values of one column chunk into cell c of rows (len(rows) == a.Len()).
func readChunk(a arrow.Array, rows []Row, c int) error {
	switch a := a.(type) {
	case *array.Int64:
		for i := range rows {
			if a.IsValid(i) {
				rows[i][c] = Int(a.Value(i))
			}
		}
	case *array.Float64:
		for i := range rows {
			if a.IsValid(i) {
				rows[i][c] = Float(a.Value(i))
			}
		}
	case *array.Boolean:
		for i := range rows {
			if a.IsValid(i) {
				rows[i][c] = Boolean(a.Value(i))
			}
		}
	case *array.String:
		for i := range rows {
			if a.IsValid(i) {
				rows[i][c] = Str(a.Value(i))
			}
		}
	case *array.LargeString:
		for i := range rows {
			if a.IsValid(i) {
				rows[i][c] = Str(a.Value(i))
			}
		}
	case *array.Dictionary:
		dict, ok := a.Dictionary().(stringer)
		if !ok {
			return fmt.Errorf("unsupported dictionary of %s", a.Dictionary().DataType())
		}
		for i := range rows {
			if a.IsValid(i) {
				rows[i][c] = Str(dict.Value(a.GetValueIndex(i)))
			}
		}
	case array.ListLike:
		vals, ok := a.ListValues().(*array.Float64)
		if !ok {
			return fmt.Errorf("unsupported list of %s", a.ListValues().DataType())
		}
		for i := range rows {
			if !a.IsValid(i) {
				continue
			}
			start, end := a.ValueOffsets(i)
			l := make([]float64, end-start)
			for j := range l {
				k := int(start) + j
				if vals.IsValid(k) {
					l[j] = vals.Value(k)
				} else {
					l[j] = math.NaN()
				}
			}
			rows[i][c] = List(l)
		}
	default:
		return fmt.Errorf("unsupported array type %s", a.DataType())
	}
	return nil
}
