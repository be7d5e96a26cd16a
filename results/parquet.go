package results

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"syscall"

	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/schema"

	lbschema "lbsweep/results/schema"
)

// DefaultRowGroup is the number of rows per row group that Create uses when asked for rowGroup <= 0.
const DefaultRowGroup = 4096

// TempName is where a Writer for path writes until Close: the same directory, the name prefixed with "." and suffixed
// with the process id and ".tmp". The dot hides it from dataset readers (pyarrow.dataset, R arrow and polars skip
// names starting with "." or "_"; DuckDB's *.parquet glob does not match it), so a half-written file is never read as
// data; the process id keeps two concurrent sweeps of the same dataset from writing into one file (the last rename
// wins, and each file that appears is complete).
func TempName(path string) string {
	return filepath.Join(filepath.Dir(path), fmt.Sprintf(".%s.%d.tmp", filepath.Base(path), os.Getpid()))
}

// RemoveStaleTemps removes the temporary files that writers of path left when they were killed: those of processes
// that no longer run on this machine. A live writer's file (another sweep of the same dataset) is left alone.
func RemoveStaleTemps(path string) {
	pattern := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	files, _ := filepath.Glob(pattern)
	for _, f := range files {
		var pid int
		name := filepath.Base(f)
		if _, err := fmt.Sscanf(name[len(filepath.Base(path))+2:], "%d.tmp", &pid); err != nil || pid == os.Getpid() {
			continue
		}
		if p, err := os.FindProcess(pid); err == nil && p.Signal(syscall.Signal(0)) == nil {
			continue // still running
		}
		os.Remove(f)
	}
}

