package results

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/parquet/file"
)

var testCols = []Column{
	{Name: "run", Type: Int64, Doc: "run index"},
	{Name: "load", Type: Float64, Unit: "arrivals per mean service time"},
	{Name: "stable", Type: Bool},
	{Name: "policy", Type: String},
	{Name: "quantiles", Type: Float64List},
}

var testMeta = []KV{
	{Key: "lbsweep.version", Value: "v0.0.0-test"},
	{Key: "lbsweep.spec", Value: "name = \"x\"\nseeds = 3\n"},
	{Key: "a.key.sorted.before", Value: "order is kept, not sorted"},
	{Key: "empty", Value: ""},
}

// testRow is row i of a deterministic dataset covering every type, nulls, empty and nil lists, NaN and infinities.
func testRow(i int) Row {
	r := Row{
		Int(int64(i)*7919 - 500),
		Float(float64(i) / 3),
		Boolean(i%3 == 0),
		Str([]string{"jsq", "pod(2)", "round_robin", "", "ünïcode ✓"}[i%5]),
		List([]float64{float64(i), math.Sqrt(float64(i)), -0.5}),
	}
	switch i % 11 {
	case 1:
		r[0], r[1], r[2], r[3], r[4] = Null(), Null(), Null(), Null(), Null()
	case 2:
		r[1] = Float(math.NaN())
		r[4] = List(nil)
	case 3:
		r[4] = List([]float64{})
		r[1] = Float(math.Inf(1))
	case 4:
		r[4] = List([]float64{math.NaN(), math.Inf(-1)})
		r[3] = Null()
	case 5:
		r[1] = Float(math.Copysign(0, -1))
		r[0] = Int(math.MinInt64)
	case 6:
		r[0] = Int(math.MaxInt64)
		r[1] = Float(math.MaxFloat64)
	}
	return r
}

// sameFloat is bit equality (NaN equals NaN; -0 differs from +0).
func sameFloat(a, b float64) bool {
	if math.IsNaN(a) && math.IsNaN(b) {
		return true
	}
	return math.Float64bits(a) == math.Float64bits(b)
}

// checkCell compares a read cell with the written one for a column of type t.
func checkCell(t Type, got, want Cell) error {
	if got.Valid != want.Valid {
		return fmt.Errorf("valid %v, want %v", got.Valid, want.Valid)
	}
	if !want.Valid {
		if got.I != 0 || got.F != 0 || got.B || got.S != "" || got.L != nil {
			return fmt.Errorf("null cell has a value: %+v", got)
		}
		return nil
	}
	ok := true
	switch t {
	case Int64:
		ok = got.I == want.I
	case Float64:
		ok = sameFloat(got.F, want.F)
	case Bool:
		ok = got.B == want.B
	case String:
		ok = got.S == want.S
	case Float64List:
		ok = len(got.L) == len(want.L) && got.L != nil
		for j := 0; ok && j < len(want.L); j++ {
			ok = sameFloat(got.L[j], want.L[j])
		}
	}
	if !ok {
		return fmt.Errorf("got %+v, want %+v", got, want)
	}
	return nil
}

func checkRows(t *testing.T, cols []Column, got, want []Row) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("read %d rows, want %d", len(got), len(want))
	}
	bad := 0
	for i := range want {
		if len(got[i]) != len(cols) {
			t.Fatalf("row %d has %d cells, want %d", i, len(got[i]), len(cols))
		}
		for c := range cols {
			if err := checkCell(cols[c].Type, got[i][c], want[i][c]); err != nil {
				t.Errorf("row %d column %s: %v", i, cols[c].Name, err)
				if bad++; bad > 10 {
					t.FailNow()
				}
			}
		}
	}
}

func checkColumns(t *testing.T, got, want []Column) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("columns %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != (Column{Name: want[i].Name, Type: want[i].Type}) {
			t.Errorf("column %d = %+v, want name %q type %s", i, got[i], want[i].Name, want[i].Type)
		}
	}
}

