package results

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// verifyBatch is the number of values Verify decodes at a time into its reused buffers.
const verifyBatch = 4096

// Verify reads every page of the file at path, as Scan would, and reports why it is not a readable file of columns
// cols (a page that does not decompress or decode, a column chunk with another row count than its row group, a column
// renamed or retyped: SameColumns), or nil. It decodes each column chunk's values into small buffers it reuses and
// builds no rows, so it costs a fraction of Scan's time and memory: it is how a sweep checks that an up-to-date
// dataset reads back before it skips it.
func Verify(path string, cols []Column) error {
	if err := verify(path, cols); err != nil {
		return fmt.Errorf("results: %s: %w", path, err)
	}
	return nil
}

func verify(path string, want []Column) (err error) {
	defer corrupt(&err)
	rdr, err := file.OpenParquetFile(path, false)
	if err != nil {
		return err
	}
	defer rdr.Close()
	if err := checkChunks(rdr); err != nil {
		return err
	}
	fr, err := pqarrow.NewFileReader(rdr, pqarrow.ArrowReadProperties{BatchSize: 1 << 16}, memory.NewGoAllocator())
	if err != nil {
		return err
	}
	sc, err := fr.Schema()
	if err != nil {
		return err
	}
	got := make([]Column, sc.NumFields())
	for i, f := range sc.Fields() {
		typ, err := columnType(f.Type)
		if err != nil {
			return fmt.Errorf("column %q: %w", f.Name, err)
		}
		got[i] = Column{Name: f.Name, Type: typ}
	}
	if err := sameColumns(want, got); err != nil {
		return err
	}
	b := &verifyBuffers{}
	for g := range rdr.NumRowGroups() {
		rg := rdr.RowGroup(g)
		for c := range rg.NumColumns() {
			cr, err := rg.Column(c)
			if err != nil {
				return err
			}
			rows, err := b.drain(cr)
			if err != nil {
				return fmt.Errorf("row group %d, column %q: %w", g, cr.Descriptor().Path(), err)
			}
			if rows != rg.NumRows() {
				return fmt.Errorf("row group %d, column %q has %d rows, want %d", g, cr.Descriptor().Path(), rows, rg.NumRows())
			}
		}
	}
	return nil
}

// verifyBuffers are the buffers Verify decodes into, one per physical type the Writer uses, reused across chunks.
type verifyBuffers struct {
	defs, reps [verifyBatch]int16
	i64        [verifyBatch]int64
	f64        [verifyBatch]float64
	bools      [verifyBatch]bool
	bytes      [verifyBatch]parquet.ByteArray
}

// drain decodes every value of column chunk cr and returns its row count: its levels, or for a repeated column the
// levels that start a row (repetition level 0).
func (b *verifyBuffers) drain(cr file.ColumnChunkReader) (int64, error) {
	repeated := cr.Descriptor().MaxRepetitionLevel() > 0
	var rows int64
	for cr.HasNext() {
		var n int64
		var err error
		switch r := cr.(type) {
		case *file.Int64ColumnChunkReader:
			n, _, err = r.ReadBatch(verifyBatch, b.i64[:], b.defs[:], b.reps[:])
		case *file.Float64ColumnChunkReader:
			n, _, err = r.ReadBatch(verifyBatch, b.f64[:], b.defs[:], b.reps[:])
		case *file.BooleanColumnChunkReader:
			n, _, err = r.ReadBatch(verifyBatch, b.bools[:], b.defs[:], b.reps[:])
		case *file.ByteArrayColumnChunkReader:
			n, _, err = r.ReadBatch(verifyBatch, b.bytes[:], b.defs[:], b.reps[:])
		default:
			return 0, fmt.Errorf("unsupported physical type %s", cr.Type())
		}
		if err != nil {
			return 0, err
		}
		if n == 0 { // HasNext promised values the pages do not hold
			return 0, fmt.Errorf("no values read at row %d", rows)
		}
		if !repeated {
			rows += n
			continue
		}
		for _, r := range b.reps[:n] {
			if r == 0 {
				rows++
			}
		}
	}
	return rows, cr.Err()
}