// RemoveTemps removes every temporary file of a writer of path (TempName's, of any process id). Call it only while
// holding the lock of path's writer (a sweep's or merge's): then no other process writes path, so each of them was
// left by a writer that was killed, whatever became of its process id since.
func RemoveTemps(path string) {
	files, _ := filepath.Glob(filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp"))
	for _, f := range files {
		var pid int
		if _, err := fmt.Sscanf(filepath.Base(f)[len(filepath.Base(path))+2:], "%d.tmp", &pid); err == nil {
			os.Remove(f)
		}
	}
}

// Writer streams rows into one Parquet file. It writes to TempName(PATH) and renames to PATH only in Close, so an
// interrupted write never leaves a file that looks complete.
//
// Rows are appended to one buffer per column; every rowGroup rows they are written at once as one row group, so
// memory holds at most one row group and the row-group boundaries (and hence the file's bytes) depend only on the
// rows, the columns, the metadata and rowGroup. Nothing in the file depends on the time, the host or the path: the
// footer's created_by is the constant "parquet-go version V" of the arrow-go library.
//
// The Writer drives arrow-go's column writers (parquet/file) directly, with the Parquet schema and the calls that
// arrow-go's Arrow layer (pqarrow) makes for an Arrow record of these columns, so the bytes are those pqarrow writes
// (TestWriterMatchesPqarrow). pqarrow itself is not linked: it imports arrow's Flight, and with it grpc and protobuf,
// whose package initialisers cost every process that links them about 2.4·10^6 instructions and 6 MB of memory
// before main, a quarter of a sweep that has nothing to run.
//
// Floats are written bit for bit but for NaN's payload and sign: arrow-go's dictionary encoder counts every NaN as one
// value, so a column chunk's NaNs read back with the bits of its first (as pqarrow's files did).
//
// A Writer is not safe for concurrent use.
type Writer struct {
	path, tmp string
	cols      []Column
	rowGroup  int

	f   *os.File
	bw  *bufio.Writer
	fw  *file.Writer
	buf []columnBuffer // one per column: the pending rows' values

	pending int   // rows appended to the buffers and not yet written
	err     error // first error; the Writer is unusable after it
	done    bool  // Close or Abort has run
}

// columnBuffer holds one column's pending values as an Arrow array of the column's type would: one slot per row,
// nulls included (a zero value in the slot, a clear bit in valid), so that the Writer makes the column writer the
// calls pqarrow makes for that array.
type columnBuffer struct {
	valid []byte  // validity bitmap, bit i for row i (least significant bit first); not kept for lists
	nulls int     // rows with a clear bit
	defs  []int16 // definition levels: one per row, or for a list one per element (one for a null or empty list)
	reps  []int16 // repetition levels, lists only
	i64   []int64
	f64   []float64 // a Float64 column's slots, or a list's elements
	bools []bool
	data  []byte  // a String column's bytes, end to end
	offs  []int32 // a String column's offsets into data: slot i is data[offs[i]:offs[i+1]]
}

// reset empties b for the next row group, keeping its memory.
func (b *columnBuffer) reset() {
	*b = columnBuffer{valid: b.valid[:0], defs: b.defs[:0], reps: b.reps[:0], i64: b.i64[:0], f64: b.f64[:0],
		bools: b.bools[:0], data: b.data[:0], offs: b.offs[:0]}
}

// slot appends row's validity bit and its definition level (0 null, 1 present), for a column other than a list
// (whose levels Write appends, and which is written without a bitmap: see writeGroup).
func (b *columnBuffer) slot(row int, valid bool) {
	if row%8 == 0 {
		b.valid = append(b.valid, 0)
	}
	d := int16(0)
	if valid {
		b.valid[row/8] |= 1 << (row % 8)
		d = 1
	} else {
		b.nulls++
	}
	b.defs = append(b.defs, d)
}

// Definition levels of a Float64List column, an optional list of optional doubles (three levels: the list, its
// repeated group, the element).
const (
	listNull    = 0 // the cell is null
	listEmpty   = 1 // the cell is an empty list
	listElement = 3 // one (non-null) element; a Writer writes no null element
)

// sink hides the *bufio.Writer's (and so the file's) other methods from the parquet writer, which would otherwise
// close an io.Closer itself; Close closes the file after fsync.
type sink struct{ w io.Writer }

func (s sink) Write(p []byte) (int, error) { return s.w.Write(p) }

// columnNode is the Parquet schema node of column c, as pqarrow makes it for a nullable Arrow field of the matching
// type: INT64 with the logical type INT(64, signed), DOUBLE, BOOLEAN, BYTE_ARRAY with the logical type STRING, and for
// Float64List the three-level LIST of optional DOUBLE elements named "element".
func columnNode(c Column) (schema.Node, error) {
	opt := parquet.Repetitions.Optional
	switch c.Type {
	case Int64:
		return schema.NewPrimitiveNodeLogical(c.Name, opt, schema.NewIntLogicalType(64, true), parquet.Types.Int64, -1, -1)
	case Float64:
		return schema.NewPrimitiveNodeLogical(c.Name, opt, schema.NoLogicalType{}, parquet.Types.Double, -1, -1)
	case Bool:
		return schema.NewPrimitiveNodeLogical(c.Name, opt, schema.NoLogicalType{}, parquet.Types.Boolean, -1, -1)
	case String:
		return schema.NewPrimitiveNodeLogical(c.Name, opt, schema.StringLogicalType{}, parquet.Types.ByteArray, -1, -1)
	case Float64List:
		elem, err := schema.NewPrimitiveNodeLogical("element", opt, schema.NoLogicalType{}, parquet.Types.Double, -1, -1)
		if err != nil {
			return nil, err
		}
		return schema.ListOfWithName(c.Name, elem, opt, -1)
	}
	return nil, fmt.Errorf("invalid column type %d", uint8(c.Type))
}

// parquetSchema builds the Parquet schema of cols under the root props names.
func parquetSchema(cols []Column, props *parquet.WriterProperties) (*schema.GroupNode, error) {
	if len(cols) == 0 {
		return nil, errors.New("no columns")
	}
	seen := make(map[string]bool, len(cols))
	nodes := make(schema.FieldList, len(cols))
	for i, c := range cols {
		if c.Name == "" {
			return nil, fmt.Errorf("column %d has no name", i)
		}
		if seen[c.Name] {
			return nil, fmt.Errorf("duplicate column %q", c.Name)
		}
		seen[c.Name] = true
		n, err := columnNode(c)
		if err != nil {
			return nil, fmt.Errorf("column %q: %w", c.Name, err)
		}
		nodes[i] = n
	}
	return schema.NewGroupNode(props.RootName(), props.RootRepetition(), nodes, -1)
}

// writerProperties are the Parquet writer settings. They are fixed so that files are reproducible: zstd at its
// default level, dictionary encoding (the default), statistics, one row group per record.
//
// The dictionary has no size limit short of a page's (2 GiB), so a column chunk never falls back to plain encoding:
// arrow-go v18.8.0 writes the page encoding statistics of a chunk whose data pages have two encodings in the order of
// a Go map's iteration (parquet/metadata/column_chunk.go, ColumnChunkMetaDataBuilder.Finish), so the footer of a file
// with a fallback differed from run to run (3 runs in 20 of a file with 1.6 MB of distinct strings in one row group,
// TestWriterDeterministicPastTheDictionaryLimit). Below the library's default limit of 1 MB, where every committed
// dataset's chunks are, the limit changes no byte.
func writerProperties(rowGroup int, mem memory.Allocator) *parquet.WriterProperties {
	return parquet.NewWriterProperties(
		parquet.WithAllocator(mem),
		parquet.WithCompression(compress.Codecs.Zstd),
		parquet.WithMaxRowGroupLength(int64(rowGroup)),
		parquet.WithDictionaryDefault(true),
		parquet.WithDictionaryPageSizeLimit(math.MaxInt32),
		parquet.WithStats(true),
	)
}

// Create opens a writer for the columns cols with file key-value metadata meta, written in order into the Parquet
// footer (the only key-value metadata: the Arrow schema is not stored, since the Parquet logical types already read
// back as the right Arrow, pandas and polars types). rowGroup is the number of rows per row group; rowGroup <= 0 means
// DefaultRowGroup. Compression is zstd. The file is written to TempName(path) (truncated if it exists) and appears at
// path only when Close succeeds. The directory of path must exist. Errors name the path.
func Create(path string, cols []Column, meta []KV, rowGroup int) (*Writer, error) {
	if rowGroup <= 0 {
		rowGroup = DefaultRowGroup
	}
	props := writerProperties(rowGroup, memory.NewGoAllocator())
	root, err := parquetSchema(cols, props)
	if err != nil {
		return nil, fmt.Errorf("results: %s: %w", path, err)
	}
	kv := make(metadata.KeyValueMetadata, 0, len(meta))
	for _, m := range meta {
		kv.Append(m.Key, m.Value)
	}
	w := &Writer{path: path, tmp: TempName(path), cols: append([]Column(nil), cols...), rowGroup: rowGroup}
	f, err := os.Create(w.tmp)
	if err != nil {
		return nil, fmt.Errorf("results: %s: %w", path, err)
	}
	w.f = f
	w.bw = bufio.NewWriterSize(f, 1<<20)
	w.fw, err = file.NewParquetWriterWithError(sink{w.bw}, root, file.WithWriterProps(props), file.WithWriteMetadata(kv))
	if err != nil {
		w.Abort()
		return nil, fmt.Errorf("results: %s: %w", path, err)
	}
	w.buf = make([]columnBuffer, len(cols))
	return w, nil
}

// Write appends one row, aligned with the columns: cell i is read through the field that matches column i's Type
// (I, F, B, S or L); Valid = false writes null, and a valid Float64List cell with an empty or nil L writes an empty
// list. A row of the wrong length, or with a valid cell of another type than its column's (a Float cell in an Int64
// column, a list in a string column; schema.CheckRow), is an error naming the column, and nothing of it is written.
// After any error from writing the file the Writer is unusable: Close returns that error.
func (w *Writer) Write(r Row) error {
	if w.done {
		return fmt.Errorf("results: %s: write after Close or Abort", w.path)
	}
	if w.err != nil {
		return w.err
	}
	if err := lbschema.CheckRow(w.cols, r); err != nil {
		return fmt.Errorf("results: %s: %w", w.path, err)
	}
	row := w.pending
	for i, c := range r {
		b := &w.buf[i]
		typ := w.cols[i].Type
		if typ != Float64List {
			b.slot(row, c.Valid)
		}
		switch typ {
		case Int64:
			b.i64 = append(b.i64, c.I)
		case Float64:
			b.f64 = append(b.f64, c.F)
		case Bool:
			b.bools = append(b.bools, c.B)
		case String:
			if len(b.offs) == 0 {
				b.offs = append(b.offs, 0)
			}
			if c.Valid {
				if len(b.data)+len(c.S) > math.MaxInt32 {
					w.err = fmt.Errorf("results: %s: column %q: more than 2 GiB of strings in one row group", w.path, w.cols[i].Name)
					return w.err
				}
				b.data = append(b.data, c.S...)
			}
			b.offs = append(b.offs, int32(len(b.data)))
		case Float64List:
			switch {
			case !c.Valid:
				b.defs, b.reps = append(b.defs, listNull), append(b.reps, 0)
			case len(c.L) == 0:
				b.defs, b.reps = append(b.defs, listEmpty), append(b.reps, 0)
			default:
				for j, v := range c.L {
					rep := int16(1)
					if j == 0 {
						rep = 0
					}
					b.defs, b.reps = append(b.defs, listElement), append(b.reps, rep)
					b.f64 = append(b.f64, v)
				}
			}
		}
	}
	w.pending++
	if w.pending >= w.rowGroup {
		return w.flush()
	}
	return nil
}

// flush writes the pending rows as one row group.
func (w *Writer) flush() error {
	if w.pending == 0 {
		return nil
	}
	w.pending = 0
	if err := w.writeGroup(); err != nil {
		w.err = fmt.Errorf("results: %s: writing row group: %w", w.path, err)
		return w.err
	}
	for i := range w.buf {
		w.buf[i].reset()
	}
	return nil
}

// writeGroup writes the buffers as one row group, each column with the calls pqarrow makes for its Arrow array
// (arrow-go v18.8.0, parquet/pqarrow/encode_arrow.go, WriteArrowToColumn): always the spaced form, a slot per row.
// A column with a null slot passes its validity bitmap. A column without one, and every list (whose elements are
// never null), passes none and gives the column writer a bitmap buffer of its own, which it fills from the
// definition levels: pqarrow's "maybe parent nulls" case, taken because the Arrow leaf array has no nulls.
//
// One consequence is pqarrow's, kept for the bytes' sake: in that case the column writer counts a null or empty list
// as a null slot of the elements' statistics, so a list column's chunk whose null and empty lists are at least as
// many as its elements is written without min and max (they are optional in Parquet; readers lose only pruning).
func (w *Writer) writeGroup() (err error) {
	defer corrupt(&err) // the column writers panic on some failures of the sink
	rgw, err := w.fw.AppendRowGroupChecked()
	if err != nil {
		return err
	}
	for i := range w.cols {
		cw, err := rgw.NextColumn()
		if err != nil {
			return err
		}
		b := &w.buf[i]
		var valid []byte
		if b.nulls > 0 { // never for a list: slot keeps no bitmap for one
			valid = b.valid
		} else {
			bits := memory.NewResizableBuffer(cw.Properties().Allocator())
			bits.Resize(int(bitutil.BytesForBits(cw.Properties().WriteBatchSize())))
			cw.SetBitsBuffer(bits)
		}
		switch cw := cw.(type) {
		case *file.Int64ColumnChunkWriter:
			_, err = cw.WriteBatchSpacedWithError(b.i64, b.defs, nil, valid, 0)
		case *file.Float64ColumnChunkWriter:
			_, err = cw.WriteBatchSpacedWithError(b.f64, b.defs, b.reps, valid, 0) // reps: nil but for a list
		case *file.BooleanColumnChunkWriter:
			_, err = cw.WriteBatchSpacedWithError(b.bools, b.defs, nil, valid, 0)
		case *file.ByteArrayColumnChunkWriter:
			err = writeStrings(cw, b, valid)
		default:
			err = fmt.Errorf("unexpected column writer %T", cw)
		}
		if err != nil {
			return fmt.Errorf("column %q: %w", w.cols[i].Name, err)
		}
	}
	return rgw.Close()
}

// writeStrings writes a String column's buffer as pqarrow writes an Arrow string array: through the Arrow offsets when
// the column's encoder takes them, else as byte-array values.
func writeStrings(cw *file.ByteArrayColumnChunkWriter, b *columnBuffer, valid []byte) (err error) {
	data := b.data
	if data == nil {
		data = []byte{}
	}
	if cw.SupportsArrowOffsets() {
		_, err = cw.WriteBatchSpacedArrow(data, b.offs, b.defs, nil, valid, 0)
		return err
	}
	vals := make([]parquet.ByteArray, len(b.offs)-1)
	for j := range vals {
		vals[j] = parquet.ByteArray(data[b.offs[j]:b.offs[j+1]])
	}
	_, err = cw.WriteBatchSpacedWithError(vals, b.defs, nil, valid, 0)
	return err
}

// Close writes the pending rows and the footer, flushes and fsyncs the file, closes it and renames it from
// TempName(path) to path (then fsyncs the directory, best effort). Every error is checked; on any error the .tmp file is
// removed and the error returned. Close after Close or Abort returns an error and does nothing.
func (w *Writer) Close() error {
	if w.done {
		return fmt.Errorf("results: %s: Close after Close or Abort", w.path)
	}
	err := w.err
	if err == nil {
		err = w.flush()
	}
	if err == nil {
		if e := w.fw.Close(); e != nil {
			err = fmt.Errorf("results: %s: writing footer: %w", w.path, e)
		}
	}
	if err == nil {
		if e := w.bw.Flush(); e != nil {
			err = fmt.Errorf("results: %s: %w", w.path, e)
		}
	}
	if err == nil {
		if e := w.f.Sync(); e != nil {
			err = fmt.Errorf("results: %s: fsync: %w", w.path, e)
		}
	}
	if e := w.f.Close(); e != nil && err == nil {
		err = fmt.Errorf("results: %s: %w", w.path, e)
	}
	if err == nil {
		if e := os.Rename(w.tmp, w.path); e != nil {
			err = fmt.Errorf("results: %s: %w", w.path, e)
		}
	}
	w.release()
	if err != nil {
		_ = os.Remove(w.tmp)
		w.err = err
		return err
	}
	syncDir(filepath.Dir(w.path))
	return nil
}

// Abort abandons the file: it closes and removes the .tmp file. It is safe after Close (it then leaves the completed
// file alone) and safe to call twice.
func (w *Writer) Abort() {
	if w.done {
		return
	}
	if w.f != nil {
		_ = w.f.Close()
	}
	_ = os.Remove(w.tmp)
	w.release()
	if w.err == nil {
		w.err = fmt.Errorf("results: %s: aborted", w.path)
	}
}

// release marks the Writer done and drops its buffers.
func (w *Writer) release() {
	w.done = true
	w.fw, w.bw, w.f, w.buf = nil, nil, nil, nil
}

// syncDir fsyncs a directory so that a rename in it is durable. It is best effort: some file systems refuse to
// fsync a directory, and the file is complete and in place either way.
func syncDir(dir string) {
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	_ = d.Sync()
	_ = d.Close()
}