// writeFile writes rows to path and fails the test on any error.
func writeFile(t testing.TB, path string, cols []Column, meta []KV, rowGroup int, rows []Row) {
	t.Helper()
	w, err := Create(path, cols, meta, rowGroup)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if err := w.Write(r); err != nil {
			w.Abort()
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

func testRows(n int) []Row {
	rows := make([]Row, n)
	for i := range rows {
		rows[i] = testRow(i)
	}
	return rows
}

func TestRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		n, rowGroup, groups int
	}{
		{n: 100, rowGroup: 16, groups: 7}, // > 2 row groups, last one partial
		{n: 48, rowGroup: 16, groups: 3},  // exact multiple: no empty trailing group
		{n: 1, rowGroup: 0, groups: 1},    // default row group
		{n: 0, rowGroup: 8, groups: 0},    // no rows: a valid empty file
	} {
		t.Run(fmt.Sprintf("n%d_rg%d", tc.n, tc.rowGroup), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "runs.parquet")
			rows := testRows(tc.n)
			writeFile(t, path, testCols, testMeta, tc.rowGroup, rows)

			tab, err := ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			checkColumns(t, tab.Columns, testCols)
			checkRows(t, testCols, tab.Rows, rows)
			if fmt.Sprint(tab.Meta) != fmt.Sprint(testMeta) {
				t.Errorf("meta %q, want %q", tab.Meta, testMeta)
			}

			// The footer: row groups, compression, key-value metadata in order with nothing else.
			rdr, err := file.OpenParquetFile(path, false)
			if err != nil {
				t.Fatal(err)
			}
			defer rdr.Close()
			md := rdr.MetaData()
			if got := rdr.NumRowGroups(); got != tc.groups {
				t.Errorf("%d row groups, want %d", got, tc.groups)
			}
			for g := 0; g < rdr.NumRowGroups(); g++ {
				rg := md.RowGroup(g)
				want := int64(tc.rowGroup)
				if want <= 0 {
					want = DefaultRowGroup
				}
				if g == rdr.NumRowGroups()-1 {
					want = int64(tc.n) - int64(g)*want
				}
				if rg.NumRows() != want {
					t.Errorf("row group %d has %d rows, want %d", g, rg.NumRows(), want)
				}
				for c := 0; c < rg.NumColumns(); c++ {
					cc, err := rg.ColumnChunk(c)
					if err != nil {
						t.Fatal(err)
					}
					if got := cc.Compression().String(); !strings.EqualFold(got, "zstd") {
						t.Errorf("row group %d column %d compression %s, want ZSTD", g, c, got)
					}
				}
			}
			if got, want := md.KeyValueMetadata().Keys(), []string{testMeta[0].Key, testMeta[1].Key, testMeta[2].Key, testMeta[3].Key}; fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("footer keys %q, want %q", got, want)
			}
			if cb := md.GetCreatedBy(); !strings.HasPrefix(cb, "parquet-go version ") {
				t.Errorf("created_by %q", cb)
			}
		})
	}
}

func TestCol(t *testing.T) {
	tab := &Table{Columns: testCols}
	if got := tab.Col("stable"); got != 2 {
		t.Errorf("Col(stable) = %d, want 2", got)
	}
	if got := tab.Col("nope"); got != -1 {
		t.Errorf("Col(nope) = %d, want -1", got)
	}
}

