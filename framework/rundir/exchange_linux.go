package rundir

import "golang.org/x/sys/unix"

// exchange swaps two paths atomically (renameat2 RENAME_EXCHANGE, Linux
// 3.15+; some file systems refuse it, and then the caller falls back to
// two renames).
func exchange(a, b string) error {
	return unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
}
