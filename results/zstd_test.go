package results

import (
	"runtime"
	"strings"
	"testing"
)

// TestCorruptZstdFrameSizeRefused guards boundedZstd: a file whose zstd frame header claims 4 GiB (one byte of a
// valid 1 kB file changed, found by FuzzReadFile) is refused with an error naming the page, and reading it allocates
// little, where the library alone allocated 4 GiB for it in each of ReadFile and Scan.
func TestCorruptZstdFrameSizeRefused(t *testing.T) {
	const path = "testdata/corrupt-zstd-frame.parquet"
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	_, err := ReadFile(path)
	serr := Scan(path, func([]KV, []Column, []Row) error { return nil })
	runtime.ReadMemStats(&m1)
	for _, e := range []error{err, serr} {
		if e == nil || !strings.Contains(e.Error(), "corrupt page: its zstd frame claims 4294966796 bytes") {
			t.Errorf("error %v, want the frame's claimed size refused", e)
		}
	}
	if a := m1.TotalAlloc - m0.TotalAlloc; a > 64<<20 {
		t.Errorf("reading the corrupt file allocated %d MB", a>>20)
	}
}
