//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package rundir

import (
	"errors"
	"os"
)

var errLocked = errors.New("locked")

// tryLock does not lock where flock is missing: two runs into one
// directory are then told apart only by the partial folder's existence.
func tryLock(f *os.File) error { return nil }

// isMountPoint is not known here: a run into a mount point fails at its
// commit instead, with its results moved beside it.
func isMountPoint(dir string) bool { return false }
