//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package rundir

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
)

var errLocked = errors.New("locked")

// tryLock takes an exclusive lock on f without waiting. flock locks
// belong to the open file and die with the process, so a run killed
// outright never leaves its directory locked.
func tryLock(f *os.File) error {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return errLocked
	}
	return err
}

// isMountPoint reports whether dir is a folder on another device than its
// parent (a mount point, such as a container volume).
func isMountPoint(dir string) bool {
	var st, parent syscall.Stat_t
	if syscall.Stat(dir, &st) != nil || syscall.Stat(filepath.Dir(dir), &parent) != nil {
		return false
	}
	return st.Mode&syscall.S_IFMT == syscall.S_IFDIR && st.Dev != parent.Dev
}
