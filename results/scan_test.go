package results

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Scan yields the file one row group at a time, and the rows are ReadFile's; ReadMeta reads the footer alone.
func TestScanAndReadMeta(t *testing.T) {
	cols := []Column{{Name: "i", Type: Int64}, {Name: "x", Type: Float64}, {Name: "l", Type: Float64List}, {Name: "s", Type: String}}
	path := filepath.Join(t.TempDir(), "s.parquet")
	w, err := Create(path, cols, []KV{{"k", "v"}}, 10)
	if err != nil {
		t.Fatal(err)
	}
	const n = 35
	for i := range n {
		w.Write(Row{Int(int64(i)), Float(float64(i) / 2), List([]float64{float64(i)}), Str("p")})
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	whole, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	groups, seen := 0, 0
	err = Scan(path, func(meta []KV, got []Column, rows []Row) error {
		groups++
		if len(got) != len(cols) || len(meta) != 1 || meta[0].Value != "v" {
			t.Errorf("group %d: columns %v, meta %v", groups, got, meta)
		}
		for _, r := range rows {
			want := whole.Rows[seen]
			for c := range cols {
				if !Equal(cols[c].Type, r[c], want[c]) && cols[c].Type != Float64List {
					t.Errorf("row %d column %s differs", seen, cols[c].Name)
				}
			}
			if r[2].L[0] != want[2].L[0] {
				t.Errorf("row %d list differs", seen)
			}
			seen++
		}
		return nil
	})
	if err != nil || seen != n || groups != 4 {
		t.Errorf("Scan: %d rows in %d groups (want %d in 4), err %v", seen, groups, n, err)
	}
	meta, rows, err := ReadMeta(path)
	if err != nil || rows != n || len(meta) != 1 || meta[0].Key != "k" {
		t.Errorf("ReadMeta: %v %d %v", meta, rows, err)
	}
}

// A dead writer's temporary file is removed; a live one's (this process) is not.
func TestRemoveStaleTemps(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "runs.parquet")
	mine := TempName(path)
	dead := filepath.Join(dir, ".runs.parquet.999999999.tmp") // no such process
	other := filepath.Join(dir, ".other.parquet.1.tmp")
	for _, f := range []string{mine, dead, other} {
		if err := os.WriteFile(f, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	RemoveStaleTemps(path)
	for f, want := range map[string]bool{mine: true, dead: false, other: true} {
		if _, err := os.Stat(f); (err == nil) != want {
			t.Errorf("%s: exists = %v, want %v", filepath.Base(f), err == nil, want)
		}
	}
}

// ReadDatasetWhere keeps ReadDataset's rows that match, across files and row groups, and checks the files as
// ReadDataset does.
func TestReadDatasetWhere(t *testing.T) {
	dir := t.TempDir()
	all := testRows(60)
	sha := []KV{{Key: KeySpecSHA256, Value: "abc"}}
	writeFile(t, filepath.Join(dir, "part-0.parquet"), testCols, sha, 8, all[:25])
	writeFile(t, filepath.Join(dir, "part-1.parquet"), testCols, sha, 8, all[25:])
	whole, err := ReadDataset(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, where := range [][]Cond{
		nil,
		{{Column: "policy", Value: Str("jsq")}},
		{{Column: "policy", Value: Str("jsq")}, {Column: "stable", Value: Boolean(true)}},
		{{Column: "policy", Value: Str("none such")}},
	} {
		got, err := ReadDatasetWhere(dir, where)
		if err != nil {
			t.Fatal(err)
		}
		var want []Row
		for _, r := range whole.Where(where) {
			want = append(want, whole.Rows[r])
		}
		checkColumns(t, got.Columns, testCols)
		checkRows(t, testCols, got.Rows, want)
		if Lookup(got.Meta, KeySpecSHA256) != "abc" {
			t.Errorf("meta %v, want the first file's", got.Meta)
		}
	}
	// A file of another spec is an error naming it, whatever the selection.
	other := filepath.Join(dir, "part-2.parquet")
	writeFile(t, other, testCols, []KV{{Key: KeySpecSHA256, Value: "def"}}, 8, all[:3])
	if _, err := ReadDatasetWhere(dir, []Cond{{Column: "policy", Value: Str("none such")}}); err == nil || !strings.Contains(err.Error(), other) {
		t.Errorf("file of another spec: err = %v, want an error naming %s", err, other)
	}
	if _, err := ReadDatasetWhere(t.TempDir(), nil); err == nil {
		t.Error("no files: no error")
	}
}
