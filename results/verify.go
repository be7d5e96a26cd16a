package results

import (
	"fmt"

	"github.com/apache/arrow-go/v18/parquet/file"
)

// Verify reads every page of the file at path, as Scan would, and reports why it is not a readable file of columns
// cols (a page that does not decompress or decode, levels that do not make rows, a column chunk with another row count
// than its row group, a column renamed or retyped: SameColumns), or nil. It decodes each column chunk through the
// same buffers as Scan but builds no cells, so it costs a fraction of Scan's time and memory: it is how a sweep checks
// that an up-to-date dataset reads back before it skips it.
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
	got, how, err := fileColumns(rdr.MetaData().Schema)
	if err != nil {
		return err
	}
	if err := sameColumns(want, got); err != nil {
		return err
	}
	var dec decoder
	for g := range rdr.NumRowGroups() {
		if _, err := dec.group(rdr.RowGroup(g), got, how, false); err != nil {
			return fmt.Errorf("row group %d: %w", g, err)
		}
	}
	return nil
}