func TestDeterministic(t *testing.T) {
	rows := testRows(1000)
	dir := t.TempDir()
	write := func(name string, rowGroup int) []byte {
		path := filepath.Join(dir, name)
		writeFile(t, path, testCols, testMeta, rowGroup, rows)
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	a := write("a.parquet", 128)
	// Put a different file in between, so that no state carried over from the previous write could go unnoticed.
	write("other.parquet", 7)
	b := write("sub-b.parquet", 128)
	if !bytes.Equal(a, b) {
		t.Fatalf("same rows written twice differ (%d vs %d bytes)", len(a), len(b))
	}
	if c := write("c.parquet", 0); bytes.Equal(a, c) {
		t.Errorf("rowGroup 128 and 4096 gave the same bytes: the row group size is not applied")
	}
	// The metadata changes the bytes, and so does a single value.
	path := filepath.Join(dir, "d.parquet")
	writeFile(t, path, testCols, testMeta[:1], 128, rows)
	if d, _ := os.ReadFile(path); bytes.Equal(a, d) {
		t.Errorf("different metadata gave the same bytes")
	}
	rows2 := testRows(1000)
	rows2[999][0] = Int(1)
	writeFile(t, path, testCols, testMeta, 128, rows2)
	if d, _ := os.ReadFile(path); bytes.Equal(a, d) {
		t.Errorf("different rows gave the same bytes")
	}
	// Nothing of the host, the time or the path in the file.
	host, _ := os.Hostname()
	for _, s := range []string{dir, "a.parquet", host} {
		if s != "" && bytes.Contains(a, []byte(s)) {
			t.Errorf("file contains %q", s)
		}
	}
}

func exists(t *testing.T, path string) bool {
	t.Helper()
	_, err := os.Stat(path)
	if err == nil {
		return true
	}
	if !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	return false
}

func TestAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "runs.parquet")
	tmp := TempName(path)

	w, err := Create(path, testCols, testMeta, 4)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 10; i++ { // two full row groups written, two rows pending
		if err := w.Write(testRow(i)); err != nil {
			t.Fatal(err)
		}
	}
	if exists(t, path) || !exists(t, tmp) {
		t.Fatalf("before Close: final exists %v, tmp exists %v; want only tmp", exists(t, path), exists(t, tmp))
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if !exists(t, path) || exists(t, tmp) {
		t.Fatalf("after Close: final exists %v, tmp exists %v; want only final", exists(t, path), exists(t, tmp))
	}
	w.Abort() // after Close: leaves the file alone
	w.Abort()
	if !exists(t, path) {
		t.Fatal("Abort after Close removed the file")
	}
	if err := w.Write(testRow(0)); err == nil {
		t.Error("Write after Close succeeded")
	}
	if err := w.Close(); err == nil {
		t.Error("second Close succeeded")
	}

	// Abort before Close: neither file.
	path2 := filepath.Join(dir, "aborted.parquet")
	w, err = Create(path2, testCols, testMeta, 4)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 10; i++ {
		if err := w.Write(testRow(i)); err != nil {
			t.Fatal(err)
		}
	}
	w.Abort()
	w.Abort()
	if exists(t, path2) || exists(t, TempName(path2)) {
		t.Fatal("after Abort a file remains")
	}
	if err := w.Close(); err == nil {
		t.Error("Close after Abort succeeded")
	}
	if exists(t, path2) {
		t.Fatal("Close after Abort made the file")
	}
}

func TestCloseErrors(t *testing.T) {
	dir := t.TempDir()

	// Rename fails: the final path is a non-empty directory.
	path := filepath.Join(dir, "isdir.parquet")
	if err := os.MkdirAll(filepath.Join(path, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	w, err := Create(path, testCols, testMeta, 4)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(testRow(0)); err != nil {
		t.Fatal(err)
	}
	err = w.Close()
	if err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("Close onto a directory: err = %v, want an error naming %s", err, path)
	}
	if exists(t, TempName(path)) {
		t.Error("failed Close left the tmp file")
	}

	// A write fails: the tmp file is closed under the writer (as a full disk or a lost mount would), with rows
	// pending, so the failure comes in Close (flushing) and Close must remove the tmp file.
	path = filepath.Join(dir, "broken.parquet")
	w, err = Create(path, testCols, testMeta, 1000)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 5000; i++ {
		if err := w.Write(testRow(i)); err != nil {
			t.Fatalf("row %d: %v", i, err)
		}
		if i == 2500 {
			w.f.Close()
		}
	}
	if err := w.Close(); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("Close after the file broke: err = %v, want an error naming %s", err, path)
	}
	if exists(t, path) || exists(t, TempName(path)) {
		t.Error("a file remains after a failed Close")
	}

	// A failure in Write: later Writes and Close return it, Close removes the tmp.
	path = filepath.Join(dir, "broken2.parquet")
	w, err = Create(path, testCols, testMeta, 2)
	if err != nil {
		t.Fatal(err)
	}
	w.f.Close()
	var werr error
	seed := uint64(1)
	for i := 0; i < 5000 && werr == nil; i++ {
		// Incompressible 64 KiB strings, so the 1 MiB write buffer fills and the failure shows within Write.
		buf := make([]byte, 64<<10)
		for j := range buf {
			seed = seed*6364136223846793005 + 1442695040888963407
			buf[j] = byte(seed >> 56)
		}
		r := testRow(i)
		r[3] = Str(string(buf))
		werr = w.Write(r)
	}
	if werr == nil {
		t.Fatal("writes into a closed file all succeeded")
	}
	if err := w.Write(testRow(0)); err == nil {
		t.Error("Write after a failed Write succeeded")
	}
	if err := w.Close(); err == nil {
		t.Error("Close after a failed Write succeeded")
	}
	if exists(t, path) || exists(t, TempName(path)) {
		t.Error("a file remains after a failed Write and Close")
	}
}

func TestCreateErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		path string
		cols []Column
	}{
		{"missing dir", filepath.Join(dir, "no", "such", "x.parquet"), testCols},
		{"no columns", filepath.Join(dir, "a.parquet"), nil},
		{"duplicate", filepath.Join(dir, "b.parquet"), []Column{{Name: "a", Type: Int64}, {Name: "a", Type: Bool}}},
		{"bad type", filepath.Join(dir, "c.parquet"), []Column{{Name: "a", Type: 0}}},
		{"no name", filepath.Join(dir, "d.parquet"), []Column{{Type: Int64}}},
	} {
		w, err := Create(tc.path, tc.cols, nil, 0)
		if err == nil {
			w.Abort()
			t.Errorf("%s: Create succeeded", tc.name)
			continue
		}
		if !strings.Contains(err.Error(), tc.path) {
			t.Errorf("%s: error %q does not name %s", tc.name, err, tc.path)
		}
		if exists(t, TempName(tc.path)) && tc.name != "missing dir" {
			t.Errorf("%s: tmp file left", tc.name)
		}
	}

	// A row of the wrong length is an error and writes nothing.
	path := filepath.Join(dir, "short.parquet")
	w, err := Create(path, testCols, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(testRow(0)[:3]); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("short row: err = %v", err)
	}
	if err := w.Write(append(testRow(0), Int(1))); err == nil {
		t.Error("long row accepted")
	}
	// A valid cell of another type than its column's is an error naming the column, and writes nothing; null fits
	// every column.
	for _, tc := range []struct {
		col  int
		cell Cell
		name string
	}{
		{0, Float(1.5), "run (int64)"},
		{1, Int(2), "load (double)"},
		{2, Str("yes"), "stable (bool)"},
		{3, List([]float64{1}), "policy (string)"},
		{4, Float(0), "quantiles (list<double>)"},
	} {
		r := testRow(0)
		r[tc.col] = tc.cell
		if err := w.Write(r); err == nil || !strings.Contains(err.Error(), "column "+tc.name) || !strings.Contains(err.Error(), path) {
			t.Errorf("%s cell in column %d: err = %v, want one naming column %s", tc.cell, tc.col, err, tc.name)
		}
	}
	if err := w.Write(testRow(0)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	tab, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	checkRows(t, testCols, tab.Rows, []Row{testRow(0)})
	if len(tab.Meta) != 0 {
		t.Errorf("meta %v, want none", tab.Meta)
	}
}

