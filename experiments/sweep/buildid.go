package sweep

import (
	"bytes"
	"crypto/sha256"
	"debug/elf"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// buildFile, in a progress directory, holds the buildID of the program that made its chunks.
const buildFile = "BUILD"

// buildID identifies this executable: "go:" then the Go toolchain's build ID of it (what `go tool buildid` prints),
// read from its ELF note; or, where there is no such note (another executable format, a link with -buildid=), the
// SHA-256 of its file; "unknown" if it cannot be read. Computed once.
//
// The build ID ends with the hash of the linked executable's content, so two builds of different code get different
// IDs and one binary always the same, as with the file's hash; but the note is a few dozen bytes near the start of the
// file, not the 56 MB the hash reads (64% of a sweep's start-up CPU when it was one). It lives only in the progress
// directory, never in a dataset, so datasets stay byte-identical across machines.
var buildID = sync.OnceValue(func() string {
	exe, err := os.Executable()
	if err != nil {
		return "unknown"
	}
	if id := goBuildID(exe); id != "" {
		return "go:" + id
	}
	return fileSHA256(exe)
})

// elfNoteGoBuildID is the type of the ELF note in section .note.go.buildid whose owner is "Go" and whose descriptor is
// the build ID (cmd/link's ELF_NOTE_GOBUILDID_TAG).
const elfNoteGoBuildID = 4

// goBuildID returns the Go build ID in the ELF note section .note.go.buildid of the executable at path, or "" when it
// is not an ELF file, has no such note, or the note is empty or malformed. It reads the file's header, section table
// and that one section, not the rest of the file.
func goBuildID(path string) string {
	f, err := elf.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	s := f.Section(".note.go.buildid")
	if s == nil || s.Type != elf.SHT_NOTE || s.Size > 1<<12 {
		return ""
	}
	data, err := s.Data()
	if err != nil {
		return ""
	}
	return parseGoNote(data, f.ByteOrder)
}

// parseGoNote returns the descriptor of the Go build-ID note in data (namesz = 4, descsz, type, the name "Go\0\0", then
// the descriptor), or "" when data is not one.
func parseGoNote(data []byte, order binary.ByteOrder) string {
	if len(data) < 12 {
		return ""
	}
	namesz, descsz, typ := order.Uint32(data), order.Uint32(data[4:]), order.Uint32(data[8:])
	if typ != elfNoteGoBuildID || namesz != 4 || uint64(len(data)) < 16+uint64(descsz) || !bytes.Equal(data[12:16], []byte("Go\x00\x00")) {
		return ""
	}
	return string(data[16 : 16+descsz])
}

// fileSHA256 returns the hex SHA-256 of the file at path, or "unknown" if it cannot be read.
func fileSHA256(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return "unknown"
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "unknown"
	}
	return hex.EncodeToString(h.Sum(nil))
}

// builtMark is the file that records what the executable that last wrote or checked the dataset file path found
// there: in the user's cache directory (os.UserCacheDir()/lbsweep/built/, named by the SHA-256 of path's absolute
// name). It holds the executable's build ID (buildID), the SHA-256 of the spec whose complete, intact dataset the
// files are (the one their footers carry), and the size, modification time and SHA-256 of the dataset file and of
// its time-series file. It is not part of the dataset, whose bytes must not depend on the machine, nor beside it.
//
// It is a cache of a verdict that depends only on those inputs: the same executable, given a spec of that SHA-256
// (the same text) and files of those bytes, would find the same. So a sweep whose mark matches reads neither footer
// nor page (the footers' metadata were 2.3 ms of a 23 ms sweep with nothing to run whose spec has a time series;
// decoding the pages, 1.4 ms of 11 ms); a mark for another spec still tells the executable's own bytes (it wrote or
// checked them), which lets the very same executable take a dataset as its own when its VCS revision cannot (a build
// from a modified tree, "+dirty": a researcher editing a spec in a checkout) and spares decoding them again. ""
// when there is no cache directory.
func builtMark(path string) string {
	cache, err := os.UserCacheDir()
	abs, err2 := filepath.Abs(path)
	if err != nil || err2 != nil {
		return ""
	}
	h := sha256.Sum256([]byte(abs))
	return filepath.Join(cache, "lbsweep", "built", hex.EncodeToString(h[:16]))
}

// markHead is the first two lines of a build mark: this executable's build ID, and the SHA-256 of the spec (hex)
// whose complete dataset the files were found to be.
func markHead(specSHA string) string { return buildID() + "\nspec " + specSHA + "\n" }

// markFiles is what a build mark holds, after its head, for the files path and spath ("" for none) as they are
// now: a line of name, size, modification time and SHA-256 for each; "" when one cannot be read.
func markFiles(path, spath string) string {
	var b strings.Builder
	for _, p := range []string{path, spath} {
		if p == "" {
			continue
		}
		fi, err := os.Stat(p)
		if err != nil || !fi.Mode().IsRegular() { // a pipe or a device would block the hash or never end it
			return ""
		}
		sum := fileSHA256(p)
		if sum == "unknown" {
			return ""
		}
		fmt.Fprintf(&b, "%s %d %d %s\n", filepath.Base(p), fi.Size(), fi.ModTime().UnixNano(), sum)
	}
	return b.String()
}

// markBuilt records that this executable wrote (or checked) path and spath as they are now and found them a
// complete, intact dataset of the spec whose SHA-256 is specSHA (hex), the one their footers carry; an error is
// ignored (the mark only saves work). The mark is written beside its place and renamed into it, so that two sweeps
// never leave a torn mark and whatever was there (a FIFO, a link) is replaced, not written through.
func markBuilt(path, spath, specSHA string) {
	m := builtMark(path)
	files := markFiles(path, spath)
	if files == "" || m == "" || os.MkdirAll(filepath.Dir(m), 0o755) != nil {
		return
	}
	f, err := os.CreateTemp(filepath.Dir(m), ".mark-*")
	if err != nil {
		return
	}
	_, err = f.WriteString(markHead(specSHA) + files)
	if err2 := f.Close(); err == nil && err2 == nil && os.Rename(f.Name(), m) == nil {
		return
	}
	os.Remove(f.Name())
}

// markedBuilt reports whether builtMark says this executable wrote or checked path and spath, unchanged since, and if
// so the SHA-256 (hex) of the spec whose complete dataset it found them to be. Another executable's mark is told
// from its first line, without hashing the files.
func markedBuilt(path, spath string) (specSHA string, ok bool) {
	m := builtMark(path)
	if m == "" {
		return "", false
	}
	// A regular file of at most markMax bytes, or no mark: a FIFO there would block the sweep (holding the
	// writer's lock) and a link to /dev/zero would grow it without bound, as a helper found.
	if fi, err := os.Lstat(m); err != nil || !fi.Mode().IsRegular() || fi.Size() > markMax {
		return "", false
	}
	b, err := os.ReadFile(m)
	rest, own := strings.CutPrefix(string(b), buildID()+"\nspec ")
	if err != nil || !own {
		return "", false // another executable's mark: no need to hash the files
	}
	specSHA, files, ok := strings.Cut(rest, "\n")
	if !ok || files == "" || files != markFiles(path, spath) {
		return "", false
	}
	return specSHA, true
}

// markMax is the largest build mark read, in bytes: a mark is a build ID, a spec's SHA-256 and two lines of a name,
// a size, a time and a hash, under 400 bytes.
const markMax = 4096
