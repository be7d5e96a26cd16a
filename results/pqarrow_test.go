package results

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/apache/arrow-go/v18/parquet/schema"
)

// pqarrowFile writes rows as the Writer did before it drove the column writers itself: through arrow-go's Arrow
// layer, one Arrow record per row group of a nullable field per column, with the same writer properties. It is the
// reference the Writer's bytes are held to.
func pqarrowFile(t testing.TB, cols []Column, meta []KV, rowGroup int, rows []Row) []byte {
	t.Helper()
	fields := make([]arrow.Field, len(cols))
	for i, c := range cols {
		var dt arrow.DataType
		switch c.Type {
		case Int64:
			dt = arrow.PrimitiveTypes.Int64
		case Float64:
			dt = arrow.PrimitiveTypes.Float64
		case Bool:
			dt = arrow.FixedWidthTypes.Boolean
		case String:
			dt = arrow.BinaryTypes.String
		case Float64List:
			dt = arrow.ListOf(arrow.PrimitiveTypes.Float64)
		}
		fields[i] = arrow.Field{Name: c.Name, Type: dt, Nullable: true}
	}
	keys, vals := make([]string, len(meta)), make([]string, len(meta))
	for i, kv := range meta {
		keys[i], vals[i] = kv.Key, kv.Value
	}
	md := arrow.NewMetadata(keys, vals)
	sc := arrow.NewSchema(fields, &md)
	mem := memory.NewGoAllocator()
	var buf bytes.Buffer
	fw, err := pqarrow.NewFileWriter(sc, sink{&buf}, writerProperties(rowGroup, mem), pqarrow.NewArrowWriterProperties(pqarrow.WithAllocator(mem)))
	if err != nil {
		t.Fatal(err)
	}
	rb := array.NewRecordBuilder(mem, sc)
	defer rb.Release()
	flush := func() {
		rec := rb.NewRecordBatch()
		defer rec.Release()
		if err := fw.Write(rec); err != nil {
			t.Fatal(err)
		}
	}
	for n, r := range rows {
		for i, c := range r {
			switch b := rb.Field(i).(type) {
			case *array.Int64Builder:
				if c.Valid {
					b.Append(c.I)
				} else {
					b.AppendNull()
				}
			case *array.Float64Builder:
				if c.Valid {
					b.Append(c.F)
				} else {
					b.AppendNull()
				}
			case *array.BooleanBuilder:
				if c.Valid {
					b.Append(c.B)
				} else {
					b.AppendNull()
				}
			case *array.StringBuilder:
				if c.Valid {
					b.Append(c.S)
				} else {
					b.AppendNull()
				}
			case *array.ListBuilder:
				if c.Valid {
					b.Append(true)
					b.ValueBuilder().(*array.Float64Builder).AppendValues(c.L, nil)
				} else {
					b.AppendNull()
				}
			}
		}
		if (n+1)%rowGroup == 0 {
			flush()
		}
	}
	if len(rows)%rowGroup != 0 {
		flush()
	}
	if err := fw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestWriterMatchesPqarrow: the Writer's files are byte for byte those of arrow-go's pqarrow for the same rows, so
// datasets written before and after the Writer stopped linking pqarrow are the same files. The cases cover every
// column type, nulls in some row groups and none in others (pqarrow's two write calls), all-null columns, empty and
// null lists, one row and several row groups, no rows, and a string column whose dictionary passes arrow-go's default
// limit of 1 MB (see writerProperties).
func TestWriterMatchesPqarrow(t *testing.T) {
	dense := func(n int) []Row { // no nulls at all
		rows := make([]Row, n)
		for i := range rows {
			rows[i] = Row{Int(int64(i * i)), Float(math.Sqrt(float64(i))), Boolean(i%7 < 3), Str(fmt.Sprint("p", i%13)),
				List([]float64{float64(i), 1 / float64(i+1)})}
		}
		return rows
	}
	nulls := make([]Row, 50)
	for i := range nulls {
		nulls[i] = Row{Null(), Null(), Null(), Null(), Null()}
	}
	varied := variedStrings()
	for _, tc := range []struct {
		name  string
		group int
		rows  []Row
	}{
		{"none", 4, nil},
		{"one", 4, testRows(1)},
		{"mixed", 4, testRows(37)},
		{"mixed-big-groups", 1000, testRows(2500)},
		{"dense", 16, dense(100)},
		{"dense-then-nulls", 64, append(dense(64), testRows(64)...)},
		{"all-null", 8, nulls},
		{"varied-strings", 4096, varied},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "runs.parquet")
			writeFile(t, path, testCols, testMeta, tc.group, tc.rows)
			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			want := pqarrowFile(t, testCols, testMeta, tc.group, tc.rows)
			if !bytes.Equal(got, want) {
				i := 0
				for i < len(got) && i < len(want) && got[i] == want[i] {
					i++
				}
				t.Fatalf("%d bytes, pqarrow %d; first difference at byte %d", len(got), len(want), i)
			}
		})
	}
}

