package sweep

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"lbsweep/experiments"
	"lbsweep/results"
)

// stamped makes this test binary pass for a clean build of revision 0123abc (the datasets it writes say so), so that a
// dataset it wrote is up to date for it; a test binary is otherwise never stamped.
func stamped(t *testing.T) {
	t.Helper()
	old := revision
	revision = func() string { return "0123abc" }
	t.Cleanup(func() { revision = old })
}

// An up-to-date dataset in a directory where nothing can be written (a read-only file system: there even the writer's
// lock cannot be created) is reported up to date, exit 0, writing nothing; one that needs a rerun is refused naming
// the lock it cannot take. (Before, `sweep` failed with "unlinkat … read-only file system" though nothing needed
// writing.) As root, chmod does not stop writes, so the lock path is also made unopenable: a directory in its place.
func TestUpToDateOnReadOnlyDirNeedsNoWrite(t *testing.T) {
	stamped(t)
	s := mustParse(t, smallSpec)
	dir := t.TempDir()
	if _, err := Run(context.Background(), s, Options{Dir: dir, Every: -1}); err != nil {
		t.Fatal(err)
	}
	ds := filepath.Join(dir, "small")
	os.Mkdir(filepath.Join(ds, lockName(Whole)), 0o755) // opening it for writing fails, as on a read-only file system
	os.Chmod(ds, 0o555)
	defer os.Chmod(ds, 0o755)
	before := listing(t, ds)
	sum, err := Run(context.Background(), s, Options{Dir: dir, Every: -1})
	if err != nil || !sum.UpToDate {
		t.Fatalf("up-to-date dataset in a read-only directory: UpToDate %v, %v; want up to date, no error", sum.UpToDate, err)
	}
	if after := listing(t, ds); after != before {
		t.Errorf("an up-to-date sweep wrote:\n%s\nthen\n%s", before, after)
	}
	other := mustParse(t, strings.Replace(smallSpec, "seed = 11", "seed = 12", 1))
	if _, err := Run(context.Background(), other, Options{Dir: dir, Every: -1}); err == nil || !strings.Contains(err.Error(), "cannot take the writer's lock") {
		t.Errorf("a rerun needed in a read-only directory: %v, want the lock's error", err)
	}
}

// sweptSmall sweeps smallSpec into a fresh directory as a stamped build and returns the spec, the directory, the
// dataset file and its bytes.
func sweptSmall(t *testing.T) (*experiments.Spec, string, string, []byte) {
	t.Helper()
	stamped(t)
	s := mustParse(t, smallSpec)
	dir := t.TempDir()
	if _, err := Run(context.Background(), s, Options{Dir: dir, Every: -1}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "small", FileName)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return s, dir, path, b
}

// sweptMarked is sweptSmall for a test of the build mark, whose file it also returns; it skips the test where there
// is no user cache directory, so no mark.
func sweptMarked(t *testing.T) (s *experiments.Spec, dir, path string, want []byte, mark string) {
	t.Helper()
	s, dir, path, want = sweptSmall(t)
	if mark = builtMark(path); mark == "" {
		t.Skip("no user cache directory: no build mark")
	}
	return s, dir, path, want, mark
}

// runWithin sweeps s into dir, logging to log, and fails the test if the sweep has not returned after 30 s (blocked
// on a pipe, or spinning on a device); what names the case.
func runWithin(t *testing.T, s *experiments.Spec, dir string, log io.Writer, what string) (Summary, error) {
	t.Helper()
	type result struct {
		sum Summary
		err error
	}
	done := make(chan result, 1)
	go func() {
		sum, err := Run(context.Background(), s, Options{Dir: dir, Every: -1, Log: log})
		done <- result{sum, err}
	}()
	select {
	case r := <-done:
		return r.sum, r.err
	case <-time.After(30 * time.Second):
		t.Fatalf("%s: the sweep still runs after 30 s", what)
		return Summary{}, nil
	}
}

