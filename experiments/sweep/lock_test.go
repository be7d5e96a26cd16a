package sweep

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"lbsweep/experiments"
)

// blockedRun starts Run of s into dir (options o) in a goroutine and returns once it has written its first row,
// blocked there until release is called; wait returns its error.
func blockedRun(t *testing.T, s *experiments.Spec, o Options) (release func(), wait func() error) {
	t.Helper()
	started, unblock, done := make(chan struct{}), make(chan struct{}), make(chan error, 1)
	first := true
	o.OnRow = func(int, int, int64) {
		if first {
			first = false
			close(started)
			<-unblock
		}
	}
	go func() {
		_, err := Run(context.Background(), s, o)
		done <- err
	}()
	select {
	case <-started:
	case err := <-done:
		t.Fatalf("the first sweep ended before its first row: %v", err)
	}
	var once bool
	return func() {
			if !once {
				once = true
				close(unblock)
			}
		}, func() error {
			return <-done
		}
}

// listing returns the names and sizes of every file under dir.
func listing(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil {
			fmt.Fprintf(&b, "%s %d\n", strings.TrimPrefix(p, dir), fi.Size())
		}
		return nil
	})
	return b.String()
}

// A second sweep into a directory a sweep is writing — the same spec, another version of it, or -force — is refused
// at once naming the first one's process id, and touches none of its files; the first one finishes with the bytes of
// an undisturbed sweep. (Before, the second one deleted the first one's unfinished chunk: "rename …/.chunk-….tmp: no
// such file or directory".)
func TestSecondSweepRefusedNamingHolder(t *testing.T) {
	s := mustParse(t, smallSpec)
	ref := t.TempDir()
	if _, err := Run(context.Background(), s, Options{Dir: ref, Workers: 2, Every: -1}); err != nil {
		t.Fatal(err)
	}
	want, _ := os.ReadFile(filepath.Join(ref, "small", FileName))
	other := mustParse(t, strings.Replace(smallSpec, "seed = 11", "seed = 12", 1))

	dir := t.TempDir()
	release, wait := blockedRun(t, s, Options{Dir: dir, Workers: 2, Every: -1})
	defer release()
	before := listing(t, dir)
	for _, c := range []struct {
		name string
		spec *experiments.Spec
		o    Options
	}{
		{"same spec", s, Options{Dir: dir, Every: -1}},
		{"another version", other, Options{Dir: dir, Every: -1}},
		{"-force", s, Options{Dir: dir, Every: -1, Force: true}},
	} {
		_, err := Run(context.Background(), c.spec, c.o)
		if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), fmt.Sprintf("process %d holds", os.Getpid())) {
			t.Errorf("%s: second sweep: %v, want refused naming process %d", c.name, err, os.Getpid())
		}
		if after := listing(t, dir); after != before {
			t.Errorf("%s: the refused sweep changed the first one's files:\n%s\nthen\n%s", c.name, before, after)
		}
	}
	if _, err := Merge(context.Background(), filepath.Join(dir, "small"), MergeOptions{}); err == nil {
		t.Error("merge of a directory being swept: no error")
	}
	release()
	if err := wait(); err != nil {
		t.Fatalf("the first sweep failed: %v", err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "small", FileName)); !bytes.Equal(got, want) {
		t.Error("the first sweep's dataset differs from an undisturbed one")
	}
	if ents, _ := os.ReadDir(filepath.Join(dir, "small")); len(ents) != 1 {
		t.Errorf("left %d entries, want only %s (the lock file is removed)", len(ents), FileName)
	}
}

// The shards of one sweep, started together by a batch system, write their parts into one directory at once: one
// shard's lock does not stop another shard. A merge while a shard rewrites its part is refused naming the writer.
func TestShardsWriteConcurrently(t *testing.T) {
	s := mustParse(t, smallSpec)
	dir := t.TempDir()
	release, wait := blockedRun(t, s, Options{Dir: dir, Workers: 1, Every: -1, Shard: Shard{0, 2}})
	defer release()
	if _, err := Run(context.Background(), s, Options{Dir: dir, Workers: 1, Every: -1, Shard: Shard{1, 2}}); err != nil {
		t.Fatalf("shard 1/2 beside a running shard 0/2: %v", err)
	}
	release()
	if err := wait(); err != nil {
		t.Fatal(err)
	}
	// Shard 0 rerun (-force) while a merge is asked for: refused, and the parts stay.
	release, wait = blockedRun(t, s, Options{Dir: dir, Workers: 1, Every: -1, Shard: Shard{0, 2}, Force: true})
	_, err := Merge(context.Background(), filepath.Join(dir, "small"), MergeOptions{})
	if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), fmt.Sprintf("process %d holds", os.Getpid())) {
		t.Errorf("merge while shard 0/2 writes: %v, want refused naming process %d", err, os.Getpid())
	}
	release()
	if err := wait(); err != nil {
		t.Fatal(err)
	}
	if _, err := Merge(context.Background(), filepath.Join(dir, "small"), MergeOptions{}); err != nil {
		t.Fatalf("merge after the shards finished: %v", err)
	}
}

