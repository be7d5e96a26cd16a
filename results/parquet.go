package results

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"lbsweep/results/schema"
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
// Rows are appended straight into Arrow builders; every rowGroup rows they become one record, written at once as one
// row group, so memory holds at most one row group and the row-group boundaries (and hence the file's bytes) depend
// only on the rows, the columns, the metadata and rowGroup. Nothing in the file depends on the time, the host or the
// path: the footer's created_by is the constant "parquet-go version V" of the arrow-go library.
//
// A Writer is not safe for concurrent use.
type Writer struct {
	path, tmp string
	cols      []Column
	rowGroup  int

	f  *os.File
	bw *bufio.Writer
	fw *pqarrow.FileWriter
	rb *array.RecordBuilder

	// Typed builders, one per column; only the one matching the column's Type is set.
	ints   []*array.Int64Builder
	floats []*array.Float64Builder
	bools  []*array.BooleanBuilder
	strs   []*array.StringBuilder
	lists  []*array.ListBuilder
	lvals  []*array.Float64Builder

	pending int   // rows appended to the builders and not yet written
	err     error // first error; the Writer is unusable after it
	done    bool  // Close or Abort has run
}

// sink hides the *bufio.Writer's (and so the file's) other methods from the parquet writer, which would otherwise
// close an io.Closer itself; Close closes the file after fsync.
type sink struct{ w io.Writer }

func (s sink) Write(p []byte) (int, error) { return s.w.Write(p) }

// arrowType maps a column Type to its Arrow type.
func arrowType(t Type) (arrow.DataType, error) {
	switch t {
	case Int64:
		return arrow.PrimitiveTypes.Int64, nil
	case Float64:
		return arrow.PrimitiveTypes.Float64, nil
	case Bool:
		return arrow.FixedWidthTypes.Boolean, nil
	case String:
		return arrow.BinaryTypes.String, nil
	case Float64List:
		return arrow.ListOf(arrow.PrimitiveTypes.Float64), nil
	}
	return nil, fmt.Errorf("invalid column type %d", uint8(t))
}

// arrowSchema builds the Arrow schema of cols with file metadata meta (in order).
func arrowSchema(cols []Column, meta []KV) (*arrow.Schema, error) {
	if len(cols) == 0 {
		return nil, errors.New("no columns")
	}
	seen := make(map[string]bool, len(cols))
	fields := make([]arrow.Field, len(cols))
	for i, c := range cols {
		if c.Name == "" {
			return nil, fmt.Errorf("column %d has no name", i)
		}
		if seen[c.Name] {
			return nil, fmt.Errorf("duplicate column %q", c.Name)
		}
		seen[c.Name] = true
		t, err := arrowType(c.Type)
		if err != nil {
			return nil, fmt.Errorf("column %q: %w", c.Name, err)
		}
		fields[i] = arrow.Field{Name: c.Name, Type: t, Nullable: true}
	}
	keys := make([]string, len(meta))
	vals := make([]string, len(meta))
	for i, kv := range meta {
		keys[i], vals[i] = kv.Key, kv.Value
	}
	md := arrow.NewMetadata(keys, vals)
	return arrow.NewSchema(fields, &md), nil
}

// writerProperties are the Parquet writer settings. They are fixed so that files are reproducible: zstd at its
// default level, dictionary encoding (the default) with plain fallback, statistics, one row group per record.
func writerProperties(rowGroup int, mem memory.Allocator) *parquet.WriterProperties {
	return parquet.NewWriterProperties(
		parquet.WithAllocator(mem),
		parquet.WithCompression(compress.Codecs.Zstd),
		parquet.WithMaxRowGroupLength(int64(rowGroup)),
		parquet.WithDictionaryDefault(true),
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
	sc, err := arrowSchema(cols, meta)
	if err != nil {
		return nil, fmt.Errorf("results: %s: %w", path, err)
	}
	w := &Writer{path: path, tmp: TempName(path), cols: append([]Column(nil), cols...), rowGroup: rowGroup}
	f, err := os.Create(w.tmp)
	if err != nil {
		return nil, fmt.Errorf("results: %s: %w", path, err)
	}
	w.f = f
	w.bw = bufio.NewWriterSize(f, 1<<20)
	mem := memory.NewGoAllocator()
	w.fw, err = pqarrow.NewFileWriter(sc, sink{w.bw}, writerProperties(rowGroup, mem), pqarrow.NewArrowWriterProperties(pqarrow.WithAllocator(mem)))
	if err != nil {
		w.Abort()
		return nil, fmt.Errorf("results: %s: %w", path, err)
	}
	w.rb = array.NewRecordBuilder(mem, sc)
	n := len(cols)
	w.ints = make([]*array.Int64Builder, n)
	w.floats = make([]*array.Float64Builder, n)
	w.bools = make([]*array.BooleanBuilder, n)
	w.strs = make([]*array.StringBuilder, n)
	w.lists = make([]*array.ListBuilder, n)
	w.lvals = make([]*array.Float64Builder, n)
	for i, c := range cols {
		switch c.Type {
		case Int64:
			w.ints[i] = w.rb.Field(i).(*array.Int64Builder)
		case Float64:
			w.floats[i] = w.rb.Field(i).(*array.Float64Builder)
		case Bool:
			w.bools[i] = w.rb.Field(i).(*array.BooleanBuilder)
		case String:
			w.strs[i] = w.rb.Field(i).(*array.StringBuilder)
		case Float64List:
			w.lists[i] = w.rb.Field(i).(*array.ListBuilder)
			w.lvals[i] = w.lists[i].ValueBuilder().(*array.Float64Builder)
		}
	}
	w.rb.Reserve(rowGroup)
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
	if err := schema.CheckRow(w.cols, r); err != nil {
		return fmt.Errorf("results: %s: %w", w.path, err)
	}
	for i, c := range r {
		switch w.cols[i].Type {
		case Int64:
			if c.Valid {
				w.ints[i].Append(c.I)
			} else {
				w.ints[i].AppendNull()
			}
		case Float64:
			if c.Valid {
				w.floats[i].Append(c.F)
			} else {
				w.floats[i].AppendNull()
			}
		case Bool:
			if c.Valid {
				w.bools[i].Append(c.B)
			} else {
				w.bools[i].AppendNull()
			}
		case String:
			if c.Valid {
				w.strs[i].Append(c.S)
			} else {
				w.strs[i].AppendNull()
			}
		case Float64List:
			if c.Valid {
				w.lists[i].Append(true)
				w.lvals[i].AppendValues(c.L, nil)
			} else {
				w.lists[i].AppendNull()
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
	rec := w.rb.NewRecordBatch()
	defer rec.Release()
	w.pending = 0
	if err := w.fw.Write(rec); err != nil {
		w.err = fmt.Errorf("results: %s: writing row group: %w", w.path, err)
		return w.err
	}
	return nil
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
	if w.rb != nil {
		w.rb.Release()
		w.rb = nil
	}
	w.fw, w.bw, w.f = nil, nil, nil
	w.ints, w.floats, w.bools, w.strs, w.lists, w.lvals = nil, nil, nil, nil, nil, nil
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
