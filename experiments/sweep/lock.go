package sweep

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// One writer per output. Every process that writes a dataset file holds the lock of that file's shard, the advisory
// lock (flock(2), exclusive, never waited for) of the file DIR/NAME/.lock-K-of-N, for as long as it writes it:
//
//   - a sweep of shard K/N (K/N = 0/1 unsharded, -force included) holds .lock-K-of-N: it covers part-K-of-N.parquet
//     (runs.parquet), its time-series part and its progress directory .progress-K-of-N/, so the shards of one sweep,
//     started together by a batch system, write their parts into one directory side by side;
//   - `sweep merge` of N parts holds .lock-0-of-1 (it writes runs.parquet) and every .lock-K-of-N (it removes the parts).
//
// A second writer of the same file is refused at once with an error naming the holder's process id (written into the
// lock file), and it has touched nothing. The operating system releases the lock when its holder exits in any way,
// kill -9 included, so a stale lock file never blocks anyone: the next writer takes it. The holder removes the file
// when it is done. flock works on local file systems and on NFS (where Linux maps it onto byte-range locks).

// ErrLocked is wrapped by the error of Run or Merge refused because another process writes the same shard's files
// (or, for Merge, one of the parts or runs.parquet); the error names that process's id and the lock file.
var ErrLocked = errors.New("another process is writing it")

// lockName is the lock file of shard sh's outputs inside a dataset directory.
func lockName(sh Shard) string { return fmt.Sprintf(".lock-%d-of-%d", sh.K, sh.N) }

// lock is a held dataset lock; release gives it back.
type lock struct {
	path string
	f    *os.File
}

// acquire takes the lock file path (creating it), or returns an error wrapping ErrLocked naming its holder's pid, what
// names the output it guards. The lock file that path names after the lock is taken must be the one locked: a holder
// removing the file as it finishes (release) would otherwise let two processes hold locks on two different files.
func acquire(path, what string) (*lock, error) {
	for range 100 {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			return nil, fmt.Errorf("%s: cannot take the writer's lock: %w", what, err)
		}
		if err := tryLock(f); err != nil {
			pid := readPID(f)
			f.Close()
			if errors.Is(err, errWouldBlock) {
				return nil, fmt.Errorf("%s: %w (process %s holds %s); wait for it to finish or stop it", what, ErrLocked, pid, path)
			}
			return nil, fmt.Errorf("%s: cannot take the writer's lock %s: %w", what, path, err)
		}
		if same, err := sameFileAs(f, path); err != nil || !same {
			f.Close() // removed or replaced by the holder we waited on: take the new one
			continue
		}
		if err := f.Truncate(0); err == nil {
			_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
		}
		return &lock{path, f}, nil
	}
	return nil, fmt.Errorf("%s: cannot take the writer's lock %s: it keeps being replaced", what, path)
}

// release removes the lock file and gives the lock back. It is safe on a nil lock.
func (l *lock) release() {
	if l == nil || l.f == nil {
		return
	}
	os.Remove(l.path) // while still held: a waiter that opened it sees the file gone and retries
	l.f.Close()
	l.f = nil
}

// readPID returns the process id written in a lock file, or "unknown".
func readPID(f *os.File) string {
	b := make([]byte, 32)
	n, _ := f.ReadAt(b, 0)
	if s := strings.TrimSpace(string(b[:n])); s != "" {
		if _, err := strconv.Atoi(s); err == nil {
			return s
		}
	}
	return "unknown"
}

// sameFileAs reports whether the open file f is the file path names now.
func sameFileAs(f *os.File, path string) (bool, error) {
	a, err := f.Stat()
	if err != nil {
		return false, err
	}
	b, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	} else if err != nil {
		return false, err
	}
	return os.SameFile(a, b), nil
}

// lockShard takes the lock of shard sh's outputs in dataset directory dir.
func lockShard(dir string, sh Shard) (*lock, error) {
	what := filepath.Join(dir, fileName(sh))
	return acquire(filepath.Join(dir, lockName(sh)), what)
}

// locks are several held locks.
type locks []*lock

func (ls locks) release() {
	for _, l := range ls {
		l.release()
	}
}
