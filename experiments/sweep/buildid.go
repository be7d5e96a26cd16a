package sweep

import (
	"bytes"
	"crypto/sha256"
	"debug/elf"
	"encoding/binary"
	"encoding/hex"
	"io"
	"os"
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