// A lock's holder killed with SIGKILL never leaves the dataset stuck: the operating system releases the lock, and the
// next sweep takes it (the stale lock file, with the dead process id in it, is simply reused). While the holder
// lives, a sweep is refused naming its process id.
func TestKilledLockHolderDoesNotBlock(t *testing.T) {
	s := mustParse(t, smallSpec)
	dir := t.TempDir()
	ds := filepath.Join(dir, "small")
	os.MkdirAll(ds, 0o755)
	cmd := exec.Command(os.Args[0], "-test.run=^TestSweepHelperProcess$", "--", ds)
	cmd.Env = append(os.Environ(), helperEnv+"=lock")
	out, _ := cmd.StdoutPipe()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	if line, _ := bufio.NewReader(out).ReadString('\n'); line != "locked\n" {
		t.Fatalf("lock holder: %q, stderr %s", line, stderr.String())
	}
	_, err := Run(context.Background(), s, Options{Dir: dir, Every: -1})
	if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), fmt.Sprintf("process %d holds", cmd.Process.Pid)) {
		t.Errorf("sweep while process %d holds the lock: %v", cmd.Process.Pid, err)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	if _, err := os.Stat(filepath.Join(ds, lockName(Whole))); err != nil {
		t.Fatalf("the killed holder's lock file should still be there for this test to mean anything: %v", err)
	}
	if _, err := Run(context.Background(), s, Options{Dir: dir, Every: -1}); err != nil {
		t.Fatalf("sweep after the holder was killed: %v", err)
	}
}

// An up-to-date dataset is reported up to date while another process holds its lock (up-to-date sweeps started
// together, as make -j does, all succeed; before, all but the lock's taker failed), and one that needs writing is
// still refused naming the holder.
func TestUpToDateWhileLocked(t *testing.T) {
	s, dir, _, _ := sweptSmall(t)
	lk, err := acquire(filepath.Join(dir, "small", lockName(Whole)), "test")
	if err != nil {
		t.Fatal(err)
	}
	defer lk.release()
	before := listing(t, dir)
	if sum, err := Run(context.Background(), s, Options{Dir: dir, Every: -1}); err != nil || !sum.UpToDate {
		t.Errorf("up to date while locked: up to date %v, %v; want up to date", sum.UpToDate, err)
	}
	if after := listing(t, dir); after != before {
		t.Errorf("an up-to-date sweep beside the lock's holder wrote:\n%s\nthen\n%s", before, after)
	}
	other := mustParse(t, strings.Replace(smallSpec, "seed = 11", "seed = 12", 1))
	if _, err := Run(context.Background(), other, Options{Dir: dir, Every: -1}); !errors.Is(err, ErrLocked) {
		t.Errorf("a rerun needed while locked: %v, want ErrLocked", err)
	}
	// A spec changed only in its text needs its metadata written into the dataset: that is a write too, refused, not
	// "up to date" with the old spec's metadata (as a helper found).
	retitled := mustParse(t, "description = \"retitled\"\n"+smallSpec)
	if sum, err := Run(context.Background(), retitled, Options{Dir: dir, Every: -1}); !errors.Is(err, ErrLocked) || sum.UpToDate {
		t.Errorf("a metadata update needed while locked: up to date %v, %v; want ErrLocked", sum.UpToDate, err)
	}
	if after := listing(t, dir); after != before {
		t.Errorf("refused sweeps beside the lock's holder wrote:\n%s\nthen\n%s", before, after)
	}
}

// A sweep that checks a dataset while another process holds the writer's lock marks nothing: that writer may rename
// other bytes into place between the check and the mark's hashing, and the mark would pair this verdict with them
// (a helper's race of two builds sharing a cache left a mark saying "complete dataset of seed 7" beside seed 8's
// file, trusted from then on).
func TestNoMarkWithoutTheLock(t *testing.T) {
	s, dir, path, _, mark := sweptMarked(t)
	os.Remove(mark)
	lk, err := acquire(filepath.Join(dir, "small", lockName(Whole)), "test")
	if err != nil {
		t.Fatal(err)
	}
	if sum, err := Run(context.Background(), s, Options{Dir: dir, Every: -1}); err != nil || !sum.UpToDate {
		t.Fatalf("up to date while locked: up to date %v, %v; want up to date", sum.UpToDate, err)
	}
	if _, err := os.Lstat(mark); err == nil {
		t.Error("a sweep without the writer's lock wrote a build mark")
	}
	lk.release()
	if sum, err := Run(context.Background(), s, Options{Dir: dir, Every: -1}); err != nil || !sum.UpToDate {
		t.Fatalf("up to date: up to date %v, %v", sum.UpToDate, err)
	}
	if spec, ok := markedBuilt(path, ""); !ok || spec != s.SHA256 {
		t.Errorf("with the lock, the check left the mark %q, %v; want %s, true", spec, ok, s.SHA256)
	}
}
