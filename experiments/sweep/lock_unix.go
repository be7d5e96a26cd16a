//go:build unix

package sweep

import (
	"errors"
	"os"
	"syscall"
)

// errWouldBlock is tryLock's error when another open file holds the lock.
var errWouldBlock = errors.New("lock held")

// tryLock takes an exclusive flock on f without waiting.
func tryLock(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.EWOULDBLOCK):
			return errWouldBlock
		default:
			return err
		}
	}
}
