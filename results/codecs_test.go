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

// TestDecodeBombsRefused guards boundedZstd and boundedSnappy on two files a breaker made: a zstd frame that declares
// no size, of RLE blocks (8 kB of file, 256 MiB decoded for an 807-byte page), and a snappy stream whose length
// prefix claims 4 GiB. Each is refused by ReadFile, Scan and Verify with an error naming the file, allocating little;
// through the library's codecs the first decoded 256 MiB per read and the second allocated 4 GiB.
func TestDecodeBombsRefused(t *testing.T) {
	for _, tc := range []struct{ path, want string }{
		{"testdata/zstd-no-content-size.parquet", "corrupt page of 807 bytes (page header)"},
		{"testdata/snappy-4gib-length.parquet", "corrupt page: its snappy stream claims 4294967280 bytes, its page header 807"},
	} {
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		_, err := ReadFile(tc.path)
		serr := Scan(tc.path, func([]KV, []Column, []Row) error { return nil })
		verr := Verify(tc.path, []Column{{Name: "f", Type: Float64}})
		runtime.ReadMemStats(&m1)
		for _, e := range []error{err, serr, verr} {
			if e == nil || !strings.Contains(e.Error(), tc.path) || !strings.Contains(e.Error(), tc.want) {
				t.Errorf("%s: error %v, want one naming the file and %q", tc.path, e, tc.want)
			}
		}
		// Three reads allocate 0.6 MB (snappy) and 1.3 MB (zstd) with the bounded codecs (measured); through the
		// library's they allocated 768 MB and 12 GiB. 32 MB lies between, far from either.
		if a := m1.TotalAlloc - m0.TotalAlloc; a > 32<<20 {
			t.Errorf("%s: reading it three times allocated %d MB", tc.path, a>>20)
		}
	}
}
