package results

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/schema"
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
	if err := checkRowCount(rdr); err != nil {
		return nil, 0, err
	}
	return metaOf(rdr), rdr.NumRows(), nil
}

// checkRowCount refuses a footer whose row count is not the sum of its row groups': a sweep takes a dataset whose
// footer counts the spec's runs for complete (before Verify reads its pages, which count the row groups' rows).
func checkRowCount(rdr *file.Reader) error {
	md := rdr.MetaData()
	var sum int64
	for g := range rdr.NumRowGroups() {
		n := md.RowGroup(g).NumRows()
		if n < 0 || sum+n < sum {
			return fmt.Errorf("corrupt footer: row group %d claims %d rows", g, n)
		}
		sum += n
	}
	if sum != rdr.NumRows() {
		return fmt.Errorf("corrupt footer: its row groups hold %d rows, it says %d", sum, rdr.NumRows())
	}
	return nil
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

// checkChunks refuses a footer whose row count is not its row groups' (checkRowCount), or whose column chunks do not
// lie inside the file: the library reads each chunk into a buffer of the footer's stated size before looking at it,
// so one flipped length (FuzzReadFile found 17 GB) would allocate without bound.
func checkChunks(rdr *file.Reader) error {
	if err := checkRowCount(rdr); err != nil {
		return err
	}
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
	var cols []Column
	var how []fileColumn
	open := func() (err error) {
		defer corrupt(&err)
		if rdr, err = file.OpenParquetFile(path, false); err != nil {
			return err
		}
		if err = checkChunks(rdr); err != nil {
			return err
		}
		meta = metaOf(rdr)
		cols, how, err = fileColumns(rdr.MetaData().Schema)
		return err
	}
	err := open()
	if rdr != nil {
		defer rdr.Close()
	}
	if err != nil {
		return err
	}
	var dec decoder
	load := func(g int) (rows []Row, err error) {
		defer corrupt(&err)
		return dec.group(rdr.RowGroup(g), cols, how, true)
	}
	if !byGroup {
		var rows []Row
		for g := range rdr.NumRowGroups() {
			group, err := load(g)
			if err != nil {
				return err
			}
			rows = append(rows, group...)
		}
		return fn(meta, cols, rows)
	}
	if rdr.NumRowGroups() == 0 {
		return fn(meta, cols, nil)
	}
	for g := range rdr.NumRowGroups() {
		rows, err := load(g)
		if err != nil {
			return err
		}
		if err := fn(meta, cols, rows); err != nil {
			return err
		}
	}
	return nil
}

// fileColumn is how one column of a file is read: its Type, the definition level of a present value (maxDef), and for
// a list the level of an empty one (listDef; below it the list is null).
type fileColumn struct {
	typ             Type
	maxDef, listDef int16
}

// fileColumns maps a file's Parquet schema to columns: each field of the root must be one of the kinds a Writer
// writes, optional or required: INT64 (no logical type, or INT(64, signed)), DOUBLE, BOOLEAN, BYTE_ARRAY with the
// logical type STRING, and a LIST of DOUBLE (three-level, or the two-level form with a repeated DOUBLE). Any other
// field is an error naming it. These are the types pqarrow maps to Arrow int64, float64, bool, string and list of
// float64, which the reader accepted when it read through pqarrow.
func fileColumns(sc *schema.Schema) ([]Column, []fileColumn, error) {
	root := sc.Root()
	cols := make([]Column, root.NumFields())
	how := make([]fileColumn, root.NumFields())
	for i := range cols {
		n := root.Field(i)
		typ, elem, err := nodeType(n)
		if err != nil {
			return nil, nil, fmt.Errorf("column %q: %w", n.Name(), err)
		}
		if sc.NumColumns() <= i || sc.Column(i).SchemaNode() != elem { // a field of one leaf each, in order
			return nil, nil, fmt.Errorf("column %q: unsupported layout of the schema's leaves", n.Name())
		}
		cols[i] = Column{Name: n.Name(), Type: typ}
		how[i] = fileColumn{typ: typ, maxDef: sc.Column(i).MaxDefinitionLevel()}
		if typ == Float64List {
			how[i].listDef = how[i].maxDef - 1 // the repeated level
			if elem.RepetitionType() == parquet.Repetitions.Optional {
				how[i].listDef--
			}
		}
	}
	if sc.NumColumns() != len(cols) {
		return nil, nil, fmt.Errorf("%d leaf columns under %d fields", sc.NumColumns(), len(cols))
	}
	return cols, how, nil
}

// nodeType is the column Type of field n and the leaf node its values are in, or an error saying why n is not a
// column a Writer writes.
func nodeType(n schema.Node) (Type, schema.Node, error) {
	if n.RepetitionType() == parquet.Repetitions.Repeated {
		return 0, nil, errors.New("unsupported repeated field")
	}
	if g, ok := n.(*schema.GroupNode); ok {
		if _, list := g.LogicalType().(schema.ListLogicalType); !list || g.NumFields() != 1 {
			if noLogicalType(g.LogicalType()) {
				return 0, nil, errors.New("unsupported group (a struct)")
			}
			return 0, nil, fmt.Errorf("unsupported group %s", g.LogicalType())
		}
		rep := g.Field(0)
		if rep.RepetitionType() != parquet.Repetitions.Repeated {
			return 0, nil, errors.New("unsupported list without a repeated field")
		}
		elem := rep
		if rg, ok := rep.(*schema.GroupNode); ok {
			// The Parquet format's backward-compatibility rules for lists: a repeated group of more than one field,
			// or one named "array" or "<list>_tuple", is itself the element (a struct), as pqarrow reads it.
			if rg.NumFields() != 1 || rg.Name() == "array" || rg.Name() == g.Name()+"_tuple" ||
				rg.Field(0).RepetitionType() == parquet.Repetitions.Repeated {
				return 0, nil, errors.New("unsupported list of groups")
			}
			elem = rg.Field(0)
		}
		p, ok := elem.(*schema.PrimitiveNode)
		if !ok || p.PhysicalType() != parquet.Types.Double || !noLogicalType(p.LogicalType()) {
			return 0, nil, fmt.Errorf("unsupported list of %s", nodeName(elem))
		}
		return Float64List, elem, nil
	}
	p := n.(*schema.PrimitiveNode)
	lt := p.LogicalType()
	switch p.PhysicalType() {
	case parquet.Types.Int64:
		if i, ok := lt.(schema.IntLogicalType); noLogicalType(lt) || ok && i.BitWidth() == 64 && i.IsSigned() {
			return Int64, p, nil
		}
	case parquet.Types.Double:
		if noLogicalType(lt) {
			return Float64, p, nil
		}
	case parquet.Types.Boolean:
		if noLogicalType(lt) {
			return Bool, p, nil
		}
	case parquet.Types.ByteArray:
		if _, ok := lt.(schema.StringLogicalType); ok {
			return String, p, nil
		}
	}
	return 0, nil, fmt.Errorf("unsupported type %s", nodeName(p))
}

// noLogicalType reports whether lt annotates nothing.
func noLogicalType(lt schema.LogicalType) bool {
	if lt == nil {
		return true
	}
	_, none := lt.(schema.NoLogicalType)
	return none
}

// nodeName names a node's type for an error: its physical type and logical type (if any), or "group".
func nodeName(n schema.Node) string {
	p, ok := n.(*schema.PrimitiveNode)
	if !ok {
		return "group"
	}
	if noLogicalType(p.LogicalType()) {
		return strings.ToLower(p.PhysicalType().String())
	}
	return fmt.Sprintf("%s (%s)", strings.ToLower(p.PhysicalType().String()), p.LogicalType())
}

// decodeBatch is the number of levels a decoder reads at a time into its reused buffers.
const decodeBatch = 4096

// decoder reads column chunks through buffers it reuses, one per physical type.
type decoder struct {
	defs, reps [decodeBatch]int16
	i64        [decodeBatch]int64
	f64        [decodeBatch]float64
	bools      [decodeBatch]bool
	bytes      [decodeBatch]parquet.ByteArray
}

// group reads row group rg of a file of columns cols (read as how says) and returns its rows, or with keep false only
// checks that every value decodes, that the levels are well formed and that each column has the row group's row count
// (and returns no rows). The first column makes the rows as it finds them, in blocks of up to decodeBatch rows, so
// memory follows the rows the pages hold, not the count the footer claims.
func (d *decoder) group(rg *file.RowGroupReader, cols []Column, how []fileColumn, keep bool) ([]Row, error) {
	nrows := rg.NumRows()
	if rg.NumColumns() != len(cols) {
		return nil, fmt.Errorf("a row group of %d columns, the schema has %d", rg.NumColumns(), len(cols))
	}
	t := rowMaker{ncols: len(cols), nrows: nrows, keep: keep}
	for c := range cols {
		cr, err := rg.Column(c)
		if err != nil {
			return nil, err
		}
		t.col = c
		n, err := d.column(cr, how[c], &t)
		if err != nil {
			return nil, fmt.Errorf("column %q: %w", cols[c].Name, err)
		}
		if n != nrows {
			return nil, fmt.Errorf("column %q has %d rows in a row group of %d", cols[c].Name, n, nrows)
		}
	}
	return t.rows, nil
}

// rowMaker holds the rows of the row group being read and the column being filled.
type rowMaker struct {
	ncols, col int
	nrows      int64 // the row group's row count, from the footer
	keep       bool  // false: count rows, make none
	rows       []Row
	block      []Cell // cells not yet given to a row
}

// row returns the cell of row r (0-based, r < nrows) in the current column, making the row if the first column has
// just found it.
func (t *rowMaker) row(r int64) (*Cell, error) {
	if int(r) == len(t.rows) {
		if t.col > 0 {
			return nil, fmt.Errorf("more rows than the first column's %d", len(t.rows))
		}
		if len(t.block) == 0 {
			t.block = make([]Cell, min(t.nrows-r, decodeBatch)*int64(t.ncols))
		}
		t.rows = append(t.rows, t.block[:t.ncols:t.ncols])
		t.block = t.block[t.ncols:]
	}
	return &t.rows[r][t.col], nil
}

// column decodes column chunk cr into the rows of t and returns its row count. It stops with an error at the first row
// beyond the row group's, so a page that claims more levels than its row group has rows costs nothing.
func (d *decoder) column(cr file.ColumnChunkReader, how fileColumn, t *rowMaker) (int64, error) {
	list := how.typ == Float64List
	var rows int64
	var cell *Cell  // the current row's, with t.keep
	inList := false // the current row's list has an element: a level with repetition 1 may follow
	for cr.HasNext() {
		var n int64
		var m int
		var err error
		switch r := cr.(type) {
		case *file.Int64ColumnChunkReader:
			n, m, err = r.ReadBatch(decodeBatch, d.i64[:], d.defs[:], d.reps[:])
		case *file.Float64ColumnChunkReader:
			n, m, err = r.ReadBatch(decodeBatch, d.f64[:], d.defs[:], d.reps[:])
		case *file.BooleanColumnChunkReader:
			n, m, err = r.ReadBatch(decodeBatch, d.bools[:], d.defs[:], d.reps[:])
		case *file.ByteArrayColumnChunkReader:
			n, m, err = r.ReadBatch(decodeBatch, d.bytes[:], d.defs[:], d.reps[:])
		default:
			return 0, fmt.Errorf("unsupported physical type %s", cr.Type())
		}
		if err != nil {
			return 0, err
		}
		if n == 0 { // HasNext promised values the pages do not hold
			return 0, fmt.Errorf("no values read at row %d", rows)
		}
		if how.maxDef == 0 { // a required column: the reader fills no definition levels
			for k := range n {
				d.defs[k] = 0
			}
		}
		j := 0 // next value
		for k := range n {
			def := d.defs[k]
			if def > how.maxDef || def < 0 {
				return 0, fmt.Errorf("definition level %d above the column's %d", def, how.maxDef)
			}
			present := def == how.maxDef
			if present && j >= m {
				return 0, fmt.Errorf("fewer values than present levels at row %d", rows)
			}
			if !list || d.reps[k] == 0 { // a new row
				if rows == t.nrows {
					return 0, fmt.Errorf("more rows than the row group's %d", t.nrows)
				}
				if t.keep {
					if cell, err = t.row(rows); err != nil {
						return 0, err
					}
				}
				rows++
			}
			if list {
				if d.reps[k] == 0 {
					inList = def > how.listDef
					switch {
					case def < how.listDef:
						continue // a null list
					case def == how.listDef:
						if t.keep {
							*cell = List([]float64{})
						}
						continue
					case t.keep:
						*cell = List(nil)
					}
				} else if !inList || def <= how.listDef {
					return 0, fmt.Errorf("a list element that starts no list at row %d", rows)
				}
				v := math.NaN() // a null element
				if present {
					v = d.f64[j]
					j++
				}
				if t.keep {
					cell.L = append(cell.L, v)
				}
				continue
			}
			if !present {
				continue // a null cell
			}
			if t.keep {
				switch how.typ {
				case Int64:
					*cell = Int(d.i64[j])
				case Float64:
					*cell = Float(d.f64[j])
				case Bool:
					*cell = Boolean(d.bools[j])
				case String:
					*cell = Str(string(d.bytes[j]))
				}
			}
			j++
		}
		if j != m {
			return 0, fmt.Errorf("%d values for %d present levels at row %d", m, j, rows)
		}
	}
	return rows, cr.Err()
}