// damagePage overwrites the first column chunk's page header (after the magic "PAR1") of the dataset file path, in
// place and at the same size; its footer stays readable.
func damagePage(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := 4; i < 68; i++ {
		b[i] = 0xff
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// A data page damaged in an up-to-date dataset (its footer intact) is found by the sweep, which reruns it: before, the
// sweep said "up to date" and check/plot said "run sweep again", a loop only -force broke.
func TestDamagedPageInUpToDateDatasetReruns(t *testing.T) {
	s, dir, path, want := sweptSmall(t)
	damagePage(t, path)
	if _, _, err := results.ReadMeta(path); err != nil {
		t.Fatalf("the footer must stay readable for this test: %v", err)
	}
	if _, err := s.ReadResults(dir); err == nil {
		t.Fatal("the damaged dataset reads: the test damaged nothing")
	}
	wantRerunRestoring(t, s, dir, path, want, "is damaged")
}

// wantRerunRestoring sweeps s into dir and requires a rerun whose log says why (because) and that gives back the
// dataset file path's bytes want.
func wantRerunRestoring(t *testing.T, s *experiments.Spec, dir, path string, want []byte, because string) {
	t.Helper()
	var log bytes.Buffer
	sum, err := Run(context.Background(), s, Options{Dir: dir, Every: -1, Log: &log})
	if err != nil || sum.UpToDate || !strings.Contains(log.String(), because) {
		t.Fatalf("sweep of a damaged up-to-date dataset: UpToDate %v, %v, log %q; want a rerun saying %q", sum.UpToDate, err, log.String(), because)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, want) {
		t.Error("the rerun did not restore the dataset")
	}
}

// The build mark spares an up-to-date sweep reading the footers and decoding the pages it wrote or checked itself
// (they were 2.3 and 1.4 ms of a sweep with nothing to run), and only those bytes: damaged pages or footer that a
// mark claims as checked for this spec are trusted, which shows that nothing is read (TestDamagedSpecTextInFooterReruns:
// a mark for another spec spares the pages, not the footer); without the mark they are decoded, found damaged and
// rerun; and a sweep that decodes an up-to-date dataset it did not mark marks it, for its spec.
func TestBuildMarkSparesDecodingOnlyItsOwnBytes(t *testing.T) {
	s, dir, path, want, mark := sweptMarked(t)
	if spec, ok := markedBuilt(path, ""); !ok || spec != s.SHA256 {
		t.Fatalf("after the sweep that wrote it, the mark gives spec %q, %v; want %s, true", spec, ok, s.SHA256)
	}
	for _, damage := range []func(){
		func() { damagePage(t, path) },           // no page decoded
		func() { damageSpecText(t, path, want) }, // no footer read
	} {
		damage()
		markBuilt(path, "", s.SHA256)
		if sum, err := Run(context.Background(), s, Options{Dir: dir, Every: -1}); err != nil || !sum.UpToDate {
			t.Fatalf("bytes the mark claims as checked: UpToDate %v, %v; want up to date without reading them", sum.UpToDate, err)
		}
	}
	os.WriteFile(path, want, 0o644)
	damagePage(t, path)
	os.Remove(mark)
	wantRerunRestoring(t, s, dir, path, want, "is damaged") // without the mark: decoded, damaged, rerun
	os.Remove(mark)
	if sum, err := Run(context.Background(), s, Options{Dir: dir, Every: -1}); err != nil || !sum.UpToDate {
		t.Fatalf("an intact dataset without a mark: UpToDate %v, %v; want up to date", sum.UpToDate, err)
	}
	if spec, ok := markedBuilt(path, ""); !ok || spec != s.SHA256 {
		t.Errorf("a sweep that decoded an up-to-date dataset left the mark %q, %v for the next; want %s, true", spec, ok, s.SHA256)
	}
}

// renameColumn rewrites every occurrence of column name old (not in the spec text) in file path to new, of the same
// length: a footer whose schema names another column.
func renameColumn(t *testing.T, path, old, new string) {
	t.Helper()
	b, _ := os.ReadFile(path)
	if !bytes.Contains(b, []byte(old)) {
		t.Fatalf("%s does not name %s", path, old)
	}
	os.WriteFile(path, bytes.ReplaceAll(b, []byte(old), []byte(new)), 0o644)
}

// A footer that renames a column is refused on read (check, plot), naming the column, and the sweep does not take such
// a dataset as up to date, nor such a chunk as finished runs to resume from. (Before, the renamed column was read
// as data.)
func TestRenamedColumnRefusedNamingIt(t *testing.T) {
	stamped(t)
	s := mustParse(t, smallSpec)
	dir := t.TempDir()
	if _, err := Run(context.Background(), s, Options{Dir: dir, Every: -1}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "small", FileName)
	want, _ := os.ReadFile(path)
	renameColumn(t, path, "mean_sojourn", "mean_sojourX")
	if _, err := s.ReadResults(dir); err == nil || !strings.Contains(err.Error(), "mean_sojourX") || !strings.Contains(err.Error(), "mean_sojourn") {
		t.Errorf("reading a dataset with a renamed column: %v, want an error naming it", err)
	}
	sum, err := Run(context.Background(), s, Options{Dir: dir, Every: -1})
	if err != nil || sum.UpToDate {
		t.Fatalf("sweep of a dataset with a renamed column: UpToDate %v, %v; want a rerun", sum.UpToDate, err)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, want) {
		t.Error("the rerun did not restore the dataset")
	}
	// A finished chunk with a renamed column is not resumed from.
	prog := progressDir(filepath.Join(dir, "small"), Whole)
	os.MkdirAll(prog, 0o755)
	os.WriteFile(filepath.Join(prog, buildFile), []byte(buildID()), 0o644)
	chunk := filepath.Join(prog, chunkName(0))
	b, _ := os.ReadFile(path)
	os.WriteFile(chunk, b, 0o644)
	renameColumn(t, chunk, "mean_sojourn", "mean_sojourX")
	if _, _, err := loadProgress(prog, s, tablesOf(s).runs.cols, 0, s.Runs(), false, false); err == nil || !strings.Contains(err.Error(), "mean_sojourX") {
		t.Errorf("resuming from a chunk with a renamed column: %v, want an error naming it", err)
	}
}

// shardParts sweeps s in n shards into dir, each with revision rev(k) stamped into its part.
func shardParts(t *testing.T, dir string, n int, rev func(k int) string) {
	t.Helper()
	s := mustParse(t, smallSpec)
	old := revision
	defer func() { revision = old }()
	for k := range n {
		revision = func() string { return rev(k) }
		if _, err := Run(context.Background(), s, Options{Dir: dir, Workers: 1, Every: -1, Shard: Shard{k, n}, Force: true}); err != nil {
			t.Fatal(err)
		}
	}
}

// Parts made by different builds are refused by merge (and by reading them for check: results.CheckBuilds) naming
// both builds, unless MixedBuilds; the file merged then records every part's build. Parts of one build merge to a file
// stating that build, byte-identical to the unsharded one (TestShardsMergeToUnshardedBytes).
func TestMergeRefusesMixedBuilds(t *testing.T) {
	dir := t.TempDir()
	ds := filepath.Join(dir, "small")
	shardParts(t, dir, 2, func(k int) string { return []string{"aaaa111", "bbbb222"}[k] })
	for _, p := range []string{ds} {
		if err := results.CheckBuilds(p); err == nil || !strings.Contains(err.Error(), "bbbb222") || !strings.Contains(err.Error(), "aaaa111") {
			t.Errorf("CheckBuilds of parts of two builds: %v, want both named", err)
		}
	}
	_, err := Merge(context.Background(), ds, MergeOptions{})
	if err == nil || !strings.Contains(err.Error(), "bbbb222") || !strings.Contains(err.Error(), "aaaa111") || !strings.Contains(err.Error(), "-mixed-builds") {
		t.Fatalf("merge of parts of two builds: %v, want refused naming both and the flag", err)
	}
	if _, err := os.Stat(filepath.Join(ds, "part-1-of-2.parquet")); err != nil {
		t.Fatal("the refused merge removed a part")
	}
	out, err := Merge(context.Background(), ds, MergeOptions{MixedBuilds: true})
	if err != nil {
		t.Fatal(err)
	}
	meta, _, _ := results.ReadMeta(out)
	if got := results.Lookup(meta, results.KeyPartBuilds); !strings.Contains(got, "part-0-of-2.parquet: revision aaaa111") || !strings.Contains(got, "part-1-of-2.parquet: revision bbbb222") {
		t.Errorf("%s = %q, want every part's build", results.KeyPartBuilds, got)
	}
	if got := results.Lookup(meta, results.KeyRevision); got != results.MixedRevision {
		t.Errorf("merged %s = %q, want %q", results.KeyRevision, got, results.MixedRevision)
	}
	if err := results.CheckBuilds(ds); err == nil {
		t.Error("CheckBuilds of a dataset merged from mixed builds: no error")
	}
	// One build: the merged file states the parts' build, not the merger's, and carries no part list.
	dir = t.TempDir()
	shardParts(t, dir, 2, func(int) string { return "cccc333" })
	out, err = Merge(context.Background(), filepath.Join(dir, "small"), MergeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	meta, _, _ = results.ReadMeta(out)
	if got := results.Lookup(meta, results.KeyRevision); got != "cccc333" || results.Lookup(meta, results.KeyPartBuilds) != "" {
		t.Errorf("merge of one build: revision %q, part builds %q; want cccc333 and none", got, results.Lookup(meta, results.KeyPartBuilds))
	}
}

// A merge stopped by its context leaves no output and every part in place; the temporary file of a merge killed with
// SIGKILL (.runs.parquet.PID.tmp, whatever became of the PID) is removed by the next merge.
func TestInterruptedMergeLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	ds := filepath.Join(dir, "small")
	shardParts(t, dir, 2, func(int) string { return "unknown" })
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Merge(ctx, ds, MergeOptions{}); !errors.Is(err, ErrInterrupted) {
		t.Errorf("merge with a cancelled context: %v, want ErrInterrupted", err)
	}
	ents, _ := os.ReadDir(ds)
	if len(ents) != 2 {
		t.Errorf("interrupted merge left %d entries, want the 2 parts", len(ents))
	}
	stale := results.TempName(filepath.Join(ds, FileName)) // this process's id: alive, yet stale once the lock is held
	os.WriteFile(stale, []byte("half a merge"), 0o644)
	if _, err := Merge(context.Background(), ds, MergeOptions{}); err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(ds); len(ents) != 1 {
		t.Errorf("merge after a killed merge left %d entries, want only %s", len(ents), FileName)
	}
}

// A sweep stopped while writing its dataset file (the final write) stops with ErrInterrupted, leaving no dataset file
// and no temporary file, and keeps its finished runs: the next sweep writes the file without rerunning any.
func TestInterruptedFinalWriteKeepsRuns(t *testing.T) {
	s := mustParse(t, smallSpec)
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	_, err := Run(ctx, s, Options{Dir: dir, Every: -1, OnRow: func(done, total int, _ int64) {
		if done == total {
			cancel() // the last row is kept: the next phase is the final write
		}
	}})
	if !errors.Is(err, ErrInterrupted) || !strings.Contains(err.Error(), "while writing") {
		t.Fatalf("sweep cancelled before its final write: %v", err)
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "small", "*runs.parquet*")); len(m) != 0 {
		t.Errorf("left %v", m)
	}
	sum, err := Run(context.Background(), s, Options{Dir: dir, Every: -1})
	if err != nil || sum.Resumed != s.Runs() {
		t.Errorf("rerun: resumed %d of %d runs, %v", sum.Resumed, s.Runs(), err)
	}
}

// Damage inside the spec text that a dataset's footer carries, the footer still readable, is found (the pages'
// checksums do not cover the footer) and the dataset rerun, even when the build mark says this executable checked
// the damaged bytes (for the spec of another dataset): a mark spares the footer only for the spec it vouches for.
func TestDamagedSpecTextInFooterReruns(t *testing.T) {
	s, dir, path, want := sweptSmall(t)
	damageSpecText(t, path, want)
	markBuilt(path, "", strings.Repeat("0", 64))
	wantRerunRestoring(t, s, dir, path, want, "does not hash to the SHA-256")
}

// damageSpecText rewrites the dataset file path, whose bytes are want, with one digit of the spec text in its footer
// changed (smallSpec's seed = 11 becomes 19): the same length, the footer still readable, its SHA-256 check failing.
func damageSpecText(t *testing.T, path string, want []byte) {
	t.Helper()
	i := bytes.LastIndex(want, []byte("seed = 11"))
	if i < 0 {
		t.Fatal("the footer does not hold the spec text")
	}
	bad := bytes.Clone(want)
	bad[i+len("seed = 1")] = '9'
	os.WriteFile(path, bad, 0o644)
	if _, _, err := results.ReadMeta(path); err != nil {
		t.Fatalf("the footer must stay readable for this test: %v", err)
	}
}

// A build mark that is not a regular file (a FIFO would block the read while the sweep holds the writer's lock, a
// link to /dev/zero grow without bound) counts as no mark: the sweep decodes the dataset and finishes.
func TestBuildMarkNotARegularFile(t *testing.T) {
	s, dir, _, _, mark := sweptMarked(t)
	os.Remove(mark)
	if err := syscall.Mkfifo(mark, 0o644); err != nil {
		t.Skip("no FIFO here:", err)
	}
	t.Cleanup(func() { os.Remove(mark) })
	if sum, err := runWithin(t, s, dir, io.Discard, "a FIFO as the build mark"); err != nil || !sum.UpToDate {
		t.Errorf("a FIFO as the build mark: up to date %v, %v; want up to date", sum.UpToDate, err)
	}
}

// A named pipe, or a link to /dev/zero, where the dataset file belongs is replaced by a rerun, with the build mark of
// the dataset it replaced still in place: before, the mark's hashing of a link to /dev/zero spun for ever, deaf to
// SIGTERM, and a pipe blocked the sweep in its open (found by a helper).
func TestNonRegularDatasetReplaced(t *testing.T) {
	for _, kind := range []string{"fifo", "/dev/zero"} {
		s, dir, path, want := sweptSmall(t)
		os.Remove(path)
		if kind == "fifo" {
			if err := syscall.Mkfifo(path, 0o644); err != nil {
				t.Skip("no FIFO here:", err)
			}
		} else if err := os.Symlink("/dev/zero", path); err != nil {
			t.Skip("no symlink here:", err)
		}
		var log bytes.Buffer
		sum, err := runWithin(t, s, dir, &log, kind+" as the dataset file")
		if err != nil || sum.UpToDate || !strings.Contains(log.String(), "is not a regular file") {
			t.Fatalf("%s as the dataset file: up to date %v, %v, log %q; want a rerun saying it is not a regular file", kind, sum.UpToDate, err, log.String())
		}
		if got, _ := os.ReadFile(path); !bytes.Equal(got, want) {
			t.Errorf("%s as the dataset file: the rerun did not restore the dataset", kind)
		}
	}
}
