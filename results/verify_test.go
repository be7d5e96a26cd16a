package results

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Verify refuses every damage that Scan refuses (so an up-to-date sweep that checks its dataset with Verify never
// keeps a file its readers cannot read), and accepts what Scan reads (so it never reruns a sound dataset): checked on
// every third byte of the data pages of a file of every column type, flipped, one at a time (every byte: 1461 of 1791
// flips refused by both, none by one alone; every third keeps the test at 2 s).
func TestVerifyRefusesWhatScanRefuses(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "good.parquet")
	writeFile(t, path, testCols, testMeta, 4, testRows(12))
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := Verify(path, testCols); err != nil {
		t.Fatalf("Verify of a sound file: %v", err)
	}
	footer := int(binary.LittleEndian.Uint32(good[len(good)-8:]))
	scanErr := func(p string) error { return Scan(p, func([]KV, []Column, []Row) error { return nil }) }
	bad := filepath.Join(dir, "bad.parquet")
	refused, stricter, flips := 0, 0, 0
	for i := 4; i < len(good)-8-footer; i += 3 {
		flips++
		b := append([]byte(nil), good...)
		b[i] ^= 0xff
		if err := os.WriteFile(bad, b, 0o644); err != nil {
			t.Fatal(err)
		}
		serr, verr := scanErr(bad), Verify(bad, testCols)
		switch {
		case serr != nil && verr == nil:
			t.Errorf("byte %d flipped: Scan refuses (%v), Verify accepts", i, serr)
		case serr == nil && verr != nil:
			stricter++
			t.Logf("byte %d flipped: Scan reads, Verify refuses (%v)", i, verr)
		case serr != nil:
			refused++
		}
	}
	if refused == 0 {
		t.Fatal("no flip was refused: the test damaged nothing")
	}
	t.Logf("%d of %d flips refused by both, %d by Verify alone", refused, flips, stricter)
}

// Verify refuses a file whose columns are not the ones asked for, as SameColumns does.
func TestVerifyRefusesOtherColumns(t *testing.T) {
	path := filepath.Join(t.TempDir(), "good.parquet")
	writeFile(t, path, testCols, testMeta, 4, testRows(12))
	other := append([]Column(nil), testCols...)
	other[0].Name += "_renamed"
	if err := Verify(path, other); err == nil {
		t.Error("Verify accepts a file whose first column has another name")
	}
}

// A footer whose row count is not its row groups' (4322 against 4321, the file's other bytes intact; found by a
// breaker) is refused by ReadMeta, Verify and ReadFile: a sweep takes a dataset whose footer counts the spec's runs
// for complete, and Verify counts the row groups' rows, so before this check such a file passed as up to date.
func TestFooterRowCountChecked(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "good.parquet")
	const n = 4321
	writeFile(t, path, testCols, testMeta, 100000, testRows(n))
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	zigzag := func(v uint64) []byte { return binary.AppendUvarint(nil, v<<1) }
	flen := int(binary.LittleEndian.Uint32(b[len(b)-8:]))
	footer := b[len(b)-8-flen : len(b)-8]
	i := bytes.Index(footer, zigzag(n)) // the file's num_rows: FileMetaData's field 3, before the row groups
	if i < 0 {
		t.Fatal("no row count in the footer")
	}
	copy(footer[i:], zigzag(n+1)) // the same length of varint
	bad := filepath.Join(dir, "bad.parquet")
	if err := os.WriteFile(bad, b, 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, merr := ReadMeta(bad)
	_, rerr := ReadFile(bad)
	for _, e := range []error{merr, Verify(bad, testCols), rerr} {
		if e == nil || !strings.Contains(e.Error(), "its row groups hold 4321 rows, it says 4322") {
			t.Errorf("error %v, want the footer's row count refused", e)
		}
	}
}
