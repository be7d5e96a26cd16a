package results

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzReadFile: the reader never panics on a corrupt file; it returns a table or an error. The corpus is seeded
// with small files a Writer writes (every column type, nulls, one and several row groups) and with truncations and
// byte flips of them. Run it with
//
//	go test -run XXX -fuzz FuzzReadFile -fuzztime 10m -parallel 1 ./results/
//
// Crashers it finds land in testdata/fuzz/FuzzReadFile and are replayed by every `go test`.
func FuzzReadFile(f *testing.F) {
	dir := f.TempDir()
	for i, c := range []struct{ rows, group int }{{0, 4}, {3, 4}, {12, 4}, {12, 100}} {
		path := filepath.Join(dir, "seed.parquet")
		writeFile(f, path, testCols, testMeta, c.group, testRows(c.rows))
		b, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		if i == 2 {
			f.Add(b[:len(b)/2])
			f.Add(b[len(b)/2:])
			flip := append([]byte(nil), b...)
			flip[len(flip)-12] ^= 0x40 // inside the footer
			f.Add(flip)
			flip = append([]byte(nil), b...)
			flip[len(flip)/3] ^= 0xff // inside a data page
			f.Add(flip)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		path := filepath.Join(t.TempDir(), "runs.parquet")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if tbl, err := ReadFile(path); err == nil {
			for _, r := range tbl.Rows {
				if len(r) != len(tbl.Columns) {
					t.Fatalf("a row of %d cells in a table of %d columns", len(r), len(tbl.Columns))
				}
			}
		}
		_, _, _ = ReadMeta(path)
		_ = Scan(path, func([]KV, []Column, []Row) error { return nil })
	})
}
