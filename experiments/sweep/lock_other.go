//go:build !unix

package sweep

import (
	"errors"
	"os"
)

// errWouldBlock is tryLock's error when another open file holds the lock.
var errWouldBlock = errors.New("lock held")

// tryLock does nothing where flock(2) does not exist: one writer per dataset is then the user's to keep.
func tryLock(*os.File) error { return nil }
