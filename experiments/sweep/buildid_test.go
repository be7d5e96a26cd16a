package sweep

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// The progress directory's build identity is the toolchain's own build ID of the running executable, the one
// `go tool buildid` prints, read from its ELF note (not a hash of the whole file).
func TestBuildIDIsTheToolchainBuildID(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if goBuildID(exe) == "" {
		if runtime.GOOS == "linux" { // go test links every test binary with a build ID
			t.Fatalf("no Go build-ID note read from %s", exe)
		}
		t.Skip("not an ELF executable: buildID falls back to the file's hash")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to compare with")
	}
	out, err := exec.Command(goTool, "tool", "buildid", exe).Output()
	if err != nil {
		t.Skipf("go tool buildid: %v", err)
	}
	if want := "go:" + strings.TrimSpace(string(out)); buildID() != want {
		t.Errorf("buildID() = %q, want %q", buildID(), want)
	}
}

// A file that is not an ELF executable with a Go note (another format, a link with -buildid=) is identified by its
// SHA-256, as every executable was before the build ID.
func TestBuildIDFallsBackToFileHash(t *testing.T) {
	p := filepath.Join(t.TempDir(), "not-elf")
	body := []byte("#!/bin/sh\necho not an ELF file\n")
	if err := os.WriteFile(p, body, 0o755); err != nil {
		t.Fatal(err)
	}
	if id := goBuildID(p); id != "" {
		t.Errorf("goBuildID of a shell script = %q, want \"\"", id)
	}
	sum := sha256.Sum256(body)
	if got := fileSHA256(p); got != hex.EncodeToString(sum[:]) {
		t.Errorf("fileSHA256 = %q", got)
	}
	if got := fileSHA256(filepath.Join(t.TempDir(), "absent")); got != "unknown" {
		t.Errorf("fileSHA256 of a missing file = %q, want unknown", got)
	}
}

// A malformed note (truncated, another owner or type, a descriptor longer than the section) gives "" rather than a
// panic or a wrong identity.
func TestGoNoteMalformedIsRefused(t *testing.T) {
	note := func(namesz, descsz, typ uint32, name, desc string) []byte {
		b := binary.LittleEndian.AppendUint32(nil, namesz)
		b = binary.LittleEndian.AppendUint32(b, descsz)
		b = binary.LittleEndian.AppendUint32(b, typ)
		return append(append(b, name...), desc...)
	}
	le := binary.LittleEndian
	if got := parseGoNote(note(4, 7, 4, "Go\x00\x00", "abc/def"), le); got != "abc/def" {
		t.Fatalf("well-formed note = %q, want abc/def", got)
	}
	for name, data := range map[string][]byte{
		"empty":          nil,
		"header only":    note(4, 7, 4, "", ""),
		"long desc":      note(4, 1<<31, 4, "Go\x00\x00", "abc/def"),
		"other type":     note(4, 7, 1, "Go\x00\x00", "abc/def"),
		"other owner":    note(4, 7, 4, "GNU\x00", "abc/def"),
		"other name len": note(3, 7, 4, "Go\x00\x00", "abc/def"),
	} {
		if got := parseGoNote(data, le); got != "" {
			t.Errorf("%s: parseGoNote = %q, want \"\"", name, got)
		}
	}
}