// arrowFile writes one Arrow record through pqarrow with the given writer properties, as another program would.
func arrowFile(t *testing.T, props *parquet.WriterProperties, arrs map[string]arrow.Array, names []string, nullable bool) string {
	t.Helper()
	fields := make([]arrow.Field, len(names))
	cols := make([]arrow.Array, len(names))
	for i, n := range names {
		fields[i] = arrow.Field{Name: n, Type: arrs[n].DataType(), Nullable: nullable}
		cols[i] = arrs[n]
	}
	sc := arrow.NewSchema(fields, nil)
	rec := array.NewRecordBatch(sc, cols, int64(cols[0].Len()))
	defer rec.Release()
	path := filepath.Join(t.TempDir(), "other.parquet")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	fw, err := pqarrow.NewFileWriter(sc, f, props, pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
	if err != nil {
		t.Fatal(err)
	}
	if err := fw.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := fw.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestReadOtherWriters: files a Writer does not write but other Parquet writers do are read as pqarrow read them:
// dictionary-typed and large strings, large lists, null list elements (NaN), the Arrow schema stored in the footer
// (left out of Meta), plain encoding without dictionaries, data pages v2, required columns; and columns of other
// types are refused, naming the column.
func TestReadOtherWriters(t *testing.T) {
	mem := memory.NewGoAllocator()
	db := array.NewDictionaryBuilder(mem, &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}).(*array.BinaryDictionaryBuilder)
	defer db.Release()
	_ = db.AppendString("b")
	db.AppendNull()
	_ = db.AppendString("a")
	_ = db.AppendString("b")
	lsb := array.NewLargeStringBuilder(mem)
	defer lsb.Release()
	lsb.AppendValues([]string{"x", "", "z", "w"}, []bool{true, true, false, true})
	llb := array.NewLargeListBuilder(mem, arrow.PrimitiveTypes.Float64)
	defer llb.Release()
	vb := llb.ValueBuilder().(*array.Float64Builder)
	llb.Append(true)
	vb.AppendValues([]float64{1, 2}, []bool{true, false})
	llb.AppendNull()
	llb.Append(true)
	llb.Append(true)
	vb.Append(3)
	ib := array.NewInt64Builder(mem)
	defer ib.Release()
	ib.AppendValues([]int64{5, -1, 0, 7}, []bool{true, false, true, true})
	i32 := array.NewInt32Builder(mem)
	defer i32.Release()
	i32.AppendValues([]int32{1, 2, 3, 4}, nil)
	lib := array.NewListBuilder(mem, arrow.PrimitiveTypes.Int64)
	defer lib.Release()
	for range 4 {
		lib.Append(true)
		lib.ValueBuilder().(*array.Int64Builder).Append(1)
	}
	sb := array.NewStructBuilder(mem, arrow.StructOf(arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Float64, Nullable: true}))
	defer sb.Release()
	for i := range 4 {
		sb.Append(true)
		sb.FieldBuilder(0).(*array.Float64Builder).Append(float64(i))
	}
	arrs := map[string]arrow.Array{"dict": db.NewArray(), "large": lsb.NewArray(), "llist": llb.NewArray(), "int": ib.NewArray(),
		"i32": i32.NewArray(), "ilist": lib.NewArray(), "struct": sb.NewArray()}
	for _, a := range arrs {
		defer a.Release()
	}
	want := map[string][]Cell{
		"dict":  {Str("b"), Null(), Str("a"), Str("b")},
		"large": {Str("x"), Str(""), Null(), Str("w")},
		"llist": {List([]float64{1, math.NaN()}), Null(), List(nil), List([]float64{3})},
		"int":   {Int(5), Null(), Int(0), Int(7)},
	}
	types := map[string]Type{"dict": String, "large": String, "llist": Float64List, "int": Int64}
	names := []string{"dict", "large", "llist", "int"}
	for _, tc := range []struct {
		name  string
		props *parquet.WriterProperties
	}{
		{"default", parquet.NewWriterProperties()},
		{"plain", parquet.NewWriterProperties(parquet.WithDictionaryDefault(false))},
		{"v2", parquet.NewWriterProperties(parquet.WithDataPageVersion(parquet.DataPageV2), parquet.WithCompression(compress.Codecs.Zstd))},
	} {
		tbl, err := ReadFile(arrowFile(t, tc.props, arrs, names, true))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if len(tbl.Meta) != 0 {
			t.Errorf("%s: meta %v, want none (ARROW:schema left out)", tc.name, tbl.Meta)
		}
		for c, n := range names {
			if tbl.Columns[c] != (Column{Name: n, Type: types[n]}) {
				t.Errorf("%s: column %d is %+v", tc.name, c, tbl.Columns[c])
			}
			for r, w := range want[n] {
				if err := checkCell(types[n], tbl.Rows[r][c], w); err != nil {
					t.Errorf("%s: %s row %d: %v", tc.name, n, r, err)
				}
			}
		}
	}
	// Required (non-nullable) columns: every cell present.
	ib.AppendValues([]int64{1, 2, 3}, nil)
	req := map[string]arrow.Array{"int": ib.NewArray()}
	defer req["int"].Release()
	tbl, err := ReadFile(arrowFile(t, parquet.NewWriterProperties(), req, []string{"int"}, false))
	if err != nil {
		t.Fatal(err)
	}
	checkRows(t, []Column{{Name: "int", Type: Int64}}, tbl.Rows, []Row{{Int(1)}, {Int(2)}, {Int(3)}})
	for _, n := range []string{"i32", "ilist", "struct"} {
		_, err := ReadFile(arrowFile(t, parquet.NewWriterProperties(), arrs, []string{n}, true))
		if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("column %q: unsupported", n)) {
			t.Errorf("%s: %v, want an error naming the column", n, err)
		}
	}
}