func TestReadDataset(t *testing.T) {
	dir := t.TempDir()
	all := testRows(60)
	// Written out of name order, so that name order (not creation order) is what is checked.
	writeFile(t, filepath.Join(dir, "part-1.parquet"), testCols, []KV{{Key: "part", Value: "1"}}, 8, all[25:])
	writeFile(t, filepath.Join(dir, "part-0.parquet"), testCols, []KV{{Key: "part", Value: "0"}}, 8, all[:25])
	// Ignored: a tmp file, a subdirectory (even one named *.parquet), other files.
	if err := os.WriteFile(TempName(filepath.Join(dir, "part-2.parquet")), []byte("partial"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "sub.parquet")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(sub, "part-9.parquet"), testCols, nil, 8, all[:3])
	// A Writer that is still open only has its .tmp.
	open, err := Create(filepath.Join(dir, "part-3.parquet"), testCols, nil, 8)
	if err != nil {
		t.Fatal(err)
	}
	defer open.Abort()
	if err := open.Write(testRow(0)); err != nil {
		t.Fatal(err)
	}

	tab, err := ReadDataset(dir)
	if err != nil {
		t.Fatal(err)
	}
	checkColumns(t, tab.Columns, testCols)
	checkRows(t, testCols, tab.Rows, all)
	if fmt.Sprint(tab.Meta) != fmt.Sprint([]KV{{Key: "part", Value: "0"}}) {
		t.Errorf("meta %v, want the first file's", tab.Meta)
	}

	// A file whose schema differs is named in the error.
	for name, cols := range map[string][]Column{
		"type":   {testCols[0], {Name: "load", Type: Int64}, testCols[2], testCols[3], testCols[4]},
		"name":   {testCols[0], testCols[1], testCols[2], {Name: "policy2", Type: String}, testCols[4]},
		"fewer":  testCols[:4],
		"more":   append(append([]Column(nil), testCols...), Column{Name: "extra", Type: Bool}),
		"longer": append(append([]Column(nil), testCols...), Column{Name: "extra", Type: Float64List}),
	} {
		bad := filepath.Join(dir, "part-5-"+name+".parquet")
		rows := make([]Row, 3)
		for i := range rows {
			rows[i] = make(Row, len(cols))
		}
		writeFile(t, bad, cols, nil, 0, rows)
		_, err := ReadDataset(dir)
		if err == nil || !strings.Contains(err.Error(), bad) {
			t.Errorf("%s: err = %v, want an error naming %s", name, err, bad)
		}
		if err := os.Remove(bad); err != nil {
			t.Fatal(err)
		}
	}

	// No files, no directory.
	empty := t.TempDir()
	if _, err := ReadDataset(empty); err == nil || !strings.Contains(err.Error(), empty) {
		t.Errorf("empty dir: err = %v, want an error naming %s", err, empty)
	}
	missing := filepath.Join(empty, "missing")
	if _, err := ReadDataset(missing); err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("missing dir: err = %v, want an error naming %s", err, missing)
	}
	// A file that is not Parquet is named.
	junk := filepath.Join(empty, "junk.parquet")
	if err := os.WriteFile(junk, []byte("not parquet at all"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadDataset(empty); err == nil || !strings.Contains(err.Error(), junk) {
		t.Errorf("junk file: err = %v, want an error naming %s", err, junk)
	}
}

// TestStreaming checks that a Writer keeps no more than a row group in memory: the .tmp file grows while rows are
// written.
func TestStreaming(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.parquet")
	w, err := Create(path, testCols, nil, 256)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	size := func() int64 {
		if err := w.bw.Flush(); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(TempName(path))
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	var last int64
	for i := 0; i < 4*256; i++ {
		if err := w.Write(testRow(i)); err != nil {
			t.Fatal(err)
		}
		if (i+1)%256 == 0 {
			s := size()
			if s <= last {
				t.Fatalf("after %d rows the file has %d bytes, no more than before (%d)", i+1, s, last)
			}
			last = s
		}
	}
}

func BenchmarkWrite(b *testing.B) {
	cols := []Column{
		{Name: "run", Type: Int64}, {Name: "seed", Type: Int64}, {Name: "n", Type: Int64},
		{Name: "load", Type: Float64}, {Name: "mean_response", Type: Float64}, {Name: "p99", Type: Float64},
		{Name: "theory", Type: Float64}, {Name: "stable", Type: Bool}, {Name: "policy", Type: String},
		{Name: "queue_dist", Type: Float64List},
	}
	const nrows = 100_000
	rows := make([]Row, 1000)
	for i := range rows {
		q := make([]float64, 8)
		for j := range q {
			q[j] = math.Exp(-float64(i%97+j) / 7)
		}
		rows[i] = Row{Int(int64(i)), Int(int64(i * 31)), Int(int64(10 + i%5)), Float(float64(i%19) / 20),
			Float(1 + float64(i)/1000), Float(3.5 + float64(i%13)), Null(), Boolean(i%2 == 0),
			Str([]string{"jsq", "pod(2)", "random"}[i%3]), List(q)}
	}
	dir := b.TempDir()
	b.ReportAllocs()
	b.ResetTimer()
	var size int64
	for it := 0; it < b.N; it++ {
		path := filepath.Join(dir, "bench.parquet")
		w, err := Create(path, cols, testMeta, 0)
		if err != nil {
			b.Fatal(err)
		}
		for i := 0; i < nrows; i++ {
			r := rows[i%len(rows)]
			r[0] = Int(int64(i))
			if err := w.Write(r); err != nil {
				b.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
		if fi, err := os.Stat(path); err == nil {
			size = fi.Size()
		}
	}
	b.ReportMetric(float64(nrows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(float64(size)/nrows, "file-B/row")
}