// TestCommittedDatasetsRewriteByteForByte: every committed dataset file, read back and written again by the Writer
// with its row-group size, is the same file byte for byte. With TestWriterMatchesPqarrow this is what let the
// datasets stand unchanged when the Writer stopped going through pqarrow: at that commit all 47 files had been written
// through pqarrow (26 were re-stamped by the new Writer since, their rows unchanged).
func TestCommittedDatasetsRewriteByteForByte(t *testing.T) {
	paths, _ := filepath.Glob("../results/*/*.parquet")
	series, _ := filepath.Glob("../results/*/" + SeriesDir + "/*.parquet")
	paths = append(paths, series...)
	if len(paths) == 0 {
		t.Skip("no committed datasets")
	}
	paths = slices.DeleteFunc(paths, func(p string) bool { return strings.Contains(p, "/testdata/") })
	for _, p := range paths {
		want, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		tbl, err := ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		rdr, err := file.NewParquetReader(bytes.NewReader(want))
		if err != nil {
			t.Fatal(err)
		}
		group := DefaultRowGroup
		if rdr.NumRowGroups() > 1 {
			group = int(rdr.MetaData().RowGroup(0).NumRows())
		}
		cols := tbl.Columns
		out := filepath.Join(t.TempDir(), "runs.parquet")
		writeFile(t, out, cols, tbl.Meta, group, tbl.Rows)
		got, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s (%d rows, row groups of %d): rewritten %d bytes, committed %d", p, len(tbl.Rows), group, len(got), len(want))
		}
	}
	t.Logf("%d files rewritten", len(paths))
}

// variedStrings is 3000 rows of testRow with 1.6 MB of distinct strings: a dictionary past arrow-go's default limit.
func variedStrings() []Row {
	rows := make([]Row, 3000)
	for i := range rows {
		rows[i] = testRow(i)
		rows[i][3] = Str(fmt.Sprintf("%0520d", i*7919))
	}
	return rows
}

// TestWriterDeterministicPastTheDictionaryLimit: a column chunk whose dictionary passes arrow-go's default limit
// gives the same bytes every time. With the default limit, arrow-go fell back to plain encoding and wrote the two
// data encodings' statistics in a Go map's order: 3 of 20 files differed from the first.
func TestWriterDeterministicPastTheDictionaryLimit(t *testing.T) {
	rows := variedStrings()
	var first []byte
	for range 20 {
		path := filepath.Join(t.TempDir(), "runs.parquet")
		writeFile(t, path, testCols, testMeta, DefaultRowGroup, rows)
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = got
		} else if !bytes.Equal(got, first) {
			t.Fatal("the same rows gave another file")
		}
	}
}

// TestReadLegacyLists: the two-level list (a LIST group over a repeated DOUBLE) is read as Float64List, and a LIST
// whose repeated group is named "array" or "<name>_tuple" is refused, since the Parquet format's compatibility rules
// (and pqarrow) make that group the element: a list of structs.
func TestReadLegacyLists(t *testing.T) {
	props := parquet.NewWriterProperties()
	write := func(rep schema.Node, defs, reps []int16, vals []float64) string {
		t.Helper()
		list, err := schema.NewGroupNodeLogical("l", parquet.Repetitions.Optional, schema.FieldList{rep}, schema.ListLogicalType{}, -1)
		if err != nil {
			t.Fatal(err)
		}
		root, err := schema.NewGroupNode("schema", parquet.Repetitions.Required, schema.FieldList{list}, -1)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		fw := file.NewParquetWriter(&buf, root, file.WithWriterProps(props))
		rgw := fw.AppendRowGroup()
		cw, err := rgw.NextColumn()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := cw.(*file.Float64ColumnChunkWriter).WriteBatch(vals, defs, reps); err != nil {
			t.Fatal(err)
		}
		if err := rgw.Close(); err != nil {
			t.Fatal(err)
		}
		if err := fw.Close(); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "legacy.parquet")
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	elem, _ := schema.NewPrimitiveNode("element", parquet.Repetitions.Repeated, parquet.Types.Double, -1, -1)
	// Rows [1 2], [], null: definition levels 2 (an element), 1 (empty), 0 (null).
	tbl, err := ReadFile(write(elem, []int16{2, 2, 1, 0}, []int16{0, 1, 0, 0}, []float64{1, 2}))
	if err != nil {
		t.Fatal(err)
	}
	checkRows(t, []Column{{Name: "l", Type: Float64List}}, tbl.Rows, []Row{{List([]float64{1, 2})}, {List(nil)}, {Null()}})
	for _, name := range []string{"array", "l_tuple"} {
		x, _ := schema.NewPrimitiveNode("x", parquet.Repetitions.Required, parquet.Types.Double, -1, -1)
		g, _ := schema.NewGroupNode(name, parquet.Repetitions.Repeated, schema.FieldList{x}, -1)
		_, err := ReadFile(write(g, []int16{2, 2}, []int16{0, 1}, []float64{1, 2}))
		if err == nil || !strings.Contains(err.Error(), `column "l": unsupported list of groups`) {
			t.Errorf("repeated group %q: %v, want a list of structs refused", name, err)
		}
	}
}
